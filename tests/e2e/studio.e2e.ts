import { expect, test } from "@playwright/test";
import { auditAndShoot, PHONE, signUp } from "./support";

test("an image: pick a model card, submit, watch it complete in place, see it in the gallery", async ({ page }) => {
  await signUp(page, { name: "Studio User" });
  await expect(page.getByRole("heading", { name: "Studio", level: 1 })).toBeVisible();
  await expect(page.getByTestId("available")).toContainText("10");

  // Model cards carry name, provider, price and mode.
  const flux = page.locator('[data-offering="image|replicate|black-forest-labs/flux-schnell"]');
  await expect(flux).toContainText("FLUX.1 [schnell]");
  await expect(flux).toContainText("Replicate");
  await expect(flux).toContainText("3 credits");
  await expect(flux).toContainText("Simulated");

  await page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ }).check();
  await page.getByRole("textbox", { name: "Prompt" }).fill("A red fox in fresh snow");
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page).toHaveURL(/\/studio\?created=/);
  const image = page.getByRole("listitem", { name: "Generation: A red fox in fresh snow" });
  await expect(image).toBeVisible();
  // It completes without a reload (the page polls) and shows the picture at its own shape.
  await expect(image.getByTestId("status")).toHaveText("completed");
  const img = image.getByRole("img", { name: "Image: A red fox in fresh snow" });
  await expect(img).toBeVisible();
  const ratio = await img.evaluate((el: HTMLImageElement) =>
    Math.abs(el.naturalWidth / el.naturalHeight - el.clientWidth / el.clientHeight),
  );
  expect(ratio).toBeLessThan(0.02);
  await expect(page.getByRole("heading", { name: /Your gallery/ })).toContainText("(1)");
  await expect(page.getByTestId("available")).toContainText("7");
  await expect(image.getByRole("link", { name: "Download: A red fox in fresh snow" })).toHaveAttribute("download", "");
});

test("a video: progress in place while it runs, then the result, with its price", async ({ page }) => {
  await signUp(page, { name: "Video User" });
  await page.getByRole("radio", { name: "Video", exact: true }).check();
  // The toggle selects a video model at once; pick Kling v1.
  await expect(page.getByRole("radio", { name: /Runway Gen-4\.5/ })).toBeChecked();
  await page.getByRole("radio", { name: /Kling v1 video/ }).check();
  await page.getByRole("textbox", { name: "Prompt" }).fill("A drone shot over snowy mountains [simulate:slow]");
  await page.getByRole("button", { name: "Generate" }).click();
  const video = page.getByRole("listitem", { name: "Generation: A drone shot over snowy mountains [simulate:slow]" });
  await expect(video.getByRole("progressbar")).toBeVisible();
  // While it runs, the header shows what it holds beside the balance.
  await expect(page.getByTestId("held")).toContainText("10 held");
  await expect(video.getByTestId("status")).toHaveText("completed");
  await expect(
    video
      .getByRole("img", { name: "Video: A drone shot over snowy mountains [simulate:slow]" })
      .or(video.getByLabel("Video: A drone shot over snowy mountains [simulate:slow]")),
  ).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("0 credits");
  await expect(video).toContainText("Kling v1 video · 10 credits");
  await expect(video).toContainText("Simulated");
});

