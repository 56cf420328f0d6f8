import { describe, expect, test } from "bun:test";
import { isDisposableEmail } from "~/domain/auth/disposable-email.server";

describe("disposable e-mail domains (the disposable-email-domains list)", () => {
  test("known throwaway services and their subdomains are disposable, whatever the case", () => {
    expect(isDisposableEmail("someone@mailinator.com")).toBe(true);
    expect(isDisposableEmail("Someone@MAILINATOR.COM")).toBe(true);
    expect(isDisposableEmail("a@0-mail.com")).toBe(true);
    expect(isDisposableEmail("a@sub.33mail.com")).toBe(true);
  });

  test("ordinary mail providers and our own test domain are not", () => {
    for (const email of ["a@gmail.com", "a@outlook.com", "a@example.test", "a@company.co.uk", "no-at-sign"])
      expect(isDisposableEmail(email)).toBe(false);
  });
});
