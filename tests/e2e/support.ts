/** Shared e2e helpers: accounts, an accessibility audit and screenshots at two widths. */

import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

export const unique = (tag: string) =>
  `${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.test`;

/** `atelier admin promote --email …` against the e2e server's data directory (the operator's way to make an admin). */
export function promote(email: string) {
  execFileSync("bun", [join(import.meta.dirname, "../../app/cli.ts"), "admin", "promote", "--email", email], {
    // promote asks for the account's password: the one signUp() types.
    input: "correct-horse-battery\n",
    cwd: process.env.E2E_DATA_DIR,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      DATA_DIR: process.env.E2E_DATA_DIR!,
      LOG_LEVEL: "warn",
    },
    stdio: "pipe",
  });
}

/** Committed: the screens of every page, light and dark, desktop and phone (docs/screens/README.md). */
export const SCREENSHOT_DIR = join(import.meta.dirname, "../../docs/screens");
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 375, height: 812 };

export async function signUp(page: Page, opts: { name: string; email?: string }) {
  const email = opts.email ?? unique("e2e");
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill(opts.name);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign up" }).click();
  // Sign-up lands in the studio, ready to create.
  await expect(page).toHaveURL(/\/studio$/);
  return email;
}

/** axe-core (WCAG 2 A/AA): no serious or critical violations. */
export async function audit(page: Page, name: string) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const bad = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
    }));
  expect(bad, `accessibility violations on ${name}`).toEqual([]);
}

/**
 * Closes the toasts on screen ("Your video is ready"): they come and go by
 * themselves and would cover the page's last rows in a screenshot.
 */
export async function closeToasts(page: Page) {
  const toasts = page.getByRole("region", { name: /^Notifications/ }).locator("li");
  const open = toasts.and(page.locator('[data-state="open"]'));
  for (let i = await open.count(); i > 0; i--) await open.first().getByRole("button", { name: "Dismiss" }).click();
  await expect(toasts).toHaveCount(0);
}

/**
 * Audits the page in light and dark and saves a screenshot at desktop (1280×800)
 * and phone (375×812) widths under docs/screens/, then restores the viewport and
 * colour scheme. `full` takes the whole page instead of the first screen. Toasts
 * are closed first: a screenshot shows the page, not what happened to pass by.
 */
export async function auditAndShoot(page: Page, name: string, opts: { full?: boolean } = {}) {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const before = page.viewportSize();
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [label, size] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      await page.setViewportSize(size);
      await page.evaluate(() => document.fonts?.ready).catch(() => {});
      await audit(page, `${name} (${label}, ${scheme})`);
      // Nothing may overflow sideways on a phone.
      if (label === "phone") {
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `${name}: horizontal overflow at 375 px`).toBeLessThanOrEqual(0);
      }
      // From the top, so the sticky header sits where a person sees it.
      if (opts.full ?? true) await page.evaluate(() => window.scrollTo(0, 0));
      await closeToasts(page);
      await page.screenshot({
        path: join(SCREENSHOT_DIR, `${name}-${label}-${scheme}.png`),
        fullPage: opts.full ?? true,
        animations: "disabled",
      });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  if (before) await page.setViewportSize(before);
}

/**
 * A second production server beside the one the config starts, for journeys that need other settings (a mail
 * transport, sign-in providers): its own port and data directory, ready when `/api/health` answers. `stop()` ends it
 * and removes the directory.
 */
export async function startSecondServer(opts: { port: number; tag: string; env: Record<string, string> }) {
  const root = join(import.meta.dirname, "../..");
  const base = `http://localhost:${opts.port}`;
  const dataDir = mkdtempSync(join(tmpdir(), `atelier-e2e-${opts.tag}-`));
  const server = spawn("bun", [join(root, "app/cli.ts"), "serve"], {
    cwd: dataDir,
    stdio: "ignore",
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      NODE_ENV: "production",
      BETTER_AUTH_SECRET: `e2e-${opts.tag}-secret-`.repeat(4),
      PORT: String(opts.port),
      HOST: "127.0.0.1",
      PUBLIC_URL: base,
      DATA_DIR: dataDir,
      AUTH_RATE_LIMIT: "off",
      LOG_LEVEL: "warn",
      ...opts.env,
    },
  });
  await expect
    .poll(
      () =>
        fetch(`${base}/api/health`).then(
          (r) => r.ok,
          () => false,
        ),
      { timeout: 30_000 },
    )
    .toBe(true);
  return {
    base,
    stop() {
      server.kill("SIGTERM");
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