test("keyboard only: Ctrl+Enter generates, the new result comes into view with the focus on it, Cancel stays on the page", async ({
  page,
}) => {
  await signUp(page, { name: "Keyboard User" });
  await page.setViewportSize(PHONE);
  await page.goto("/studio?type=image&page=1");
  const prompt = "A paper boat on a puddle after rain [simulate:slow]";
  const box = page.getByRole("textbox", { name: "Prompt" });
  await box.fill(prompt);
  // Ctrl+Enter in the prompt generates (rather than adding a line).
  await box.press("Control+Enter");
  await expect(page).toHaveURL(/\/studio\?created=/);
  const item = page.getByRole("listitem", { name: `Generation: ${prompt}` });
  // The result is a screen below the composer on a phone: it is brought into view and the keyboard is on it.
  await expect(item).toBeFocused();
  await expect(item).toBeInViewport();
  await page.keyboard.press("Tab");
  const cancel = item.getByRole("button", { name: `Cancel: ${prompt}` });
  await expect(cancel).toBeFocused();
  const before = page.url();
  await page.keyboard.press("Enter");
  // In place: no reload back to the top of an unfiltered studio, the keyboard stays on the result.
  await expect(item.getByTestId("status")).toHaveText("canceled");
  await expect(item).toContainText("Canceled");
  await expect(item).not.toContainText("Could not be made");
  expect(page.url()).toBe(before);
  await expect(item).toBeFocused();
  await expect(
    page.getByRole("region", { name: /^Notifications/ }).locator("li", { hasText: "Canceled" }),
  ).toBeVisible();
  await expect(page.getByRole("region", { name: /^Notifications/ })).not.toContainText("could not be made");
  await auditAndShoot(page, "studio-canceled");
  // Its page says so too.
  await item.getByRole("link", { name: /^Details:/ }).click();
  await expect(page.getByTestId("status")).toHaveText("canceled");
  await expect(page.getByText("Canceled. No credits were charged.")).toBeVisible();
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
  await expect(item.getByTestId("status")).toHaveText("completed");
  // The button goes with the running state; the focus must not fall to the page (Tab would start over at the top).
  await expect(item).toBeFocused();
});

test("the Running filter lists queued tasks too; a running task can be canceled from its own page", async ({
  page,
}) => {
  await signUp(page, { name: "Filter User" });
  const running = page.getByRole("navigation", { name: "Filter by status" }).getByRole("link", { name: "Running" });
  await expect(running).toHaveAttribute("href", "/studio?status=running#gallery");
  const prompt = "A lantern festival over a river [simulate:slow]";
  await page.getByRole("textbox", { name: "Prompt" }).fill(prompt);
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page).toHaveURL(/\/studio\?created=/);
  // Straight to its page while it runs (the simulator's slow run is 3 s).
  await page.goto(`/studio/${new URL(page.url()).searchParams.get("created")}`);
  await page.getByRole("button", { name: `Cancel: ${prompt}` }).click();
  await expect(page.getByTestId("status")).toHaveText("canceled");
  await expect(page).toHaveURL(/\/studio\/[0-9a-f-]{36}$/);
  await expect(page.getByText("Canceled. No credits were charged.")).toBeVisible();
  await expect(page.getByText("0 credits (canceled tasks are free)")).toBeVisible();
});

test("the gallery: filters land on the gallery, not the composer; removing a result takes it away at once, the keyboard moves on", async ({
  page,
}) => {
  await signUp(page, { name: "Gallery User" });
  for (const prompt of ["A first lantern", "A second lantern"]) {
    await page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ }).check();
    await page.getByRole("textbox", { name: "Prompt" }).fill(prompt);
    await page.getByRole("button", { name: "Generate" }).click();
    await expect(page.getByRole("listitem", { name: `Generation: ${prompt}` }).getByTestId("status")).toHaveText(
      "completed",
    );
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
  await second.getByRole("button", { name: "Remove from gallery: A second lantern" }).focus();
  await page.keyboard.press("Enter");
  await expect(second).toBeHidden();
  await expect(page.getByRole("listitem", { name: "Generation: A first lantern" })).toBeFocused();
  await expect(page.getByRole("heading", { name: /Your gallery/ })).toContainText("(1)");
  // Undo from the toast, in place (no trip to the result's page).
  await page
    .getByRole("region", { name: /^Notifications/ })
    .getByRole("button", { name: "Undo" })
    .click();
  await expect(second).toBeVisible();
  await expect(page.getByRole("heading", { name: /Your gallery/ })).toContainText("(2)");
});

