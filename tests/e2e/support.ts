/** Shared e2e helpers: accounts, an accessibility audit and screenshots at two widths. */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export const unique = (tag: string) => `${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.test`;

/** `atelier admin promote --email …` against the e2e server's data directory (the operator's way to make an admin). */
export function promote(email: string) {
  execFileSync("bun", [join(import.meta.dirname, "../../app/cli.ts"), "admin", "promote", "--email", email], {
    cwd: process.env.E2E_DATA_DIR,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DATA_DIR: process.env.E2E_DATA_DIR!, LOG_LEVEL: "warn" },
    stdio: "pipe",
  });
}

export const SCREENSHOT_DIR = join(import.meta.dirname, "../../test-results/screenshots");
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 375, height: 812 };

export async function signUp(page: Page, opts: { name: string; email?: string }) {
  const email = opts.email ?? unique("e2e");
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill(opts.name);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/account$/);
  return email;
}

/** axe-core (WCAG 2 A/AA): no serious or critical violations. */
export async function audit(page: Page, name: string) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const bad = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
  expect(bad, `accessibility violations on ${name}`).toEqual([]);
}

/**
 * Audits the page and saves a full-page screenshot at desktop (1280×800) and
 * phone (375×812) widths under test-results/screenshots/, then restores the viewport.
 */
export async function auditAndShoot(page: Page, name: string) {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const before = page.viewportSize();
  for (const [label, size] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await page.evaluate(() => document.fonts?.ready).catch(() => {});
    await audit(page, `${name} (${label})`);
    // Nothing may overflow sideways on a phone.
    if (label === "phone") {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${name}: horizontal overflow at 375 px`).toBeLessThanOrEqual(0);
    }
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${label}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}
