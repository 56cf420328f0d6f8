/**
 * The product end to end: a person signs up, checks in, generates a video and an
 * image in the studio, finds them in the gallery and their detail pages, manages
 * an API key and sends feedback; an admin grants credits and records a
 * subscription. Every page is audited with axe-core and photographed at desktop
 * and phone widths, light and dark (docs/screens/).
 */
import { expect, type Page, test } from "@playwright/test";
import { auditAndShoot, PHONE, promote, signUp, unique } from "./support";

test.describe.configure({ mode: "serial" });

const ADMIN = "admin@e2e.test";

/**
 * Signs the admin in (creating the account the first time). Without mail an
 * ADMIN_EMAILS sign-up gets no session and no rights until the operator
 * promotes it from the CLI (which asks for its password); then it signs in.
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
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page).toHaveURL(/\/studio$/);
  }
}

test("public pages: landing, sign-in, sign-up, API docs", async ({ page }) => {
  test.setTimeout(400_000);
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  // An image product shows images: the sample gallery has loaded.
  const sample = page.getByRole("img", { name: /Violet mountains at dusk/ });
  await expect(sample).toBeVisible();
  expect(await sample.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
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

  // An unknown address: a 404 page that keeps the header and navigation.
  const missing = await page.goto("/no-such-page");
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Atelier home" })).toBeVisible();
  await auditAndShoot(page, "not-found");

  // Docs: an overview with every endpoint, then one page per endpoint with examples to copy.
  await page.goto("/docs");
  await expect(page.getByRole("heading", { name: "API reference", level: 1 })).toBeVisible();
  const errorsTable = page.getByRole("table", { name: "Error messages" });
  await expect(errorsTable).toContainText("insufficient credits: need <needed>, have <available>");
  await expect(errorsTable).not.toContainText("INSUFFICIENT_CREDITS");
  await auditAndShoot(page, "docs", { full: false });
  await page
    .getByRole("main")
    .getByRole("link", { name: /\/api\/generator\/generate/ })
    .click();
  await expect(page).toHaveURL(/\/docs\/generator-generate$/);
  await expect(page.getByRole("heading", { name: /\/api\/generator\/generate$/, level: 1 })).toBeVisible();
  const body = await page.locator("main").innerText();
  expect(body).not.toMatch(/∞|\(spec \d|DESIGN\s§|docs\/(?:design|api)\.md/);
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.getByRole("button", { name: "Copy" }).first().click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain("/api/generator/generate");
  await auditAndShoot(page, "docs-endpoint");

  const doc = await (await page.request.get("/api/openapi.json")).json();
  expect(doc.openapi).toBe("3.1.0");
  expect(Object.keys(doc.paths)).toContain("/api/generator/history");
});

test("landing → first result → the same prompt on another model → download; then credits, admin, keys, feedback", async ({
  page,
  browser,
}) => {
  test.setTimeout(600_000);
  const email = unique("journey");
  const PROMPT = "A lighthouse at dusk, warm light on the waves";

  // From the landing page to the studio, no docs needed.
  await page.goto("/");
  await page.getByRole("link", { name: "Start creating — it’s free" }).click();
  await expect(page).toHaveURL(/\/sign-up$/);
  await page.getByLabel("Name").fill("Journey June");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/studio$/);
  await expect(page.getByText("Nothing yet")).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("10 credits");
  await auditAndShoot(page, "studio-empty");

  // First result: FLUX (3 credits). It arrives by itself, with a toast.
  await page.getByRole("textbox", { name: "Prompt" }).fill(PROMPT);
  await page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ }).check();
  await page.getByRole("button", { name: "Generate" }).click();
  const results = page.getByRole("listitem", { name: `Generation: ${PROMPT}` });
  await expect(results.first()).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  // It arrived on screen: no toast about it.
  await expect(page.getByText("Your image is ready", { exact: true })).toHaveCount(0);
  await expect(page.getByTestId("balance")).toHaveText("7 credits");

  // Second result: reuse the prompt with another model (Kling v1 image, 4 credits).
  await results.first().hover();
  await results.first().locator("summary").click();
  await results
    .first()
    .getByRole("link", { name: `Reuse: ${PROMPT}` })
    .click();
  await expect(page.getByRole("textbox", { name: "Prompt" })).toHaveValue(PROMPT);
  await expect(page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ })).toBeChecked();
  await page.getByRole("radio", { name: /Kling v1 image/ }).check();
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(results).toHaveCount(2);
  await expect(results.first()).toContainText("Kling v1 image");
  await expect(results.first()).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(page.getByTestId("balance")).toHaveText("3 credits");
  await auditAndShoot(page, "studio-gallery");

  // The lightbox: open from the gallery, arrow keys move, Escape closes.
  await results
    .first()
    .getByRole("link", { name: `View larger: ${PROMPT}` })
    .click();
  const lightbox = page.locator(".yarl__root");
  await expect(lightbox).toBeVisible();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Escape");
  await expect(lightbox).toBeHidden();

  // The detail page of the second result: download it.
  await results.first().hover();
  await results.first().locator("summary").click();
  await results
    .first()
    .getByRole("link", { name: `Open: ${PROMPT}` })
    .click();
  await expect(page).toHaveURL(/\/studio\/[0-9a-f-]{36}$/);
  await expect(page.locator('[data-field="Model"]')).toContainText("Kling v1 image");
  await expect(page.locator('[data-field="Provider"]')).toHaveText("Kling (simulated)");
  await expect(page.locator('[data-field="Cost"]')).toHaveText("4 credits");
  await expect(page.locator('[data-field="Time taken"]')).toHaveText(/\d+(\.\d)? (ms|s)/);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: /^Download/ }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/\.(png|jpe?g|webp)$/);
  await auditAndShoot(page, "studio-detail-image");
  // Older: the first result.
  await page.getByRole("link", { name: "Older" }).click();
  await expect(page.locator('[data-field="Model"]')).toContainText("FLUX.1 [schnell]");

  // A video costs 10, 3 are left: the model is marked, and the way out is offered.
  await page.goto("/studio");
  await page.getByRole("radio", { name: "Video", exact: true }).check();
  await page.getByRole("radio", { name: /Kling v1 video/ }).check();
  await expect(page.locator('[data-offering="video|kling|kling-v1"]')).toContainText(/not enough credits/i);
  await page.getByRole("textbox", { name: "Prompt" }).fill("A paper boat drifting down a rainy street");
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByTestId("out-of-credits")).toContainText("It costs 10 credits and you have 3 available");
  await auditAndShoot(page, "studio-out-of-credits");
  await page.getByRole("button", { name: "Check in for 1 free credit" }).click();
  await expect(page.getByText("Checked in: 1 credit added")).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("4 credits");

  // An admin grants 20 credits and records a subscription.
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await adminSession(admin);
  await admin.goto("/admin");
  await expect(admin.getByRole("heading", { name: "Admin", level: 1 })).toBeVisible();
  const userRow = admin.locator(`li[data-user="${email}"]`);
  await expect(userRow.locator('[data-field="balance"]')).toHaveText("4");
  await expect(userRow.locator('[data-field="tier"]')).toHaveText("standard");
  await expect(admin.getByRole("list", { name: "Recent generations" })).toContainText(PROMPT);
  const grantForm = admin.getByRole("region", { name: "Grant credits" });
  await grantForm.getByLabel("User email").fill(email);
  await grantForm.getByLabel("Credits", { exact: true }).fill("0");
  await grantForm.getByRole("button", { name: "Grant credits" }).click();
  await expect(grantForm.getByText("credits must be an integer from 1 to 1000000")).toBeVisible();
  await grantForm.getByLabel("Credits", { exact: true }).fill("20");
  await grantForm.getByRole("button", { name: "Grant credits" }).click();
  await expect(
    admin.getByRole("status").filter({ hasText: `Granted 20 credits to ${email}. Their balance is now 24.` }),
  ).toBeVisible();
  await expect(userRow.locator('[data-field="balance"]')).toHaveText("24");
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

  // Now the video fits: it plays in the gallery once done, and can be removed from it.
  await page.goto("/studio");
  await expect(page.getByTestId("balance")).toHaveText("24 credits");
  await page.getByRole("radio", { name: "Video", exact: true }).check();
  await page.getByRole("radio", { name: /Kling v1 video/ }).check();
  await page.getByRole("textbox", { name: "Prompt" }).fill("A paper boat drifting down a rainy street");
  await page.getByRole("button", { name: "Generate" }).click();
  const video = page.getByRole("listitem", { name: "Generation: A paper boat drifting down a rainy street" });
  await expect(video).toHaveAttribute("data-status", /pending|processing|completed/);
  await expect(page.getByTestId("balance")).toHaveText(/14 credits|24 credits/);
  await expect(video).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(page.getByTestId("balance")).toHaveText("14 credits");
  // It finished on screen: no toast; its page is one of its actions.
  await expect(page.getByRole("region", { name: /^Notifications/ }).getByText("Your video is ready")).toHaveCount(0);
  await video.hover();
  await video.locator("summary").click();
  await video.getByRole("link", { name: /^Open:/ }).click();
  await expect(page).toHaveURL(/\/studio\/[0-9a-f-]{36}$/);
  await expect(page.locator('[data-field="Cost"]')).toHaveText("10 credits");
  // Options under the catalog's labels, with their units.
  await expect(page.locator('[data-field="Aspect ratio"]')).toHaveText("16:9");
  await expect(page.locator('[data-field="Duration"]')).toHaveText("5 s");
  await expect(page.locator('video[aria-label="Video: A paper boat drifting down a rainy street"]')).toBeVisible();
  await auditAndShoot(page, "studio-detail-video");
  await page.goto("/studio");
  await video.hover();
  await video.locator("summary").click();
  await video.getByRole("button", { name: /^Delete:/ }).click();
  await expect(page.getByText("Deleted from your gallery", { exact: true })).toBeVisible();
  await expect(page.getByRole("listitem", { name: /^Generation:/ })).toHaveCount(2);
  // The ledger did not move.
  await expect(page.getByTestId("balance")).toHaveText("14 credits");

  // Someone else's generation id is a 404 page; so is /admin for a non-admin.
  const otherId = (await results.first().getAttribute("data-gen-id"))!;
  const stranger = await browser.newContext();
  const sp = await stranger.newPage();
  await signUp(sp, { name: "Stranger" });
  const res = await sp.goto(`/studio/${otherId}`);
  expect(res?.status()).toBe(404);
  await expect(sp.getByRole("heading", { name: "Page not found" })).toBeVisible();
  expect((await sp.goto("/admin"))?.status()).toBe(404);
  await stranger.close();

  // API keys: create, see once, revoke.
  await page.goto("/keys");
  await page.getByLabel("Key name").fill("journey script");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = await page.getByLabel("New API key").inputValue();
  expect(key).toMatch(/^atl_/);
  const credits = await page.request.post("/api/get-user-credits", { headers: { "X-API-Key": key } });
  expect((await credits.json()).data.left_credits).toBe(14);
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

  // The account shows the subscription.
  await page.goto("/account");
  await expect(page.getByTestId("subscription")).toContainText("Pro (month)");
  await auditAndShoot(page, "account");
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

  // Filters are links.
  await page.getByRole("navigation", { name: "Filter by status" }).getByRole("link", { name: "Completed" }).click();
  await expect(page).toHaveURL(/status=completed/);
  await expect(page.getByText("No generations match these filters")).toBeVisible();

  // Feedback field errors from the shared schema.
  await page.goto("/feedback");
  await page.getByRole("button", { name: "Send feedback" }).click();
  await expect(page.getByText("Tell us what you think — a sentence is enough.")).toBeVisible();
  await expect(page.getByText("Choose a rating from 1 to 5 stars.")).toBeVisible();
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
