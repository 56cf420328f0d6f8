/**
 * The page's language in a browser (issue #44): hydration in the server's language with no warning, the language
 * menu switching languages, and each language's pages at phone and desktop width without overflowing.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { signUp } from "./support";

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

/**
 * No text wider than its box, and nothing wider than the viewport: an element whose content overflows (scrollWidth
 * over clientWidth) while its overflow is visible, or any box reaching past the viewport's right edge.
 */
async function expectNoOverflow(page: Page, label: string) {
  const over = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const scrolls = (el: Element) => /auto|scroll|hidden|clip/.test(getComputedStyle(el).overflowX);
    const inScroller = (el: Element) => {
      for (let p = el.parentElement; p; p = p.parentElement) if (scrolls(p)) return true;
      return false;
    };
    return [...document.querySelectorAll<HTMLElement>("body *")]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || getComputedStyle(el).position === "fixed" || inScroller(el)) return false;
        if (el.closest("details:not([open])") && !el.closest("summary")) return false;
        // Text that does not fit its own box (a word too long to wrap): the element holds the text itself.
        const ownText = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim());
        const spills = ownText && el.scrollWidth > el.clientWidth + 1 && !scrolls(el) && el.clientWidth > 0;
        return spills || r.right > width + 1;
      })
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}: ${el.textContent?.slice(0, 60)}`);
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

test("the signed-in studio and feedback page in every language: no overflow at phone and desktop width", async ({
  page,
  context,
  baseURL,
}) => {
  mkdirSync(SHOTS, { recursive: true });
  await signUp(page, { name: "Polyglot" });
  const problems = watchConsole(page);
  for (const lng of ["zh-CN", "ja", "de", "fr", "es", "pt-BR"]) {
    await context.addCookies([{ name: "lng", value: lng, url: baseURL! }]);
    for (const path of ["/studio", "/feedback"]) {
      for (const size of WIDTHS) {
        await page.setViewportSize(size);
        await page.goto(path);
        await expect(page.locator("html")).toHaveAttribute("lang", lng);
        await expectNoOverflow(page, `${path} ${lng} ${size.name}`);
        await page.screenshot({ path: join(SHOTS, `${path.slice(1)}-${lng}-${size.name}.png`), fullPage: true });
      }
    }
  }
  expect(problems).toEqual([]);
});
