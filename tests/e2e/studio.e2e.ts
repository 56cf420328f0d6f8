import { expect, type Locator, type Page, test } from "@playwright/test";
import { auditAndShoot, PHONE, signUp } from "./support";

const DESKTOP_WIDE = { width: 1440, height: 900 };
const PHONE_TALL = { width: 390, height: 844 };

/** The result's actions (one button on its tile). */
async function actions(item: Locator) {
  await item.hover();
  await item.locator("summary").click();
  return item.locator("details[data-menu] > div");
}

async function generate(page: Page, prompt: string, model = /FLUX\.1 \[schnell\]/) {
  await page.getByRole("radio", { name: model }).check();
  await page.getByRole("textbox", { name: "Prompt" }).fill(prompt);
  await page.getByRole("button", { name: /^Generate/ }).click();
  return page.getByRole("listitem", { name: `Generation: ${prompt}` });
}

/** Fully inside the viewport, not just touching it. */
async function fullyVisible(page: Page, locator: Locator) {
  const box = await locator.boundingBox();
  const size = page.viewportSize()!;
  expect(box, "no box").not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(size.height);
  expect(box!.x + box!.width).toBeLessThanOrEqual(size.width);
}

test("first load: Generate fully visible on a desktop and a phone; a new result appears without scrolling, in place", async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP_WIDE);
  await signUp(page, { name: "Studio User" });
  await expect(page.getByRole("heading", { name: "Studio", level: 1 })).toBeAttached();
  await expect(page.getByTestId("available")).toContainText("10");
  await fullyVisible(page, page.getByRole("button", { name: /^Generate/ }));
  await page.setViewportSize(PHONE_TALL);
  await page.reload();
  await fullyVisible(page, page.getByRole("button", { name: /^Generate/ }));
  await page.setViewportSize(DESKTOP_WIDE);
  await page.reload();

  // Chips carry name, price, speed and mode in one row.
  const flux = page.locator('[data-offering="image|replicate|black-forest-labs/flux-schnell"]');
  await expect(flux).toContainText("FLUX.1 [schnell]");
  await expect(flux).toContainText("3 credits");
  await expect(flux).toContainText("Simulated");
  const chips = page.locator('[data-type="image"] [data-offering]');
  const ys = await chips.evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().top)));
  expect(new Set(ys).size).toBe(1);

  const historyBefore = await page.evaluate(() => history.length);
  const image = await generate(page, "A red fox in fresh snow");
  // It completes without a reload or a navigation, and with no history entry.
  await expect(image).toHaveAttribute("data-status", "completed");
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/studio");
  expect(await page.evaluate(() => history.length)).toBe(historyBefore);
  const img = image.getByRole("img", { name: "Image: A red fox in fresh snow" });
  await expect(img).toBeInViewport({ ratio: 1 });
  expect(await img.getAttribute("src")).toMatch(/\/media\//);
  const ratio = await img.evaluate((el: HTMLImageElement) =>
    Math.abs(el.naturalWidth / el.naturalHeight - el.clientWidth / el.clientHeight),
  );
  expect(ratio).toBeLessThan(0.02);
  // No status badge on a finished result, no toast for a result on screen.
  await expect(image.getByTestId("status")).toHaveCount(0);
  await expect(page.getByRole("region", { name: /^Notifications/ }).locator("li")).toHaveCount(0);
  await expect(page.getByRole("heading", { name: /Your gallery/ })).toContainText("(1)");
  await expect(page.getByTestId("available")).toContainText("7");
  const menu = await actions(image);
  await expect(menu.getByRole("link", { name: "Download: A red fox in fresh snow" })).toHaveAttribute("download", "");
  // Every result image has its size before it loads.
  for (const el of await page.locator("ul[aria-label=Gallery] img").all()) {
    expect(await el.getAttribute("width")).toMatch(/^\d+$/);
    expect(await el.getAttribute("height")).toMatch(/^\d+$/);
  }
  await auditAndShoot(page, "studio-gallery");
});