test("the toast of a finished result closes on opening that result; one about another result stays", async ({
  page,
}) => {
  await signUp(page, { name: "Toast User" });
  const generate = async (prompt: string) => {
    await page.goto("/studio");
    await page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ }).check();
    await page.getByRole("textbox", { name: "Prompt" }).fill(prompt);
    await page.getByRole("button", { name: "Generate" }).click();
    return page.getByRole("listitem", { name: `Generation: ${prompt}` });
  };
  const toasts = page.getByRole("region", { name: /^Notifications/ });
  const ready = (prompt: string) =>
    toasts.locator("li", { hasText: "Your image is ready" }).filter({ hasText: prompt });

  const heron = await generate("A heron at dawn [simulate:slow]");
  await expect(ready("A heron at dawn")).toBeVisible();
  // Opening it from the gallery: its page says it is ready, so the toast goes at once (not after its 6 s).
  await heron.getByRole("link", { name: /^Details:/ }).click();
  await expect(page).toHaveURL(/\/studio\/[0-9a-f-]{36}$/);
  await expect(ready("A heron at dawn")).toHaveCount(0, { timeout: 1000 });

  // Another result finishing while the person looks at the first one: told, with a way to it.
  const heronPage = page.url();
  await generate("A crane at dusk [simulate:slow]");
  await page.goto(heronPage);
  await expect(ready("A crane at dusk")).toBeVisible();
});

test("without JavaScript: field errors, the type toggle, a failed task costs nothing, gallery pages", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await signUp(page, { name: "No Script" });
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText("Describe what to create")).toBeVisible(); // the shared schema's field error

  // The image/video toggle works without scripts (CSS), and the server checks the pair.
  await page.getByRole("radio", { name: "Video", exact: true }).check();
  await expect(page.locator('[data-offering="video|kling|kling-v1"]')).toBeVisible();
  await expect(page.locator('[data-offering="image|openai|dall-e-3"]')).toBeHidden();
  await page.getByRole("textbox", { name: "Prompt" }).fill("A video without a video model");
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText("Choose a video model")).toBeVisible();

  await page.getByRole("radio", { name: "Image", exact: true }).check();
  await page.getByRole("radio", { name: /DALL·E 3/ }).check();
  await page.getByRole("textbox", { name: "Prompt" }).fill("No script needed [simulate:fail]");
  await page.getByRole("button", { name: "Generate" }).click();
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
  // The first affordable image model and its options.
  await expect(page.getByRole("group", { name: "Options for DALL·E 3" })).toBeVisible();
  await prompt.fill("A lighthouse in fog, wide");

  await page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ }).check();
  await show.click();
  await expect(page.getByRole("group", { name: "Options for FLUX.1 [schnell]" })).toBeVisible();
  await expect(page.getByRole("group", { name: "Options for DALL·E 3" })).toHaveCount(0);
  await expect(page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ })).toBeChecked();
  await expect(prompt).toHaveValue("A lighthouse in fog, wide");
  await page.getByLabel("Aspect ratio").selectOption("3:2");

  // Another model that declares an aspect ratio keeps the one chosen.
  await page.getByRole("radio", { name: /Kling v1 image/ }).check();
  await show.click();
  await expect(page.getByRole("group", { name: "Options for Kling v1 image" })).toBeVisible();
  await expect(page.getByLabel("Aspect ratio")).toHaveValue("3:2");
  await expect(prompt).toHaveValue("A lighthouse in fog, wide");

  // And the task is made with them.
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page).toHaveURL(/\/studio\?created=/);
  await page.getByRole("link", { name: "Details: A lighthouse in fog, wide" }).click();
  await expect(page.getByText("Kling v1 image (kling-v1)")).toBeVisible();
  await expect(page.locator('dd[data-field="Aspect ratio"]')).toHaveText("3:2");
  await context.close();
});

test("model cards show a labelled simulated sample and a typical speed", async ({ page }) => {
  await signUp(page, { name: "Cards" });
  const flux = page.locator('[data-offering="image|replicate|black-forest-labs/flux-schnell"]');
  // Simulated here: the simulator's time (SIMULATOR_DELAY_MS=300 → ~1 s), not the live provider's.
  await expect(flux).toContainText("~1 s");
  await expect(flux).toContainText("Sample");
  const img = flux.getByRole("img", { name: /^Simulated sample for FLUX\.1 \[schnell\]/ });
  await expect(img).toHaveAttribute("loading", "lazy");
  await img.scrollIntoViewIfNeeded();
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(480);
  await expect(page.locator('[data-offering="image|openai|gpt-image-1"]')).toContainText("~1 s");
  await expect(page.locator('[data-offering="image|openai|gpt-image-1"]')).not.toContainText("~40 s");
});
