/**
 * E-mail verification and password reset in the browser, with a real mail
 * transport: a second production server whose SMTP_URL points at a local SMTP
 * server (tests/fakes/smtp.ts) that keeps the messages. Sign up → open the
 * link from the mail → sign in; forgot password → reset (without JavaScript) →
 * sign in with the new password.
 */

import { expect, test } from "@playwright/test";
import { type SmtpFake, startSmtp } from "../fakes/smtp";
import { auditAndShoot, startSecondServer, unique } from "./support";

test.describe.configure({ mode: "serial" });

const PORT = Number(process.env.E2E_PORT) + 1;
const BASE = `http://localhost:${PORT}`;
let smtp: SmtpFake;
let server: { stop(): void } | undefined;

test.beforeAll(async () => {
  test.setTimeout(60_000);
  smtp = await startSmtp();
  server = await startSecondServer({ port: PORT, tag: "mail", env: { SMTP_URL: smtp.url } });
});

test.afterAll(async () => {
  server?.stop();
  await smtp?.close();
});

const email = unique("mail");

test("sign up, confirm the address from the e-mail, sign in", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`${BASE}/sign-up`);
  await page.getByLabel("Name").fill("Mary Mail");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox", level: 1 })).toBeVisible();
  await expect(page.getByRole("status")).toContainText(email);
  await auditAndShoot(page, "sign-up-check-inbox");

  // Not before the address is confirmed.
  await page.goto(`${BASE}/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("alert")).toContainText("Confirm your e-mail address first");

  const mail = await smtp.take(email, "Confirm your e-mail address");
  await page.goto(smtp.linkIn(mail, `${BASE}/verify-email?token=`));
  await expect(page.getByRole("heading", { name: "E-mail confirmed", level: 1 })).toBeVisible();
  await auditAndShoot(page, "verify-email-confirmed");
  await page.locator("main").getByRole("link", { name: "Sign in" }).click();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  // Signing in lands in the studio; the account page shows the confirmed address.
  await expect(page).toHaveURL(/\/studio$/);
  await page.goto(`${BASE}/account`);
  await expect(page.locator('[data-field="Email"]')).toHaveText(email);
  await expect(page.locator('[data-field="Email confirmed"]')).toHaveText("Yes");
  await expect(page.getByRole("button", { name: "Send a confirmation link" })).toHaveCount(0);
  await expect(page.getByText("10 credits")).toBeVisible();
});

test("forgot password → link from the e-mail → new password → sign in, all without JavaScript", async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${BASE}/sign-in`);
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send the link" }).click();
  await expect(page.getByRole("status")).toContainText(`If ${email} has an account`);

  const mail = await smtp.take(email, "Reset your Atelier password");
  await page.goto(smtp.linkIn(mail, `${BASE}/reset-password?token=`));
  await expect(page.getByRole("heading", { name: "Choose a new password", level: 1 })).toBeVisible();
  await page.getByLabel("New password", { exact: true }).fill("a-brand-new-secret");
  await page.getByLabel("Repeat the new password").fill("a-different-one");
  await page.getByRole("button", { name: "Save the new password" }).click();
  await expect(page.getByText("The two passwords differ")).toBeVisible();
  await page.getByLabel("New password", { exact: true }).fill("a-brand-new-secret");
  await page.getByLabel("Repeat the new password").fill("a-brand-new-secret");
  await page.getByRole("button", { name: "Save the new password" }).click();
  await expect(page).toHaveURL(/\/sign-in\?notice=password-reset$/);
  // The notice also says what the reset took back (docs/decisions/138-taking-an-account-back-everything.md).
  await expect(page.getByRole("status")).toContainText("Your password has been changed. Sign in with the new one.");
  await expect(page.getByRole("status")).toContainText("passkeys");

  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("alert")).toContainText("Email or password is incorrect");
  await page.getByLabel("Password").fill("a-brand-new-secret");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/studio$/);
  await context.close();
});

// axe needs scripts: the pages above are audited and photographed here, with JavaScript on.
test("forgot and reset password pages: accessible, phone-sized", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`${BASE}/forgot-password`);
  await auditAndShoot(page, "forgot-password");
  await page.goto(`${BASE}/reset-password?token=expired-or-forged`);
  await page.getByLabel("New password", { exact: true }).fill("a-brand-new-secret");
  await page.getByLabel("Repeat the new password").fill("a-brand-new-secret");
  await page.getByRole("button", { name: "Save the new password" }).click();
  await expect(page.getByRole("alert")).toContainText("This link is invalid or has expired");
  await auditAndShoot(page, "reset-password-invalid-link");
});
