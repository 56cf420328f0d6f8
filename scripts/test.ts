#!/usr/bin/env bun
/**
 * Runs every test level in order and ends with one summary line:
 *   1. lint (Biome: format, import order, lint rules) and type-check (react-router typegen + tsc)
 *   2. production build
 *   3. `bun test` — unit tests and integration tests (real server processes over HTTP; nginx from apt for the TLS proxy test)
 *   3b. the integration tests again on PostgreSQL (ATELIER_TEST_PG=1: one throwaway cluster, a fresh database per test server)
 *   4. Playwright end-to-end tests in Debian's chromium (installed with apt when missing)
 *   5. CI-sized fast suites that scripts register in tests/ci-suites.json (bench smoke, etc.)
 * Type-check runs beside the build (neither reads what the other writes). Test files run in TEST_JOBS processes at once
 * (default 3, `bun test --parallel`; 1 runs them one after another), slowest first by tests/timings.json.
 * Usage: bun scripts/test.ts [--skip-e2e] [--only unit|integration|integration-pg|e2e] [--dry-run]
 *   --dry-run prints each step's commands instead of running them.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { junitCounts, junitFailures, playwrightOutcomes } from "./test-reports";

const root = join(import.meta.dir, "..");
const args = process.argv.slice(2);
const skipE2e = args.includes("--skip-e2e");
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
const dryRun = args.includes("--dry-run");
/**
 * Test files at once. The integration files spend most of their time waiting on their servers, fakes and timers (a
 * file's processes used ~45 s of CPU in ~145 s on this 2-core machine), so 3 processes finish in about two thirds of
 * the time. Every file already takes free ports, its own temporary folders and, on PostgreSQL, its own databases.
 */
const jobs = Math.max(1, Number(process.env.TEST_JOBS ?? 3) || 1);
/** Per-file durations of an earlier run: --parallel starts the slowest files first so none is left running alone at the end. */
const timings = join(root, "tests/timings.json");
const parallelArgs = () =>
  jobs > 1 ? [`--parallel=${jobs}`, ...(existsSync(timings) ? [`--timings=${timings}`] : [])] : [];
mkdirSync(join(root, "test-results"), { recursive: true });

interface Step {
  name: string;
  passed: number;
  failed: number;
  skipped: number;
  ok: boolean;
  seconds: number;
  /** What failed, one line each ("file › test: first line of the error"), printed after the summary. */
  failures?: string[];
  /** What failed once and passed on its retry: printed too, to be fixed rather than lived with. */
  flaky?: string[];
}
const steps: Step[] = [];

async function run(cmd: string[], env: Record<string, string> = {}): Promise<number> {
  const vars = Object.entries(env).map(([k, v]) => `${k}=${v} `);
  console.log(`\n$ ${vars.join("")}${cmd.join(" ")}`);
  if (dryRun) return 0;
  const proc = Bun.spawn(cmd, { cwd: root, stdout: "inherit", stderr: "inherit", env: { ...process.env, ...env } });
  return await proc.exited;
}

async function step(name: string, fn: () => Promise<Omit<Step, "name" | "seconds">>) {
  // The summary lists steps in the order they started, also when two run side by side.
  const at = steps.push({ name, passed: 0, failed: 0, skipped: 0, ok: false, seconds: 0 }) - 1;
  const t0 = performance.now();
  const done = await fn();
  // A dry run ran nothing: reports left by an earlier run say nothing about it.
  const r = dryRun ? { ok: true, passed: 0, failed: 0, skipped: 0 } : done;
  steps[at] = { name, ...r, seconds: Math.round((performance.now() - t0) / 100) / 10 };
  return r.ok;
}

/** Installs a Debian package with apt when its binary is missing (never a downloaded binary). */
async function ensureApt(pkg: string, path: string, why: string): Promise<string> {
  if (existsSync(path)) return path;
  console.log(`[test] ${path} is missing (${why}): installing Debian's ${pkg} with apt-get`);
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  if ((await run([...sudo, "apt-get", "update", "-qq"])) !== 0) throw new Error("apt-get update failed");
  if ((await run([...sudo, "apt-get", "install", "-y", "-qq", pkg], { DEBIAN_FRONTEND: "noninteractive" })) !== 0)
    throw new Error(`apt-get install ${pkg} failed`);
  return path;
}

