/**
 * Compare in the studio (docs/studio.md "Compare"): the total before Generate, the limit of four, all-or-nothing
 * when the credits do not cover the total, and the results side by side in one row of the gallery.
 */
import { expect, test } from "@playwright/test";
import { auditAndShoot, signUp } from "./support";

test("compare two models: the total shown first, a shortfall creates nothing, the results side by side", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signUp(page, { name: "Compare User" });
  // Hydrated: the composer answers in place (via=fetch); a click before that is the no-JavaScript post.
  await page.locator('form input[name="via"][value="fetch"]').first().waitFor({ state: "attached" });
  const prompt = "A lighthouse on a cliff at dusk";
  await page.getByRole("textbox", { name: "Prompt" }).fill(prompt);
  await page.getByTestId("compare-toggle").click();
  const panel = page.getByTestId("compare-panel");
  await expect(panel).toBeVisible();
  const submit = panel.getByTestId("compare-submit");
  await expect(submit).toBeDisabled();
  const box = (name: RegExp) => panel.getByRole("checkbox", { name });
  await box(/^DALL·E 3/).check();
  await box(/^FLUX\.1 \[schnell\]/).check();
  await expect(submit).toHaveText(/Compare 2 models · 8 credits/);
  await box(/^Kling/).check();
  await expect(submit).toHaveText(/Compare 3 models · 12 credits/);
  // 12 of 10: refused as a whole, nothing made.
  await submit.click();
  await expect(page.getByText("It costs 12 credits")).toBeVisible();
  await expect(page.getByRole("heading", { name: /Your gallery/ })).toContainText("(0)");
  await expect(page.getByTestId("available")).toContainText("10");

  // Four is the most: the other boxes are disabled.
  // Generate folded the panel away; the boxes keep what was checked.
  await page.getByTestId("compare-toggle").click();
  await expect(panel).toBeVisible();
  await box(/^GPT Image 1/).check();
  await expect(submit).toHaveText(/Compare 4 models · 20 credits/);
  const unchecked = panel.locator('input[name="compare"]:visible:not(:checked)');
  expect(await unchecked.count()).toBeGreaterThan(0);
  for (const el of await unchecked.all()) await expect(el).toBeDisabled();
  await box(/^GPT Image 1/).uncheck();
  await box(/^Kling/).uncheck();
  await expect(submit).toHaveText(/Compare 2 models · 8 credits/);
  await submit.click();

  const row = page.locator("li[data-compare]");
  await expect(row).toHaveCount(1);
  const tiles = row.locator("li[data-gen-id]");
  await expect(tiles).toHaveCount(2);
  for (const tile of await tiles.all()) await expect(tile).toHaveAttribute("data-status", "completed");
  await expect(row.getByTestId("compare-model")).toHaveText([/^DALL·E 3/, /^FLUX\.1 \[schnell\]/]);
  // Side by side: one row, both in view without scrolling.
  const tops = await tiles.evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().top)));
  expect(new Set(tops).size).toBe(1);
  await expect(tiles.first().getByRole("img")).toBeInViewport();
  for (const img of await row.getByRole("img").all()) {
    expect(await img.getAttribute("width")).toMatch(/^\d+$/);
    expect(await img.getAttribute("height")).toMatch(/^\d+$/);
  }
  await expect(page.getByRole("heading", { name: /Your gallery/ })).toContainText("(2)");
  await expect(page.getByTestId("available")).toContainText("2");
  // Each picture got a blurred placeholder (kept just after it completed): under the picture, with its size.
  await expect(async () => {
    await page.reload();
    await expect(row.locator("img[data-placeholder]")).toHaveCount(2, { timeout: 10_000 });
  }).toPass({ timeout: 45_000 });
  for (const el of await row.locator("img[data-placeholder]").all()) {
    expect(await el.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    expect(await el.getAttribute("width")).toMatch(/^\d+$/);
  }
  await auditAndShoot(page, "studio-compare");
});
