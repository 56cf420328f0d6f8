#!/usr/bin/env bun
/**
 * `npm run up`: build when the sources changed since the last build, then
 * serve (`bun run start`). The build's own output is the stamp: it is stale
 * when any source file is newer than build/atelier.js.
 *
 * Usage: bun scripts/up.ts [--check]   (--check: only say whether a build is needed; exit 0 = fresh, 1 = stale)
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const OUTPUT = join(root, "build/atelier.js");
const SOURCES = [
  "app",
  "db",
  "jobs",
  "package.json",
  "bun.lock",
  "vite.config.ts",
  "react-router.config.ts",
  "tsconfig.json",
];

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

export function buildIsStale(): boolean {
  if (!existsSync(OUTPUT) || !existsSync(join(root, "build/client"))) return true;
  const built = statSync(OUTPUT).mtimeMs;
  return SOURCES.some((s) => newest(join(root, s)) > built);
}

if (import.meta.main) {
  const stale = buildIsStale();
  if (process.argv.includes("--check")) {
    console.log(stale ? "build needed: sources changed since build/atelier.js" : "build is up to date");
    process.exit(stale ? 1 : 0);
  }
  if (stale) {
    console.error("[atelier] sources changed since the last build: building (bun run build)");
    const b = Bun.spawnSync(["bun", "run", "build"], { cwd: root, stdout: "inherit", stderr: "inherit" });
    if (b.exitCode !== 0) process.exit(b.exitCode ?? 1);
  } else {
    console.error("[atelier] build is up to date (no source changed): starting");
  }
  const proc = Bun.spawn(["bun", OUTPUT, "serve"], {
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
    stdin: "inherit",
  });
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => proc.kill(sig));
  process.exit(await proc.exited);
}
