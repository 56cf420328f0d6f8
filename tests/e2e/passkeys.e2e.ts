/**
 * Passkeys in Debian's chromium with its virtual authenticator (Chrome DevTools Protocol `WebAuthn`): add one on the
 * account page, sign out, sign in with it; then remove it.
 */
import { expect, test } from "@playwright/test";
import { auditAndShoot, signUp } from "./support";

test("add a passkey on the account page, sign in with it, remove it", async ({ page }) => {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });

  const email = await signUp(page, { name: "Passkey Pat" });
  await page.goto("/account#sign-in-methods");
  const section = page.getByRole("region", { name: "Sign-in methods" });
  await expect(section.getByRole("list", { name: "Linked sign-in methods" })).toContainText("Password");
  await section.getByRole("button", { name: "Add a passkey" }).click();
  await expect(section.getByText("Passkey added: you can sign in with it now.")).toBeVisible();
  await expect(section.getByRole("list", { name: "Passkeys" }).getByRole("listitem")).toHaveCount(1);
  await auditAndShoot(page, "account-sign-in-methods");

  // Signed out, the passkey alone signs in (no e-mail, no password typed).
  await page.context().clearCookies();
  await page.goto("/sign-in?next=/keys");
  await auditAndShoot(page, "sign-in-passkey");
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await page.waitForURL((url) => url.pathname === "/keys");
  await page.goto("/account#sign-in-methods");
  await expect(page.locator('[data-field="Email"]')).toHaveText(email);

  // Removed, it no longer signs in.
  await page.getByRole("button", { name: /^Remove passkey/ }).click();
  await expect(page.getByText("Passkey removed.")).toBeVisible();
  await page.context().clearCookies();
  await page.goto("/sign-in");
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByText(/The passkey did not work|cancelled or timed out/)).toBeVisible();
  expect(new URL(page.url()).pathname).toBe("/sign-in");
});