const ensureChromium = () =>
  ensureApt("chromium", process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", "end-to-end tests");

const build = () =>
  step("build", async () => {
    const code = await run(["bun", "run", "build"]);
    return { ok: code === 0, passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0 };
  });
let built: boolean;
if (!only) {
  await step("lint (biome)", async () => {
    const code = await run(["bun", "run", "lint"]);
    return { ok: code === 0, passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0 };
  });
  // Side by side: tsc is one core's work for a minute, the build mostly another's; the tests wait for both.
  [, built] = await Promise.all([
    step("typecheck", async () => {
      const a = await run(["bun", "--bun", "react-router", "typegen"]);
      const b = a === 0 ? await run(["bun", "x", "tsc", "--noEmit"]) : 1;
      return { ok: b === 0, passed: b === 0 ? 1 : 0, failed: b === 0 ? 0 : 1, skipped: 0 };
    }),
    build(),
  ]);
} else {
  built = await build();
}

if (built && only !== "e2e" && only !== "integration-pg") {
  // tests/integration/ops/tls-proxy.test.ts runs the documented nginx setup with a certificate made by openssl.
  await ensureApt("nginx", "/usr/sbin/nginx", "the TLS proxy integration test");
  await ensureApt("openssl", "/usr/bin/openssl", "the TLS proxy integration test");
  // tests/unit/db/postgres-domain.test.ts and tests/unit/db/schema-pg.test.ts start throwaway PostgreSQL clusters (tests/support/postgres.ts).
  await ensureApt("postgresql", "/usr/lib/postgresql/15/bin/initdb", "the PostgreSQL tests");
  const dirs =
    only === "unit"
      ? ["tests/unit"]
      : only === "integration"
        ? ["tests/integration"]
        : ["tests/unit", "tests/integration"];
  await step(`bun test (${dirs.join(", ")})`, async () => {
    const out = join(root, "test-results/bun-junit.xml");
    // --timeout on the command line: bunfig's [test] timeout and a preload's setDefaultTimeout reach only the first file (Bun 1.4.5).
    const code = await run([
      "bun",
      "test",
      "--timeout",
      "60000",
      ...parallelArgs(),
      ...dirs.map((d) => `./${d}`),
      "--reporter=junit",
      `--reporter-outfile=${out}`,
    ]);
    const c = junitCounts(out);
    // A crash before any report is a failure too.
    if (code !== 0 && c.failed === 0) c.failed = 1;
    return { ok: code === 0, ...c, failures: junitFailures(out) };
  });
}

if (built && (!only || only === "integration-pg")) {
  await ensureApt("postgresql", "/usr/lib/postgresql/15/bin/initdb", "the PostgreSQL run of the integration tests");
  // The same integration tests against PostgreSQL: tests/support/engine.ts gives every test server its own database in
  // this one cluster (DATABASE_URL + BETTER_AUTH_SECRET); tests of SQLite-only behaviour skip, saying why.
  await step("bun test (integration, PostgreSQL)", async () => {
    // Imported after ensureApt: the module looks for PostgreSQL's binaries when it loads.
    const { startPostgres } = await import("../tests/support/postgres");
    const pg = dryRun
      ? { url: "postgres://postgres@127.0.0.1:PORT/atelier", stop: async () => {} }
      : await startPostgres({ maxConnections: 400 });
    try {
      const out = join(root, "test-results/bun-junit-pg.xml");
      const code = await run(
        [
          "bun",
          "test",
          "--timeout",
          "60000",
          ...parallelArgs(),
          "./tests/integration",
          "--reporter=junit",
          `--reporter-outfile=${out}`,
        ],
        {
          ATELIER_TEST_PG: "1",
          ATELIER_TEST_PG_URL: pg.url.replace(/\/[^/]*$/, "/postgres"),
        },
      );
      const c = junitCounts(out);
      if (code !== 0 && c.failed === 0) c.failed = 1;
      return { ok: code === 0, ...c, failures: junitFailures(out) };
    } finally {
      await pg.stop();
    }
  });
}

if (built && !skipE2e && (!only || only === "e2e")) {
  await step("e2e (Playwright, Debian chromium)", async () => {
    const chromium = await ensureChromium();
    const code = await run(["bun", "x", "playwright", "test", "-c", "tests/e2e/playwright.config.ts"], {
      CHROMIUM_PATH: chromium,
    });
    let passed = 0;
    let failed = code === 0 ? 0 : 1;
    let skipped = 0;
    let failures: string[] = [];
    let flaky: string[] = [];
    const report = join(root, "test-results/e2e.json");
    if (existsSync(report)) {
      const json = JSON.parse(readFileSync(report, "utf8"));
      const stats = json.stats ?? {};
      passed = (stats.expected ?? 0) + (stats.flaky ?? 0);
      failed = Math.max(stats.unexpected ?? 0, code === 0 ? 0 : 1);
      skipped = stats.skipped ?? 0;
      ({ failed: failures, flaky } = playwrightOutcomes(json.suites));
    }
    return { ok: code === 0, passed, failed, skipped, failures, flaky };
  });
}

// Extra fast suites (benchmark smoke runs, binary smoke test…) registered by later work.
const extra = join(root, "tests/ci-suites.json");
if (built && !only && existsSync(extra)) {
  const suites = JSON.parse(readFileSync(extra, "utf8")) as {
    name: string;
    cmd: string[];
    apt?: { pkg: string; path: string };
  }[];
  for (const s of suites) {
    await step(s.name, async () => {
      if (s.apt) await ensureApt(s.apt.pkg, s.apt.path, s.name);
      const code = await run(s.cmd);
      return { ok: code === 0, passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0 };
    });
  }
}

console.log("\n──────── Atelier test summary ────────");
for (const s of steps) {
  console.log(
    `${s.ok ? "✓" : "✗"} ${s.name.padEnd(44)} ${String(s.passed).padStart(4)} passed, ${s.failed} failed${s.skipped ? `, ${s.skipped} skipped` : ""}  (${s.seconds}s)`,
  );
}
const failures = steps.flatMap((s) => (s.failures ?? []).map((f) => `  ${s.name}: ${f}`));
if (failures.length) console.log(`\nFailed:\n${failures.slice(0, 40).join("\n")}`);
const flaky = steps.flatMap((s) => (s.flaky ?? []).map((f) => `  ${s.name}: ${f}`));
if (flaky.length) console.log(`\nFlaky (failed once, passed on the retry — fix these):\n${flaky.join("\n")}`);
const passed = steps.reduce((a, s) => a + s.passed, 0);
const failed = steps.reduce((a, s) => a + s.failed, 0);
const skipped = steps.reduce((a, s) => a + s.skipped, 0);
const ok = steps.every((s) => s.ok);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(ok && failed === 0 ? 0 : 1);