test("a video: progress in place while it runs, then the result, with its price", async ({ page }) => {
  await signUp(page, { name: "Video User" });
  await page.getByRole("radio", { name: "Video", exact: true }).check();
  // The toggle selects a video model at once; pick Kling v1.
  await expect(page.getByRole("radio", { name: /Runway Gen-4\.5/ })).toBeChecked();
  await page.getByRole("radio", { name: /Kling v1 video/ }).check();
  await page.getByRole("textbox", { name: "Prompt" }).fill("A drone shot over snowy mountains [simulate:slow]");
  await page.getByRole("button", { name: /^Generate/ }).click();
  const video = page.getByRole("listitem", { name: "Generation: A drone shot over snowy mountains [simulate:slow]" });
  await expect(video.getByRole("progressbar")).toBeVisible();
  await expect(video.getByTestId("status")).toHaveText(/pending|processing/);
  // While it runs, the header shows what it holds beside the balance.
  await expect(page.getByTestId("held")).toContainText("10 held");
  await expect(video).toHaveAttribute("data-status", "completed");
  await expect(video.getByLabel("Video: A drone shot over snowy mountains [simulate:slow]")).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("0 credits");
  await expect(video).toContainText("Kling v1 video · 10 credits");
  await expect(video).toContainText("Simulated");
});

test("keyboard only: Ctrl+Enter generates, the new result gets the keyboard, Cancel stays on the page", async ({
  page,
}) => {
  await signUp(page, { name: "Keyboard User" });
  await page.setViewportSize(PHONE);
  await page.goto("/studio?type=image&page=1");
  const prompt = "A paper boat on a puddle after rain [simulate:slow]";
  const box = page.getByRole("textbox", { name: "Prompt" });
  await box.fill(prompt);
  const before = page.url();
  // Ctrl+Enter in the prompt generates (rather than adding a line).
  await box.press("Control+Enter");
  const item = page.getByRole("listitem", { name: `Generation: ${prompt}` });
  await expect(item).toBeFocused();
  await expect(item).toBeInViewport();
  await page.keyboard.press("Tab");
  const cancel = item.getByRole("button", { name: `Cancel: ${prompt}` });
  await expect(cancel).toBeFocused();
  await page.keyboard.press("Enter");
  // In place: no reload back to the top of an unfiltered studio, the keyboard stays on the result.
  await expect(item).toHaveAttribute("data-status", "canceled");
  await expect(item.getByTestId("status")).toHaveText("canceled");
  await expect(item).toContainText("Canceled");
  await expect(item).not.toContainText("Could not be made");
  expect(page.url()).toBe(before);
  await expect(item).toBeFocused();
  // The tile says so: no toast about it.
  await expect(page.getByRole("region", { name: /^Notifications/ }).locator("li")).toHaveCount(0);
  await auditAndShoot(page, "studio-canceled");
  // A canceled result can be removed.
  const menu = await actions(item);
  await menu.getByRole("button", { name: `Delete: ${prompt}` }).click();
  await expect(item).toBeHidden();
});

test("a result that finishes while the keyboard is on its Cancel button keeps the keyboard on the result", async ({
  page,
}) => {
  await signUp(page, { name: "Waiting User" });
  const prompt = "A kettle about to boil [simulate:slow]";
  await page.getByRole("textbox", { name: "Prompt" }).fill(prompt);
  await page.getByRole("textbox", { name: "Prompt" }).press("Control+Enter");
  const item = page.getByRole("listitem", { name: `Generation: ${prompt}` });
  await expect(item).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(item.getByRole("button", { name: `Cancel: ${prompt}` })).toBeFocused();
  await expect(item).toHaveAttribute("data-status", "completed");
  // The button goes with the running state; the focus must not fall to the page (Tab would start over at the top).
  await expect(item).toBeFocused();
});

