/**
 * Navigation and copy (docs/studio.md "Navigation and copy"): the studio is the one place to make things (the
 * playground is out of the main nav), one credits figure on the account page (axe landmark-unique clean), the
 * credits chip leads to the check-in, pricing says what a credit buys and which offer is the best value, and the
 * API docs render inline code and list each model's options as a table.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { signUp } from "./support";

const SIZES = [
  ["desktop", { width: 1440, height: 900 }],
  ["phone", { width: 390, height: 844 }],
] as const;

/** The sizes the studio is judged at (1440×900, 390×844), light and dark, for looking at (not committed). */
async function shoot(page: Page, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [label, size] of SIZES) {
      await page.setViewportSize(size);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: `test-results/e2e/screens/${name}-${label}-${scheme}.png`, fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize(SIZES[0][1]);
}

test("nav, credits chip, account figure, pricing value, docs options", async ({ page }) => {
  await page.setViewportSize(SIZES[0][1]);
  await signUp(page, { name: "Copy Reader" });

  // The main nav has no Playground; the footer leads there.
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Studio" })).toBeVisible();
  await expect(nav.getByRole("link", { name: "Playground" })).toHaveCount(0);
  await expect(page.getByRole("contentinfo").getByRole("link", { name: "Playground" })).toBeVisible();

  // The credits chip leads to the credits and the daily check-in.
  await page.getByRole("link", { name: /^Balance: 10 credits available/ }).click();
  await expect(page).toHaveURL(/\/account#credits$/);
  await expect(page.getByRole("button", { name: "Daily check-in" })).toBeInViewport();

  // One credits figure: what can be spent; no second "Balance" with the same number.
  const credits = page.locator("#credits");
  await expect(page.getByTestId("available-credits")).toHaveText("10");
  await expect(credits.getByText("Balance", { exact: true })).toHaveCount(0);
  await expect(page.getByTestId("left-credits")).toHaveCount(0);
  // The affiliate reward is explained once (by its switch).
  await expect(page.getByText(/you earn \d+ ?%/)).toHaveCount(1);
  const landmarks = await new AxeBuilder({ page }).withRules(["landmark-unique"]).analyze();
  expect(landmarks.violations.map((v) => v.nodes.map((n) => n.target.join(" ")))).toEqual([]);
  await shoot(page, "account");

  // Pricing: price per credit, what it buys, one best value per kind, buttons that say what they buy.
  await page.goto("/pricing");
  await expect(page.getByTestId("product-pack-100").getByTestId("per-credit")).toHaveText("$0.050 per credit");
  await expect(page.getByTestId("product-pack-100").getByTestId("buys")).toContainText(/≈ \d+ images or \d+ videos/);
  await expect(page.getByTestId("best-value")).toHaveCount(2);
  await expect(page.getByTestId("product-pack-2000").getByTestId("best-value")).toBeVisible();
  await expect(page.getByTestId("product-pro-yearly").getByTestId("best-value")).toBeVisible();
  const labels = await page.getByRole("main").getByRole("button").allInnerTexts();
  expect(new Set(labels).size).toBe(labels.length);
  await shoot(page, "pricing");

  // API docs: no literal backticks in the prose (code examples keep theirs); each model's options in a table.
  const prose = () =>
    page.evaluate(() => {
      const main = document.querySelector("main")!.cloneNode(true) as HTMLElement;
      for (const pre of main.querySelectorAll("pre")) pre.remove();
      return main.textContent ?? "";
    });
  await page.goto("/docs");
  expect(await prose()).not.toContain("`");
  await page.goto("/docs/generator-generate");
  expect(await prose()).not.toContain("`");
  const tables = page.getByTestId("model-options");
  expect(await tables.count()).toBeGreaterThanOrEqual(5);
  await expect(page.getByRole("table", { name: "Options of FLUX.1 [schnell]" })).toContainText("aspect_ratio");
  await shoot(page, "docs-endpoint");
});
