#!/usr/bin/env bun
/**
 * Cold start: time from process spawn to the first successful response of
 * GET /api/health, on a fresh, empty DATA_DIR each run (so it includes creating
 * the database and applying migrations). Prints the median of N runs, in one
 * run, for `bun build/atelier.js serve` (what `bun run start` runs: the server
 * build and its dependencies bundled into one file by `bun run build`), for
 * `bun app/cli.ts serve` (the same build loading its dependencies from
 * node_modules, as `start` did before) and, when it exists, the compiled
 * executable dist/atelier copied alone into an empty folder; then the ratio of
 * `bun run start` to the executable (target: within 2×, docs/performance.md).
 * Usage: bun tests/bench/cold-start.ts [runs=7]
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/server";

const root = join(import.meta.dir, "../..");
const runs = Number(process.argv[2] ?? 7);

async function once(cmd: string[], cwd: string): Promise<number> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "atelier-cold-"));
  const t0 = performance.now();
  const proc = Bun.spawn(cmd, {
    cwd: cwd || dataDir,
    env: { PATH: process.env.PATH!, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "warn" },
    stdout: "ignore",
    stderr: "ignore",
  });
  let ms = NaN;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (r.ok) {
        ms = performance.now() - t0;
        break;
      }
    } catch {}
    if (performance.now() - t0 > 20_000 || proc.exitCode !== null) break;
    await Bun.sleep(2);
  }
  proc.kill("SIGKILL");
  await proc.exited;
  rmSync(dataDir, { recursive: true, force: true });
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(name: string, cmd: string[], cwd = "") {
  const times: number[] = [];
  await once(cmd, cwd); // warm the OS page cache; cold = a fresh process and database, not a cold disk
  for (let i = 0; i < runs; i++) times.push(await once(cmd, cwd));
  console.log(
    `${name.padEnd(34)} median ${median(times).toFixed(0)} ms  (runs: ${times.map((t) => t.toFixed(0)).join(", ")})`,
  );
  return median(times);
}

if (!existsSync(join(root, "build/server/index.js"))) throw new Error("run `bun run build` first");
console.log(`cold start to first successful GET /api/health, fresh DATA_DIR each run, ${runs} runs`);
if (!existsSync(join(root, "build/atelier.js")))
  throw new Error("run `bun run build` first (it makes build/atelier.js)");
const start = await measure("bun run start (build/atelier.js)", ["bun", join(root, "build/atelier.js"), "serve"]);
await measure("bun app/cli.ts (from node_modules)", ["bun", join(root, "app/cli.ts"), "serve"]);
const bin = join(root, "dist/atelier");
if (existsSync(bin)) {
  const dir = mkdtempSync(join(tmpdir(), "atelier-bin-"));
  copyFileSync(bin, join(dir, "atelier"));
  Bun.spawnSync(["chmod", "+x", join(dir, "atelier")]);
  const compiled = await measure("dist/atelier (compiled, alone)", [join(dir, "atelier"), "serve"], dir);
  rmSync(dir, { recursive: true, force: true });
  const ratio = start / compiled;
  console.log(
    `bun run start ÷ compiled executable: ${ratio.toFixed(2)}× (target ≤ 2×: ${ratio <= 2 ? "met" : "MISSED"}); load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
}
