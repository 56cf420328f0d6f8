import { expect, test } from "@playwright/test";
import { auditAndShoot, unique } from "./support";

async function signUp(page: import("@playwright/test").Page, email: string) {
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill("Key Keeper");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/studio$/);
  await page.goto("/account");
}

test("create a key, copy it, use it, revoke it with confirmation, see it rejected", async ({
  page,
  context,
  request,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const email = unique("keys");
  await signUp(page, email);

  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page).toHaveURL(/\/keys$/);
  await expect(page.getByText("No keys yet")).toBeVisible();

  // Empty name → the shared schema's field error.
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText("Enter a name for the key")).toBeVisible();

  await page.getByLabel("Key name").fill("e2e script");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText("It is shown only once")).toBeVisible();
  const shown = await page.getByLabel("New API key").inputValue();
  expect(shown).toMatch(/^atl_[0-9A-Za-z]{32}$/);

  await page.getByRole("button", { name: "Copy key" }).click();
  await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
  const key = await page.evaluate(() => navigator.clipboard.readText());
  expect(key).toBe(shown);
  // The example request can be pasted as it is: the real address and the whole key.
  await expect(page.getByLabel("Example request")).toContainText(`/api/get-user-credits`);
  await expect(page.getByLabel("Example request")).toContainText(`X-API-Key: ${key}`);

  const row = page.locator("li[data-key-id]", { hasText: "e2e script" });
  await expect(row.locator('[data-field="status"]')).toHaveText("active");
  await expect(row).toContainText(key.slice(0, 10));

  // The key acts as its owner.
  const ok = await request.post("/api/get-user-info", { headers: { "X-API-Key": key } });
  expect(ok.status()).toBe(200);
  expect((await ok.json()).data.email).toBe(email);
  expect(ok.headers()["ratelimit-policy"]).toBe('"standard";q=100;w=60');

  // Reloading never shows the key again; last used is now set.
  await page.goto("/keys");
  await expect(page.getByLabel("New API key")).toHaveCount(0);
  expect(await page.content()).not.toContain(key);
  await expect(row.locator('[data-field="last-used"]')).not.toHaveText("never");

  // Revoke: a confirmation step first; cancelling keeps the key.
  await row.getByRole("link", { name: "Revoke e2e script" }).click();
  await expect(page.getByRole("alertdialog")).toContainText("cannot be undone");
  await page.getByRole("link", { name: "Cancel" }).click();
  await expect(row.locator('[data-field="status"]')).toHaveText("active");
  expect((await request.post("/api/get-user-info", { headers: { "X-API-Key": key } })).status()).toBe(200);

  await row.getByRole("link", { name: "Revoke e2e script" }).click();
  await page.getByRole("button", { name: "Yes, revoke key" }).click();
  await expect(page.getByText("was revoked")).toBeVisible();
  // It moves out of the active keys into the revoked ones (docs/decisions/088-revoked-keys-listed-30-days.md).
  await expect(page.getByRole("list", { name: "Your keys" })).toHaveCount(0);
  await expect(page.getByText("No active keys")).toBeVisible();
  const revoked = page.getByRole("list", { name: "Revoked keys" }).locator("li", { hasText: "e2e script" });
  await expect(revoked.locator('[data-field="status"]')).toHaveText("revoked");
  await expect(revoked.locator('[data-field="revoked-at"]')).toBeVisible();
  await expect(revoked.getByRole("link", { name: /Revoke/ })).toHaveCount(0);
  await auditAndShoot(page, "keys-revoked");
  // Later visits keep them folded away under a count.
  await page.goto("/keys");
  await expect(page.getByText("Revoked in the last 30 days (1)")).toBeVisible();
  await expect(revoked).toBeHidden();
  await page.getByText("Revoked in the last 30 days (1)").click();
  await expect(revoked).toBeVisible();

  const rejected = await request.post("/api/get-user-info", { headers: { "X-API-Key": key } });
  expect(rejected.status()).toBe(401);
  expect(await rejected.json()).toEqual({ code: 1, message: "API key revoked", data: null });
});

test("the keys page works without JavaScript: create, read the key, revoke with confirmation", async ({
  browser,
  playwright,
  baseURL,
}) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await signUp(page, unique("nojs-keys"));
  await page.goto("/keys");
  await page.getByLabel("Key name").fill("no-js key");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = await page.getByLabel("New API key").inputValue();
  expect(key).toMatch(/^atl_/);

  const api = await playwright.request.newContext({ baseURL });
  expect((await api.post("/api/get-user-info", { headers: { "X-API-Key": key } })).status()).toBe(200);

  await page.getByRole("link", { name: "Revoke no-js key" }).click();
  await page.getByRole("button", { name: "Yes, revoke key" }).click();
  await expect(
    page
      .getByRole("list", { name: "Revoked keys" })
      .locator("li", { hasText: "no-js key" })
      .locator('[data-field="status"]'),
  ).toHaveText("revoked");
  const r = await api.post("/api/get-user-info", { headers: { "X-API-Key": key } });
  expect(r.status()).toBe(401);
  expect((await r.json()).message).toBe("API key revoked");
  await api.dispose();
  await context.close();
});

test("webhooks beside the keys: add one (secret shown once), a metadata address refused, rotate, delete", async ({
  page,
}) => {
  await signUp(page, unique("hooks"));
  await page.goto("/keys");
  const section = page.locator("#webhooks");
  await expect(section.getByText("No webhooks yet")).toBeVisible();
  await section.getByLabel("Endpoint URL").fill("http://169.254.169.254/latest/meta-data");
  await section.getByRole("button", { name: "Add webhook" }).click();
  await expect(section.getByText(/This URL cannot receive webhooks: /)).toBeVisible();

  await section.getByLabel("Endpoint URL").fill("http://127.0.0.1:9/atelier-hook");
  await section.getByLabel("Description").fill("e2e receiver");
  await section.getByRole("button", { name: "Add webhook" }).click();
  const secret = await page.getByTestId("webhook-secret").inputValue();
  expect(secret).toMatch(/^whsec_/);
  const row = section.locator("li", { hasText: "http://127.0.0.1:9/atelier-hook" });
  await expect(row.locator("[data-field=status]")).toHaveText("active");
  await section.scrollIntoViewIfNeeded();
  await auditAndShoot(page, "keys-webhooks");

  await row.getByRole("button", { name: /Rotate secret/ }).click();
  await expect(page.getByText("The old secret keeps signing for 24 hours.")).toBeVisible();
  const rotated = await page.getByTestId("webhook-secret").inputValue();
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(secret);

  await section
    .locator("li", { hasText: "atelier-hook" })
    .getByRole("button", { name: /^Delete/ })
    .click();
  await expect(section.getByText("No webhooks yet")).toBeVisible();
});