test("Reuse brings back the prompt, model and every option; Run again and Variation make new results with them", async ({
  page,
}) => {
  await signUp(page, { name: "Reuse User" });
  await page.getByRole("radio", { name: /DALL·E 3/ }).check();
  await page.getByRole("textbox", { name: "Prompt" }).fill("A wide harbour at noon");
  await page.getByTestId("options-toggle").click();
  await page.getByLabel("Size").selectOption("1792x1024");
  await page.getByText(/^More options/).click();
  await page.getByLabel("Quality").selectOption("hd");
  await page.getByTestId("options-toggle").click();
  await page.getByRole("button", { name: /^Generate/ }).click();
  const items = page.getByRole("listitem", { name: "Generation: A wide harbour at noon" });
  await expect(items.first()).toHaveAttribute("data-status", "completed");
  const img = items.first().getByRole("img");
  await expect(img).toHaveAttribute("width", "1792");
  await expect(img).toHaveAttribute("height", "1024");

  // Another draft in the composer, then Reuse from the tile.
  await page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ }).check();
  await page.getByRole("textbox", { name: "Prompt" }).fill("Something else");
  await (await actions(items.first())).getByRole("link", { name: "Reuse: A wide harbour at noon" }).click();
  await expect(page.getByRole("textbox", { name: "Prompt" })).toHaveValue("A wide harbour at noon");
  await expect(page.getByRole("radio", { name: /DALL·E 3/ })).toBeChecked();
  await page.getByTestId("options-toggle").click();
  await expect(page.getByLabel("Size")).toHaveValue("1792x1024");
  await expect(page.getByLabel("Quality")).toHaveValue("hd");
  await page.getByTestId("options-toggle").click();

  await (await actions(items.first())).getByRole("button", { name: "Run again: A wide harbour at noon" }).click();
  await expect(items).toHaveCount(2);
  await expect(items.first()).toHaveAttribute("data-status", "completed");
  await expect(items.first().getByRole("img")).toHaveAttribute("width", "1792");
  // Its page lists the same options.
  await (await actions(items.first())).getByRole("link", { name: "Open: A wide harbour at noon" }).click();
  await expect(page.locator('dd[data-field="Size"]')).toHaveText("1792x1024");
  await expect(page.locator('dd[data-field="Quality"]')).toHaveText("hd");
  await page.goBack();
  await auditAndShoot(page, "studio-reuse");
});

test("reload keeps the draft; Back leaves the studio instead of stepping through generations", async ({ page }) => {
  await signUp(page, { name: "Draft User" });
  await page.goto("/account");
  await page.goto("/studio");
  await page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ }).check();
  await page.getByTestId("options-toggle").click();
  await page.getByLabel("Aspect ratio").selectOption("16:9");
  await page.getByRole("textbox", { name: "Prompt" }).fill("A draft worth keeping");
  await page.reload();
  await expect(page.getByRole("textbox", { name: "Prompt" })).toHaveValue("A draft worth keeping");
  await expect(page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ })).toBeChecked();
  await page.getByTestId("options-toggle").click();
  await expect(page.getByLabel("Aspect ratio")).toHaveValue("16:9");
  await page.getByTestId("options-toggle").click();
  for (const n of [1, 2]) {
    await page.getByRole("textbox", { name: "Prompt" }).fill(`Take ${n}`);
    await page.getByRole("button", { name: /^Generate/ }).click();
    await expect(page.getByRole("listitem", { name: `Generation: Take ${n}` })).toHaveAttribute(
      "data-status",
      "completed",
    );
  }
  await page.goBack();
  await expect(page).toHaveURL(/\/account$/);
});

test("toasts: none for results on screen, one at a time for results finishing elsewhere", async ({ page }) => {
  await signUp(page, { name: "Toast User" });
  const toasts = page.getByRole("region", { name: /^Notifications/ }).locator("li");
  // [simulate:long] (30 s): still running when the page leaves the studio on a loaded machine (with [simulate:slow]'s
  // 3 s both could finish on screen first, which rightly makes no toast, and the test failed).
  for (const prompt of ["A heron at dawn [simulate:long]", "A crane at dusk [simulate:long]"]) {
    await page.getByRole("textbox", { name: "Prompt" }).fill(prompt);
    await page.getByRole("button", { name: /^Generate/ }).click();
    await expect(page.getByRole("listitem", { name: `Generation: ${prompt}` })).toBeVisible();
  }
  // Elsewhere in the app (a link, so the page keeps watching): what finishes there is told, never two toasts stacked.
  await page.locator('header a[href="/keys"]').first().click();
  await expect(page).toHaveURL(/\/keys$/);
  await expect(toasts.filter({ hasText: /ready/ })).toHaveCount(1, { timeout: 90_000 });
  for (let i = 0; i < 10; i++) {
    expect(await toasts.count()).toBeLessThanOrEqual(1);
    await page.waitForTimeout(200);
  }
});

