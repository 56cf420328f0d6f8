/**
 * End-to-end tests in Debian's chromium (never a downloaded browser) against
 * the production build, started fresh on its own port and data directory.
 */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig, devices } from "@playwright/test";

// Evaluated again in each worker: pin the values in the environment they inherit.
process.env.E2E_PORT ??= String(20000 + (process.pid % 20000));
process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), "atelier-e2e-"));
const port = Number(process.env.E2E_PORT);
const baseURL = `http://localhost:${port}`;
const root = join(import.meta.dirname, "../..");

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.e2e\.ts$/,
  outputDir: join(root, "test-results/e2e"),
  fullyParallel: false,
  workers: 1,
  // One retry, so that a test that fails once on a loaded machine does not sink a whole CI run; scripts/test.ts names
  // every test that needed it under "Flaky" at the end of the run, to be fixed (docs/testing.md). Locally: --retries=0.
  retries: 1,
  // Each page is audited and photographed four times (light/dark × desktop/phone) on a shared machine.
  timeout: 180_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["json", { outputFile: join(root, "test-results/e2e.json") }]],
  use: {
    actionTimeout: 20_000,
    navigationTimeout: 30_000,
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"], channel: undefined } }],
  webServer: {
    command: `bun ${join(root, "app/cli.ts")} serve`,
    cwd: process.env.E2E_DATA_DIR,
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 30_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      NODE_ENV: "production",
      BETTER_AUTH_SECRET: "e2e-secret-e2e-secret-e2e-secret-e2e-secret",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: baseURL,
      DATA_DIR: process.env.E2E_DATA_DIR,
      SIMULATOR_DELAY_MS: "300",
      ADMIN_EMAILS: "admin@e2e.test",
      WEBHOOK_ALLOW_PRIVATE: "true",
      AUTH_RATE_LIMIT: "off",
      LOG_LEVEL: "warn",
    },
  },
});
