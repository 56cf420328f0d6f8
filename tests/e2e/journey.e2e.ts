/**
 * The product end to end: a person signs up, checks in, generates a video and an
 * image in the studio, finds them in the gallery and their detail pages, manages
 * an API key and sends feedback; an admin grants credits and records a
 * subscription. Every page is audited with axe-core and photographed at desktop
 * and phone widths (test-results/screenshots/).
 */
import { expect, test, type Page } from "@playwright/test";
import { auditAndShoot, PHONE, promote, signUp, unique } from "./support";

test.describe.configure({ mode: "serial" });

const ADMIN = "admin@e2e.test";

/**
 * Signs the admin in (creating the account the first time). An unverified
 * ADMIN_EMAILS sign-up is no admin: the operator promotes it from the CLI.
 */
async function adminSession(page: Page) {
  const origin = `http://localhost:${process.env.E2E_PORT}`;
  const created = await page.request.post("/api/auth/sign-up/email", {
    data: { name: "Ada Admin", email: ADMIN, password: "correct-horse-battery" },
    headers: { origin },
  });
  promote(ADMIN);
  if (!created.ok()) {
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(ADMIN);
    await page.getByLabel("Password").fill("correct-horse-battery");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/account$/);
  }
}

test("public pages: home, sign-in, sign-up, API docs", async ({ page }) => {
  test.setTimeout(150_000);
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await auditAndShoot(page, "home");

  // Keyboard: the first Tab shows a skip link to the content; focus is always visible.
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeVisible();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/#main$/);
  await expect(page.locator("main")).toBeFocused();
  await page.keyboard.press("Tab");
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  expect(outline).not.toBe("none");

  await page.goto("/sign-in");
  await auditAndShoot(page, "sign-in");

  await page.goto("/sign-up");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page.getByText("Enter your name")).toBeVisible();
  await auditAndShoot(page, "sign-up-errors");

  await page.goto("/docs");
  await expect(page.getByRole("heading", { name: "API reference", level: 1 })).toBeVisible();
  for (const path of ["/api/generator/generate", "/api/generator/query", "/api/keys/create", "/api/admin/grant-credits", "/api/demo/gen-stream-text"]) {
    await expect(page.getByRole("heading", { name: new RegExp(path.replace(/\//g, "\\/") + "$") })).toBeVisible();
  }
  await expect(page.getByRole("table", { name: "Error messages" })).toContainText("insufficient credits: need <needed>, have <available>");
  await expect(page.getByText("about every 3 seconds")).toBeVisible();
  await expect(page.getByLabel("curl example for /api/get-user-credits")).toContainText('X-API-Key: $ATELIER_API_KEY');
  await auditAndShoot(page, "docs");

  const doc = await (await page.request.get("/api/openapi.json")).json();
  expect(doc.openapi).toBe("3.1.0");
  expect(Object.keys(doc.paths)).toContain("/api/generator/history");
});

test("a person's journey, and an admin's", async ({ page, browser }) => {
  test.setTimeout(300_000);
  const email = unique("journey");
  await signUp(page, { name: "Journey June", email });

  // Check in: 10 → 11.
  await page.getByRole("button", { name: "Daily check-in" }).click();
  await expect(page.getByTestId("left-credits")).toHaveText("11");
  await expect(page.getByTestId("balance")).toHaveText("11 credits");
  await auditAndShoot(page, "account");

  // The studio is home: a video (10 credits) first.
  await page.goto("/");
  await expect(page).toHaveURL(/\/studio$/);
  await expect(page.getByText("Nothing yet")).toBeVisible();
  await auditAndShoot(page, "studio-empty");
  const picker = page.getByLabel("Type, provider and model");
  await picker.selectOption({ label: "Kling v1 video — kling / kling-v1 — 10 credits (simulated)" });
  await page.getByLabel("Prompt").fill("A paper boat drifting down a rainy street");
  await page.getByRole("button", { name: "Generate" }).click();
  const video = page.getByRole("listitem", { name: "Generation: A paper boat drifting down a rainy street" });
  await expect(video.getByTestId("status")).toHaveText(/pending|processing|completed/);
  await expect(video.getByTestId("status")).toHaveText("completed", { timeout: 30_000 });
  await expect(page.getByTestId("balance")).toHaveText("1 credit");

  // Not enough left for an image: the error is shown next to the form.
  await picker.selectOption({ label: "FLUX.1 [schnell] — replicate / black-forest-labs/flux-schnell — 3 credits (simulated)" });
  await page.getByLabel("Prompt").fill("A lighthouse at dusk");
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByRole("alert")).toHaveText("insufficient credits: need 3, have 1");

  // An admin grants 20 credits and records a subscription.
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await adminSession(admin);
  await admin.goto("/admin");
  await expect(admin.getByRole("heading", { name: "Admin", level: 1 })).toBeVisible();
  const userRow = admin.locator(`tr[data-user="${email}"]`);
  await expect(userRow.locator('[data-field="balance"]')).toHaveText("1");
  await expect(userRow.locator('[data-field="tier"]')).toHaveText("standard");
  await expect(admin.getByRole("list", { name: "Recent generations" })).toContainText("A paper boat drifting down a rainy street");
  // Field errors from the API's own schema.
  const grantForm = admin.getByRole("region", { name: "Grant credits" });
  await grantForm.getByLabel("User email").fill(email);
  await grantForm.getByLabel("Credits", { exact: true }).fill("0");
  await grantForm.getByRole("button", { name: "Grant credits" }).click();
  await expect(grantForm.getByText("credits must be an integer from 1 to 1000000")).toBeVisible();
  await grantForm.getByLabel("Credits", { exact: true }).fill("20");
  await grantForm.getByRole("button", { name: "Grant credits" }).click();
  await expect(admin.getByRole("status").filter({ hasText: `Granted 20 credits to ${email}. Their balance is now 21.` })).toBeVisible();
  await expect(userRow.locator('[data-field="balance"]')).toHaveText("21");

  const subForm = admin.getByRole("region", { name: "Record a subscription" });
  await subForm.getByLabel("User email").fill(email);
  await subForm.getByLabel("Product id").fill("pro-monthly");
  await subForm.getByLabel("Product name").fill("Pro");
  await subForm.getByLabel("Interval").selectOption("month");
  await subForm.getByLabel("Amount (cents)").fill("1900");
  await subForm.getByRole("button", { name: "Record subscription" }).click();
  await expect(subForm.getByRole("status")).toContainText(`Recorded “Pro” (month) for ${email}`);
  await expect(userRow.locator('[data-field="tier"]')).toHaveText("premium");
  await auditAndShoot(admin, "admin");
  await adminContext.close();

  // Back to the studio: the image now fits.
  await page.goto("/studio");
  await expect(page.getByTestId("balance")).toHaveText("21 credits");
  await page.getByLabel("Type, provider and model").selectOption({ label: "FLUX.1 [schnell] — replicate / black-forest-labs/flux-schnell — 3 credits (simulated)" });
  await page.getByLabel("Prompt").fill("A lighthouse at dusk");
  await page.getByRole("button", { name: "Generate" }).click();
  const image = page.getByRole("listitem", { name: "Generation: A lighthouse at dusk" });
  await expect(image.getByTestId("status")).toHaveText("completed", { timeout: 30_000 });
  await expect(image.getByRole("img", { name: "Image: A lighthouse at dusk" })).toBeVisible();
  await expect(page.getByRole("heading", { name: /History/ })).toContainText("(2)");
  await auditAndShoot(page, "studio-gallery");

  // Filters (query parameters): videos only, then completed images.
  await page.getByLabel("Type", { exact: true }).selectOption("video");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/\/studio\?type=video/);
  await expect(page.getByRole("listitem", { name: /^Generation:/ })).toHaveCount(1);
  await expect(page.getByRole("listitem", { name: "Generation: A paper boat drifting down a rainy street" })).toBeVisible();
  await page.goto("/studio?type=image&status=failed");
  await expect(page.getByText("No generations match these filters.")).toBeVisible();
  await page.getByRole("link", { name: "Clear filters" }).click();
  await expect(page.getByRole("listitem", { name: /^Generation:/ })).toHaveCount(2);

  // Detail pages: prompt, model, provider, cost, timings, download.
  await page.getByRole("link", { name: "Details: A lighthouse at dusk" }).click();
  await expect(page).toHaveURL(/\/studio\/[0-9a-f-]{36}$/);
  await expect(page.locator('[data-field="Prompt"]')).toHaveText("A lighthouse at dusk");
  await expect(page.locator('[data-field="Model"]')).toContainText("black-forest-labs/flux-schnell");
  await expect(page.locator('[data-field="Provider"]')).toHaveText("replicate (simulated)");
  await expect(page.locator('[data-field="Cost"]')).toHaveText("3 credits");
  await expect(page.locator('[data-field="Created"]')).toContainText("UTC");
  await expect(page.locator('[data-field="Completed"]')).toContainText("UTC");
  await expect(page.locator('[data-field="Duration"]')).toHaveText(/\d+(\.\d)? (ms|s)/);
  const download = page.getByRole("link", { name: /^Download/ });
  const href = await download.getAttribute("href");
  expect((await page.request.get(href!)).headers()["content-type"]).toContain("image/png");
  await auditAndShoot(page, "studio-detail-image");
  await page.getByRole("link", { name: "← Back to the studio" }).click();
  await page.getByRole("link", { name: "Details: A paper boat drifting down a rainy street" }).click();
  await expect(page.locator('[data-field="Cost"]')).toHaveText("10 credits");
  await expect(page.locator('video[aria-label="Video: A paper boat drifting down a rainy street"]')).toBeVisible();
  await auditAndShoot(page, "studio-detail-video");

  // Someone else's generation id is a 404 page.
  const otherId = page.url().split("/").pop()!;
  const stranger = await browser.newContext();
  const sp = await stranger.newPage();
  await signUp(sp, { name: "Stranger" });
  const res = await sp.goto(`/studio/${otherId}`);
  expect(res?.status()).toBe(404);
  await expect(sp.getByRole("heading", { name: "Page not found" })).toBeVisible();
  // …and /admin is a 404 for a non-admin.
  expect((await sp.goto("/admin"))?.status()).toBe(404);
  await auditAndShoot(sp, "not-found");
  await stranger.close();

  // API keys: create, see once, revoke.
  await page.goto("/keys");
  await page.getByLabel("Key name").fill("journey script");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = await page.getByLabel("New API key").inputValue();
  expect(key).toMatch(/^atl_/);
  const credits = await page.request.post("/api/get-user-credits", { headers: { "X-API-Key": key } });
  expect((await credits.json()).data.left_credits).toBe(18);
  await auditAndShoot(page, "keys-created");
  await page.goto("/keys");
  await page.getByRole("link", { name: "Revoke journey script" }).click();
  await page.getByRole("button", { name: "Yes, revoke key" }).click();
  await expect(page.getByText("was revoked")).toBeVisible();
  expect((await page.request.post("/api/get-user-credits", { headers: { "X-API-Key": key } })).status()).toBe(401);

  // Feedback.
  await page.goto("/feedback");
  await auditAndShoot(page, "feedback");
  await page.getByLabel("Your feedback").fill("The gallery is lovely.");
  await page.getByLabel("5 stars").check();
  await page.getByRole("button", { name: "Send feedback" }).click();
  await expect(page.getByText("Thank you! Your feedback was received.")).toBeVisible();

  // The account now shows the subscription.
  await page.goto("/account");
  await expect(page.getByTestId("subscription")).toContainText("Pro (month)");
});

test("without JavaScript: menu, filters, admin and feedback forms with field errors", async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: PHONE });
  const page = await context.newPage();
  await signUp(page, { name: "No Script" });

  // The phone menu opens without scripts and navigates.
  await page.getByText("Menu").click();
  await page.getByRole("navigation", { name: "Main menu" }).getByRole("link", { name: "Studio" }).click();
  await expect(page).toHaveURL(/\/studio$/);

  // Filters are a GET form.
  await page.getByLabel("Status").selectOption("completed");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/status=completed/);
  await expect(page.getByText("No generations match these filters.")).toBeVisible();

  // Feedback field errors from the shared schema.
  await page.goto("/feedback");
  await page.getByRole("button", { name: "Send feedback" }).click();
  await expect(page.getByText("content is required")).toBeVisible();
  await expect(page.getByText("rating must be an integer from 1 to 5")).toBeVisible();
  await context.close();

  // Admin forms without JavaScript.
  const adminContext = await browser.newContext({ javaScriptEnabled: false });
  const admin = await adminContext.newPage();
  await adminSession(admin);
  await admin.goto("/admin");
  const grant = admin.getByRole("region", { name: "Grant credits" });
  await grant.getByLabel("User email").fill("nobody@nowhere.test");
  await grant.getByLabel("Credits", { exact: true }).fill("5");
  await grant.getByRole("button", { name: "Grant credits" }).click();
  await expect(admin.getByText("No user with this email")).toBeVisible();
  const sub = admin.getByRole("region", { name: "Record a subscription" });
  await sub.getByRole("button", { name: "Record subscription" }).click();
  await expect(admin.getByText("product_id is required")).toBeVisible();
  await expect(admin.getByText("amount must be a non-negative integer")).toBeVisible();
  await adminContext.close();
});
