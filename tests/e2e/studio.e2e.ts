import { expect, test, type Page } from "@playwright/test";

const unique = (tag: string) => `${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.test`;

async function signUp(page: Page) {
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill("Studio User");
  await page.getByLabel("Email").fill(unique("studio"));
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/account$/);
}

test("an image: pick a model, submit, watch it complete, see it in history", async ({ page }) => {
  await signUp(page);
  // The signed-in home is the studio.
  await page.goto("/");
  await expect(page).toHaveURL(/\/studio$/);
  await expect(page.getByRole("heading", { name: "Studio", level: 1 })).toBeVisible();
  await expect(page.getByTestId("available")).toContainText("10");

  // An image: FLUX (3 credits), simulated.
  const picker = page.getByLabel("Type, provider and model");
  await picker.selectOption({ label: "FLUX.1 [schnell] — replicate / black-forest-labs/flux-schnell — 3 credits (simulated)" });
  await page.getByLabel("Prompt").fill("A red fox in fresh snow");
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page).toHaveURL(/\/studio\?created=/);
  const image = page.getByRole("listitem", { name: "Generation: A red fox in fresh snow" });
  await expect(image).toBeVisible();
  // It completes without a reload (the page polls) and shows the picture.
  await expect(image.getByTestId("status")).toHaveText("completed");
  const img = image.getByRole("img", { name: "Image: A red fox in fresh snow" });
  await expect(img).toBeVisible();
  expect(await img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(384);
  await expect(page.getByRole("heading", { name: /History/ })).toContainText("(1)");
  await expect(page.getByTestId("available")).toContainText("7");

  // A video: Kling v1 (10 credits) is more than is left (7) — the error is shown.
  await picker.selectOption({ label: "Kling v1 video — kling / kling-v1 — 10 credits (simulated)" });
  await page.getByLabel("Prompt").fill("A drone shot over mountains");
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByRole("alert")).toHaveText("insufficient credits: need 10, have 7");
});

test("a video: progress while it runs, then the animation, in history", async ({ page }) => {
  await signUp(page);
  await page.goto("/studio");
  const picker = page.getByLabel("Type, provider and model");
  await picker.selectOption({ label: "Kling v1 video — kling / kling-v1 — 10 credits (simulated)" });
  await page.getByLabel("Prompt").fill("A drone shot over snowy mountains");
  await page.getByRole("button", { name: "Generate" }).click();
  const video = page.getByRole("listitem", { name: "Generation: A drone shot over snowy mountains" });
  // While it runs, a progress indicator is shown.
  await expect(video.getByRole("progressbar")).toBeVisible();
  await expect(video.getByTestId("status")).toHaveText("completed");
  // A real video in a player: Kling's default 16:9, simulated at 512×288.
  const player = video.locator('video[aria-label="Video: A drone shot over snowy mountains"]');
  await expect(player).toBeVisible();
  await expect.poll(() => player.evaluate((el: HTMLVideoElement) => el.videoWidth)).toBe(512);
  await expect(page.getByTestId("available")).toContainText("0");
  await expect(page.getByRole("heading", { name: /History/ })).toContainText("(1)");
  await expect(video).toContainText("video · kling / kling-v1 · 10 credits · simulated");
});

test("without JavaScript: field errors, a failed task costs nothing, refresh link, history pages", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await signUp(page);
  await page.goto("/studio");
  await page.getByLabel("Type, provider and model").selectOption({ label: "DALL·E 3 — openai / dall-e-3 — 5 credits (simulated)" });
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText("Describe what to create")).toBeVisible(); // the shared schema's field error
  await page.getByLabel("Prompt").fill("No script needed [simulate:fail]");
  await page.getByRole("button", { name: "Generate" }).click();
  const item = page.getByRole("listitem", { name: "Generation: No script needed [simulate:fail]" });
  await expect(item).toBeVisible();
  await expect
    .poll(async () => {
      await page.getByRole("link", { name: "Refresh" }).click();
      return item.getByTestId("status").textContent();
    }, { timeout: 15_000 })
    .toBe("failed");
  await expect(item.getByRole("note")).toContainText("(simulated)");
  await expect(item).toContainText("0 credits");
  await expect(page.getByTestId("available")).toContainText("10");

  // Eight more (free: they fail) make two pages of history, newest first.
  for (let i = 1; i <= 8; i++) {
    await page.getByLabel("Prompt").fill(`Extra ${i} [simulate:fail]`);
    await page.getByRole("button", { name: "Generate" }).click();
    await expect(page.getByRole("listitem", { name: `Generation: Extra ${i} [simulate:fail]` })).toBeVisible();
  }
  await expect(page.getByText("Page 1 of 2")).toBeVisible();
  await expect(page.getByRole("listitem", { name: "Generation: No script needed [simulate:fail]" })).toHaveCount(0);
  await page.getByRole("link", { name: "Older" }).click();
  await expect(page).toHaveURL(/\/studio\?page=2$/);
  await expect(page.getByText("Page 2 of 2")).toBeVisible();
  await expect(page.getByRole("listitem", { name: "Generation: No script needed [simulate:fail]" })).toBeVisible();
  await context.close();
});

test("cancel a running task from its card: it ends canceled and costs nothing", async ({ page }) => {
  await signUp(page);
  await page.goto("/studio");
  await page.getByLabel("Type, provider and model").selectOption({ label: "FLUX.1 [schnell] — replicate / black-forest-labs/flux-schnell — 3 credits (simulated)" });
  await page.getByLabel("Prompt").fill("A very slow fox [simulate:slow]");
  await page.getByRole("button", { name: "Generate" }).click();
  const card = page.getByRole("listitem", { name: "Generation: A very slow fox [simulate:slow]" });
  await card.getByRole("button", { name: /^Cancel: A very slow fox/ }).click();
  await expect(page).toHaveURL(/notice=generation-canceled/);
  await expect(page.getByText("Generation canceled: nothing was charged.")).toBeVisible();
  await expect(card.getByTestId("status")).toHaveText("failed");
  await expect(card.getByRole("note")).toHaveText("canceled");
  await expect(page.getByTestId("available")).toContainText("10");
});
