/**
 * The page's language in a browser (issue #44): hydration in the server's language with no warning, the language
 * menu switching languages, and each language's pages at phone and desktop width without overflowing.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";

const SHOTS = join(import.meta.dirname, "../../test-results/languages");
const WIDTHS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1440, height: 900 },
];

function watchConsole(page: Page) {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || /hydrat|did not match/i.test(m.text())) problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(String(e)));
  return problems;
}

/** Nothing wider than the viewport: text that does not fit shows as a horizontal scroll. */
async function expectNoOverflow(page: Page, label: string) {
  const over = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll<HTMLElement>("body *")]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.right > width + 1 && getComputedStyle(el).position !== "fixed";
      })
      .filter((el) => !el.closest("[data-allow-overflow], .overflow-x-auto, .overflow-x-clip, .overflow-hidden"))
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${el.textContent?.slice(0, 40)}`);
  });
  expect(over, `overflow on ${label}`).toEqual([]);
}

test("hydrates in the server's language, and the menu switches it", async ({ page }) => {
  const problems = watchConsole(page);
  await page.goto("/pricing?lng=ja");
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");
  await page.waitForLoadState("networkidle");
  const menu = page.getByTestId("language-menu").locator("select");
  await expect(menu).toHaveValue("ja");
  await menu.selectOption("de");
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.locator("html")).toHaveAttribute("lang", "de");
  await expect(page.getByRole("link", { name: "Anmelden" }).first()).toBeVisible();
  // Remembered: the next page comes in German with no parameter.
  await page.goto("/sign-in");
  await expect(page.locator("html")).toHaveAttribute("lang", "de");
  expect(problems).toEqual([]);
});

for (const lng of ["en", "zh-CN", "ja", "de", "fr", "es", "pt-BR"]) {
  test(`public pages in ${lng}: no overflow at phone and desktop width`, async ({ page }) => {
    mkdirSync(SHOTS, { recursive: true });
    const problems = watchConsole(page);
    for (const path of ["/", "/pricing", "/sign-in", "/sign-up", "/forgot-password"]) {
      for (const size of WIDTHS) {
        await page.setViewportSize(size);
        await page.goto(`${path}?lng=${lng}`);
        await expect(page.locator("html")).toHaveAttribute("lang", lng);
        await expectNoOverflow(page, `${path} ${lng} ${size.name}`);
        const name = `${path === "/" ? "home" : path.slice(1)}-${lng}-${size.name}.png`;
        await page.screenshot({ path: join(SHOTS, name), fullPage: true });
      }
    }
    expect(problems).toEqual([]);
  });
}
