/** What the screens scripts share: Debian's chromium, and the checks made before each screenshot. */
import AxeBuilder from "@axe-core/playwright";
import { type Browser, type BrowserContext, chromium, type Page } from "@playwright/test";
import { CHROMIUM_ARGS } from "../tests/e2e/playwright.config";

export const SCREEN_SIZES = [
  ["desktop", { width: 1440, height: 900 }],
  ["phone", { width: 390, height: 844 }],
] as const;

export function launchChromium() {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
  });
}

/** Logs the page's sideways overflow and its serious or critical axe-core (WCAG 2.1 AA) violations. */
export async function checkScreen(page: Page, shot: string, label: string, scheme: string): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const bad = axe.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id}: ${v.nodes
          .slice(0, 2)
          .map((n) => n.target.join(" "))
          .join(", ")}`,
    );
  console.log(shot, label, scheme, "overflow", overflow, "axe", bad.length ? bad : "ok");
}

/**
 * `visit` on a fresh page for each colour scheme × screen size: a context on `baseURL` (`prepare` may add cookies or
 * routes first); the page's console errors are logged and the context closed after each.
 */
export async function forEachScreen(
  browser: Browser,
  baseURL: string,
  visit: (page: Page, label: string, scheme: "light" | "dark") => Promise<void>,
  prepare?: (context: BrowserContext) => Promise<unknown>,
): Promise<void> {
  for (const scheme of ["light", "dark"] as const) {
    for (const [label, size] of SCREEN_SIZES) {
      const context = await browser.newContext({ viewport: size, colorScheme: scheme, baseURL });
      await prepare?.(context);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      await visit(page, label, scheme);
      if (errors.length) console.log("console errors", errors.slice(0, 5));
      await context.close();
    }
  }
}