test("Enhance prompt: the simulated text model rewrites a short prompt in the box, to edit before Generate", async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP_WIDE);
  await signUp(page, { name: "Enhancer" });
  const box = page.getByRole("textbox", { name: "Prompt" });
  await box.fill("a red fox in fresh snow");
  await page.getByRole("button", { name: "Enhance prompt" }).click();
  await expect(box).toHaveValue(/^a red fox in fresh snow, .{40,}/);
  // Free while simulated: the balance is as it was; the rewrite is a draft like any other (kept over a reload).
  await expect(page.getByTestId("available")).toContainText("10");
  const enhanced = await box.inputValue();
  await page.reload();
  await expect(box).toHaveValue(enhanced);
  await fullyVisible(page, page.getByRole("button", { name: /^Generate/ }));
  for (const [size, label] of [
    [DESKTOP_WIDE, "desktop"],
    [PHONE_TALL, "phone"],
  ] as const) {
    await page.setViewportSize(size);
    await fullyVisible(page, page.getByRole("button", { name: /^Generate/ }));
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: `test-results/e2e/screens/studio-enhance-${label}-${scheme}.png` });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  // Nothing to enhance: the reason, beside the button.
  await box.fill("");
  await page.getByRole("button", { name: "Enhance prompt" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "write a few words to enhance first" })).toBeVisible();
});

test("toasts on a phone: results finishing together make one toast ('3 results ready'), one line over the header", async ({
  page,
}) => {
  await page.setViewportSize(PHONE_TALL);
  await signUp(page, { name: "Phone Toasts" });
  // Started together (the API, with this session), so they finish together while the person is on another page.
  const origin = new URL(page.url()).origin;
  for (const p of ["A kite over dunes", "A lighthouse in fog", "A tram in the rain"]) {
    const res = await page.request.post("/api/generator/generate", {
      headers: { origin },
      data: {
        ai_type: "image",
        provider: "replicate",
        model: "black-forest-labs/flux-schnell",
        prompt: `${p} [simulate:slow]`,
      },
    });
    expect(res.status()).toBe(200);
  }
  await page.goto("/keys");
  const toasts = page.getByRole("region", { name: /^Notifications/ }).locator("li");
  await expect(toasts.filter({ hasText: "3 results ready" })).toHaveCount(1, { timeout: 30_000 });
  expect(await toasts.count()).toBe(1);
  const toast = (await toasts.first().boundingBox())!;
  const header = (await page.locator("body > header, header").first().boundingBox())!;
  // Over the header only: the page below it (a composer, the newest results) stays uncovered.
  expect(toast.y).toBeGreaterThanOrEqual(0);
  expect(toast.y + toast.height).toBeLessThanOrEqual(header.y + header.height);
  await page.screenshot({ path: "test-results/e2e/toast-phone.png" });
});

test("the Running filter lists queued tasks too; a running task can be canceled from its own page", async ({
  page,
}) => {
  await signUp(page, { name: "Filter User" });
  const running = page.getByRole("navigation", { name: "Filter by status" }).getByRole("link", { name: "Running" });
  await expect(running).toHaveAttribute("href", "/studio?status=running#gallery");
  // [simulate:long]: 100× SIMULATOR_DELAY_MS (30 s), so the task still runs when its page can be used on a busy machine.
  const prompt = "A lantern festival over a river [simulate:long]";
  await page.getByRole("textbox", { name: "Prompt" }).fill(prompt);
  await page.getByRole("button", { name: /^Generate/ }).click();
  const item = page.getByRole("listitem", { name: `Generation: ${prompt}` });
  // Straight to its page while it runs.
  await page.goto(`/studio/${await item.getAttribute("data-gen-id")}`);
  // Once hydrated the cancel form answers in place (via=fetch); a click before that is the no-JavaScript post.
  await page.locator('form input[name="via"][value="fetch"]').first().waitFor({ state: "attached" });
  await page.getByRole("button", { name: `Cancel: ${prompt}` }).click();
  await expect(page.getByTestId("status")).toHaveText("canceled");
  await expect(page).toHaveURL(/\/studio\/[0-9a-f-]{36}$/);
  await expect(page.getByText("Canceled. No credits were charged.")).toBeVisible();
  await expect(page.getByText("0 credits (canceled tasks are free)")).toBeVisible();
});

