/**
 * Pictures to start from in the studio (docs/studio.md "Pictures to start from"): upload → image-to-image,
 * upload → image-to-video, Edit / Animate from a result, the task page's inputs. Simulated providers render the
 * input, so each result is checked to have used it (its page lists the picture it started from).
 */
import { expect, type Locator, type Page, test } from "@playwright/test";
import { auditAndShoot, signUp } from "./support";

const DESKTOP_WIDE = { width: 1440, height: 900 };
const PHONE_TALL = { width: 390, height: 844 };
const GPT_IMAGE = '[data-offering="image|openai|gpt-image-1"]';
const KLING_VIDEO = '[data-offering="video|kling|kling-v1"]';

/** A real PNG to upload: the header's logo link (a colourful square and the name), photographed. */
const picture = async (page: Page) => ({
  name: "photo.png",
  mimeType: "image/png",
  buffer: await page.locator("header").getByRole("link").first().screenshot(),
});

/** Fully inside the viewport, not just touching it. */
async function fullyVisible(page: Page, locator: Locator) {
  const box = await locator.boundingBox();
  const size = page.viewportSize()!;
  expect(box, "no box").not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(size.height);
  expect(box!.x + box!.width).toBeLessThanOrEqual(size.width);
}

async function finished(page: Page, prompt: string) {
  const item = page.getByRole("listitem", { name: `Generation: ${prompt}` });
  await expect(item).toHaveAttribute("data-status", "completed");
  return item;
}

test("upload → image-to-image: the picture is attached, the model switches to one that takes it, the result's page shows it", async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP_WIDE);
  await signUp(page, { name: "Picture User" });
  const composer = page.locator("form[aria-labelledby=create-h]");
  const file = composer.getByLabel("Add image");
  await expect(file).toHaveAttribute("type", "file");
  // FLUX takes no picture: attaching one moves to a model that does, and dims the others.
  await page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ }).check();
  await file.setInputFiles(await picture(page));
  await expect(composer.getByRole("img", { name: "Image (attached)" })).toBeVisible();
  const chosen = composer.locator("[data-offering]:has(input:checked)");
  await expect(chosen).toHaveAttribute("data-takes-image", /optional|required/);
  await expect(composer.locator('[data-offering="image|replicate|black-forest-labs/flux-schnell"]')).toHaveAttribute(
    "data-dimmed",
    "true",
  );
  await fullyVisible(page, page.getByRole("button", { name: /^Generate/ }));
  await page.setViewportSize(PHONE_TALL);
  await fullyVisible(page, page.getByRole("button", { name: /^Generate/ }));
  await auditAndShoot(page, "studio-picture-attached", { full: false });
  await page.setViewportSize(DESKTOP_WIDE);

  await composer.locator(GPT_IMAGE).locator("input").check();
  const prompt = "Make it night, keep the framing";
  await page.getByRole("textbox", { name: "Prompt" }).fill(prompt);
  await page.getByRole("button", { name: /^Generate/ }).click();
  const item = await finished(page, prompt);
  await expect(composer.getByRole("img", { name: "Image (attached)" })).toBeVisible();
  // The task's page shows what it started from beside the result.
  await page.goto(`/studio/${await item.getAttribute("data-gen-id")}`);
  const inputs = page.getByRole("list", { name: "Pictures this started from" });
  await expect(inputs.getByRole("img", { name: "Image this started from" })).toBeVisible();
  expect(await inputs.locator("img").evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
  await auditAndShoot(page, "studio-picture-detail");
});

test("upload → image-to-video: a first frame for Kling; Edit and Animate from a result put it in the composer", async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP_WIDE);
  await signUp(page, { name: "Animate User" });
  const composer = page.locator("form[aria-labelledby=create-h]");

  // A picture first, from a result: make one (3 credits), then Edit and Animate it.
  const prompt = "A lighthouse on a cliff";
  await page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ }).check();
  await page.getByRole("textbox", { name: "Prompt" }).fill(prompt);
  await page.getByRole("button", { name: /^Generate/ }).click();
  const item = await finished(page, prompt);
  await item.hover();
  await item.locator("summary").click();
  await item.getByRole("button", { name: `Edit: ${prompt}` }).click();
  await expect(composer.getByRole("img", { name: "Image (attached)" })).toBeVisible();
  await expect(composer.locator("[data-offering]:has(input:checked)")).toHaveAttribute("data-takes-image", /./);
  await expect(page.getByRole("textbox", { name: "Prompt" })).toHaveValue("");
  await expect(page.getByRole("textbox", { name: "Prompt" })).toBeFocused();
  await item.hover();
  await item.locator("summary").click();
  await item.getByRole("button", { name: `Animate: ${prompt}` }).click();
  await expect(composer.getByRole("img", { name: "First frame (attached)" })).toBeVisible();
  await expect(page.getByRole("radio", { name: "Video", exact: true })).toBeChecked();
  await expect(page.getByRole("textbox", { name: "Prompt" })).toHaveValue(prompt);
  // Remove it, and upload a first frame instead: Kling v1 video animates it (10 credits: a new account's share).
  await composer.getByRole("button", { name: "Remove first frame" }).click();
  await expect(composer.getByRole("img", { name: "First frame (attached)" })).toHaveCount(0);
  await page.evaluate(() => localStorage.clear());
  await page.context().clearCookies();

  await signUp(page, { name: "Video Picture User" });
  await page.getByRole("radio", { name: "Video", exact: true }).check();
  await composer.locator(KLING_VIDEO).locator("input").check();
  await composer.getByLabel("Add first frame").setInputFiles(await picture(page));
  await expect(composer.getByRole("img", { name: "First frame (attached)" })).toBeVisible();
  await expect(composer.locator(KLING_VIDEO).locator("input")).toBeChecked();
  const video = "The waves roll in slowly";
  await page.getByRole("textbox", { name: "Prompt" }).fill(video);
  await page.getByRole("button", { name: /^Generate/ }).click();
  const clip = await finished(page, video);
  await expect(clip.getByLabel(`Video: ${video}`)).toBeVisible();
  await page.goto(`/studio/${await clip.getAttribute("data-gen-id")}`);
  await expect(page.getByRole("img", { name: "First frame this started from" })).toBeVisible();
});
