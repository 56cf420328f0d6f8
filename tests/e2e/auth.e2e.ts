import { expect, test } from "@playwright/test";

const unique = (tag: string) =>
  `${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.test`;

test("a person signs up through the form and sees their profile", async ({ page }) => {
  const email = unique("e2e");
  await page.goto("/");
  await page.getByRole("link", { name: "Start creating — it’s free" }).click();
  await expect(page).toHaveURL(/\/sign-up$/);
  await page.getByLabel("Name").fill("Grace Hopper");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign up" }).click();

  // Sign-up lands in the studio; the profile is on the account page.
  await expect(page).toHaveURL(/\/studio$/);
  await page.goto("/account");
  await expect(page.getByRole("heading", { name: "Account", level: 1 })).toBeVisible();
  await expect(page.locator('[data-field="Email"]')).toHaveText(email);
  await expect(page.locator('[data-field="Nickname"]')).toHaveText("Grace Hopper");
  await expect(page.locator('[data-field="Invite code"]')).toHaveText(/^[A-Z2-9]{8}$/);
  await expect(page.locator('[data-field="User ID"]')).toHaveText(/^[0-9a-f-]{36}$/);
  await expect(page.getByText("10 credits")).toBeVisible();
  // No mail transport in this run: the account works unconfirmed and offers a confirmation link (written to the log).
  await expect(page.locator('[data-field="Email confirmed"]')).toHaveText("Not yet");
  await page.getByRole("button", { name: "Send a confirmation link" }).click();
  await expect(page.getByRole("status")).toContainText(`If ${email} has an account waiting for confirmation`);
  await page.goto("/account");

  // Sign out, then back in through the sign-in form.
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/\?notice=signed-out$/);
  await expect(page.getByRole("status")).toHaveText("You are signed out. See you soon.");
  await page.goto("/account");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Faccount$/);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("wrong-password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("alert")).toContainText("Email or password is incorrect");
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/account$/);
});

test("sign-up shows field errors from the shared schema, also without JavaScript", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill("No JS");
  await page.getByLabel("Email").fill("not-an-email");
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page.getByText("Enter a valid email address")).toBeVisible();
  await expect(page.getByText("At least 8 characters")).toBeVisible();

  await page.getByLabel("Email").fill(unique("nojs"));
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/studio$/);
  await page.goto("/account");
  await expect(page.locator('[data-field="Nickname"]')).toHaveText("No JS");
  await context.close();
});