test("the gallery: newest first in reading order, filters land on the results, Delete takes it away at once with Undo", async ({
  page,
}) => {
  await signUp(page, { name: "Gallery User" });
  for (const prompt of ["A first lantern", "A second lantern"]) {
    await expect(await generate(page, prompt)).toHaveAttribute("data-status", "completed");
  }
  await page.goto("/studio");
  // Newest first, in reading order: the newest on the left of the first row.
  const items = page.getByRole("listitem", { name: /^Generation:/ });
  const [a, b] = [await items.nth(0).boundingBox(), await items.nth(1).boundingBox()];
  expect(b!.x).toBeGreaterThan(a!.x);
  expect(Math.abs(b!.y - a!.y)).toBeLessThan(2);

  await page.getByRole("navigation", { name: "Filter by type" }).getByRole("link", { name: "Images" }).click();
  await expect(page).toHaveURL(/\/studio\?type=image#gallery$/);
  await expect(page.getByRole("heading", { name: /Your gallery/ })).toBeInViewport();

  const second = page.getByRole("listitem", { name: "Generation: A second lantern" });
  const menu = await actions(second);
  await menu.getByRole("button", { name: "Delete: A second lantern" }).focus();
  await page.keyboard.press("Enter");
  await expect(second).toBeHidden();
  await expect(page.getByRole("listitem", { name: "Generation: A first lantern" })).toBeFocused();
  await expect(page.getByRole("heading", { name: /Your gallery/ })).toContainText("(1)");
  await page
    .getByRole("region", { name: /^Notifications/ })
    .getByRole("button", { name: "Undo" })
    .click();
  await expect(second).toBeVisible();
  await expect(page.getByRole("heading", { name: /Your gallery/ })).toContainText("(2)");
});

test("a failed result is a compact note beside the pictures, and can be deleted", async ({ page }) => {
  await page.setViewportSize(DESKTOP_WIDE);
  await signUp(page, { name: "Failed Tile User" });
  await page.locator('form input[name="via"][value="fetch"]').first().waitFor({ state: "attached" });
  const picture = await generate(page, "A lamp that works");
  await expect(picture).toHaveAttribute("data-status", "completed");
  const failed = await generate(page, "A broken lamp [simulate:fail]");
  await expect(failed).toHaveAttribute("data-status", "failed");
  await expect(failed).toContainText("No credits were charged.");
  // Not a full-size grey square: well under the picture's height.
  const [f, p] = [await failed.boundingBox(), await picture.getByRole("img").boundingBox()];
  expect(f!.height).toBeLessThan(p!.height * 0.75);
  // On a phone the menu of a tile in the first column opens on the screen, not off its left edge.
  await page.setViewportSize(PHONE_TALL);
  const menu = await actions(failed);
  const m = await menu.boundingBox();
  expect(m!.x).toBeGreaterThanOrEqual(0);
  expect(m!.x + m!.width).toBeLessThanOrEqual(PHONE_TALL.width);
  await menu.getByRole("button", { name: "Delete: A broken lamp [simulate:fail]" }).click();
  await expect(failed).toBeHidden();
  await expect(page.getByRole("heading", { name: /Your gallery/ })).toContainText("(1)");
});

test("without JavaScript: field errors, the type toggle, a failed task costs nothing, gallery pages", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await signUp(page, { name: "No Script" });
  await page.getByRole("button", { name: /^Generate/ }).click();
  await expect(page.getByText("Describe what to create")).toBeVisible(); // the shared schema's field error

  // The image/video toggle works without scripts (CSS), and the server checks the pair.
  await page.getByRole("radio", { name: "Video", exact: true }).check();
  await expect(page.locator('[data-offering="video|kling|kling-v1"]')).toBeVisible();
  await expect(page.locator('[data-offering="image|openai|dall-e-3"]')).toBeHidden();
  await page.getByRole("textbox", { name: "Prompt" }).fill("A video without a video model");
  await page.getByRole("button", { name: /^Generate/ }).click();
  await expect(page.getByText("Choose a video model")).toBeVisible();

  await page.getByRole("radio", { name: "Image", exact: true }).check();
  await page.getByRole("radio", { name: /DALL·E 3/ }).check();
  await page.getByRole("textbox", { name: "Prompt" }).fill("No script needed [simulate:fail]");
  await page.getByRole("button", { name: /^Generate/ }).click();
  const item = page.getByRole("listitem", { name: "Generation: No script needed [simulate:fail]" });
  await expect(item).toBeVisible();
  await expect
    .poll(
      async () => {
        await page.goto("/studio");
        return item.getByTestId("status").textContent();
      },
      { timeout: 15_000 },
    )
    .toBe("failed");
  await expect(item.getByRole("note")).toContainText("(simulated)");
  await expect(item).toContainText("0 credits");
  await expect(page.getByTestId("available")).toContainText("10");

  // Twenty-four more (free: they fail) make two pages of the gallery, newest first. Running tasks hold
  // their price until they fail, so a create may have to wait for earlier ones.
  for (let i = 1; i <= 24; i++) {
    const create = () =>
      page.request.post("/studio", {
        form: {
          intent: "create",
          make: "image",
          offering: "image|replicate|black-forest-labs/flux-schnell",
          prompt: `Extra ${i} [simulate:fail]`,
        },
        headers: { origin: new URL(page.url()).origin },
        maxRedirects: 0,
      });
    await expect.poll(async () => (await create()).status(), { timeout: 20_000, intervals: [200, 500] }).toBe(302);
  }
  await page.goto("/studio");
  await expect(page.getByText("Page 1 of 2")).toBeVisible();
  await expect(page.getByRole("listitem", { name: "Generation: No script needed [simulate:fail]" })).toHaveCount(0);
  await page.getByRole("link", { name: "Older" }).click();
  await expect(page).toHaveURL(/\/studio\?page=2#gallery$/);
  await expect(page.getByText("Page 2 of 2")).toBeVisible();
  await expect(page.getByRole("listitem", { name: "Generation: No script needed [simulate:fail]" })).toBeVisible();
  await context.close();
});

test("without JavaScript: choosing another model brings its options, keeping the prompt and the options typed", async ({
  browser,
}) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await signUp(page, { name: "No Script Options" });
  const prompt = page.getByRole("textbox", { name: "Prompt" });
  const show = page.getByRole("button", { name: "Show options for the chosen model" });
  // The options fold under one toggle (a <details>: it needs no script).
  const options = page.getByTestId("options-toggle");
  await options.click();
  // The first affordable image model and its options.
  await expect(page.getByRole("group", { name: "Options for DALL·E 3" })).toBeVisible();
  await prompt.fill("A lighthouse in fog, wide");

  await page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ }).check();
  await show.click();
  await options.click();
  await expect(page.getByRole("group", { name: "Options for FLUX.1 [schnell]" })).toBeVisible();
  await expect(page.getByRole("group", { name: "Options for DALL·E 3" })).toHaveCount(0);
  await expect(page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ })).toBeChecked();
  await expect(prompt).toHaveValue("A lighthouse in fog, wide");
  await page.getByLabel("Aspect ratio").selectOption("3:2");

  // Another model that declares an aspect ratio keeps the one chosen.
  await page.getByRole("radio", { name: /Kling v1 image/ }).check();
  await show.click();
  await options.click();
  await expect(page.getByRole("group", { name: "Options for Kling v1 image" })).toBeVisible();
  await expect(page.getByLabel("Aspect ratio")).toHaveValue("3:2");
  await expect(prompt).toHaveValue("A lighthouse in fog, wide");

  // And the task is made with them.
  await page.getByRole("button", { name: /^Generate/ }).click();
  await expect(page).toHaveURL(/\/studio\?created=/);
  await page.goto(
    `/studio/${await page.getByRole("listitem", { name: "Generation: A lighthouse in fog, wide" }).getAttribute("data-gen-id")}`,
  );
  await expect(page.getByText("Kling v1 image (kling-v1)")).toBeVisible();
  await expect(page.locator('dd[data-field="Aspect ratio"]')).toHaveText("3:2");
  await context.close();
});

test("model chips show a labelled simulated sample and a typical speed", async ({ page }) => {
  await signUp(page, { name: "Cards" });
  const flux = page.locator('[data-offering="image|replicate|black-forest-labs/flux-schnell"]');
  // Simulated here: the simulator's time (SIMULATOR_DELAY_MS=300 → ~1 s), not the live provider's.
  await expect(flux).toContainText("~1 s");
  const img = flux.getByRole("img", { name: /^Simulated sample for FLUX\.1 \[schnell\]/ });
  await expect(img).toHaveAttribute("loading", "lazy");
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(480);
  await expect(page.locator('[data-offering="image|openai|gpt-image-1"]')).toContainText("~1 s");
  await expect(page.locator('[data-offering="image|openai|gpt-image-1"]')).not.toContainText("~40 s");
});
