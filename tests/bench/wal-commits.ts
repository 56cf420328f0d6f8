#!/usr/bin/env bun
/**
 * `bun run bench:wal [--requests N] [--rounds N] [--rate R]`: what a key
 * request's one write costs on the thread that commits it, with SQLite's
 * automatic WAL checkpoint (the default: the committing connection checkpoints
 * every 1,000 pages, fsyncs included) against the checkpointer thread
 * (db/checkpointer.ts). Each "request" is what a key read does to the database
 * (the limiter's GCRA statement on the user's row, then the credits read), in
 * this process on a database file in the temp folder (a real disk here), timed
 * one by one, at R requests per second (default 5,000: a busy server's pace;
 * the pauses between them are not timed); the two modes alternate round by
 * round so a noisy neighbour hits all alike; "read only" is the same request without
 * its write, the machine's own noise floor (`--mode autocheckpoint|checkpointer`: one
 * only, e.g. under `strace -f -e trace=fsync` to see which thread syncs). The tail of this distribution is load-robust where wrk's p99 is
 * not: it counts the requests that waited for a checkpoint.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "#db/client";
import { getCredits } from "~/domain/credits/ledger.server";
import { take } from "~/domain/rate-limits/limiter.server";
import { userBucket } from "~/domain/rate-limits/policy.server";
import { systemClock } from "~/lib/clock";
import { load } from "./harness";

const argv = process.argv.slice(2);
const arg = (name: string, def: number) =>
  argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : def;
const N = arg("requests", 30_000);
const ROUNDS = arg("rounds", 3);
const RATE = arg("rate", 5000);
const MODES: Mode[] = argv.includes("--mode")
  ? [argv[argv.indexOf("--mode") + 1] as Mode]
  : ["autocheckpoint", "checkpointer", "no checkpoint", "read only"];
const USERS = 20;
const policy = { limit: 1e9, windowMs: 1000 };
/**
 * "no checkpoint": the write with no checkpoint at all (the WAL only grows): the floor a write can reach on this
 * machine, where other processes' fsyncs still stall the filesystem journal. "read only": the same request without
 * its write, the machine's own noise floor (scheduling, GC).
 */
type Mode = "autocheckpoint" | "checkpointer" | "no checkpoint" | "read only";

async function measure(mode: Mode): Promise<{ t: Float64Array; walMaxKiB: number }> {
  const dir = mkdtempSync(join(tmpdir(), "atelier-wal-"));
  const file = join(dir, "atelier.db");
  const db = openDatabase(file, mode === "checkpointer" ? { checkpointer: {} } : {});
  if (mode === "no checkpoint") db.sqlite!.exec("PRAGMA wal_autocheckpoint = 0");
  const t = new Float64Array(N);
  let walMax = 0;
  try {
    const t0 = Date.now();
    const start = performance.now();
    for (let i = 0; i < N; i++) {
      // Ahead of the pace by a millisecond or more: wait (the event loop turns, as between a server's requests).
      if (i % 5 === 0 && start + (i * 1000) / RATE - performance.now() >= 1)
        await Bun.sleep(start + (i * 1000) / RATE - performance.now());
      const a = Bun.nanoseconds();
      const user = `u${i % USERS}`;
      if (mode !== "read only") await take(db, userBucket(user), policy, t0 + i);
      await db.exec(getCredits(db, user, systemClock));
      t[i] = (Bun.nanoseconds() - a) / 1000;
      if (i % 1000 === 0 && existsSync(`${file}-wal`)) walMax = Math.max(walMax, statSync(`${file}-wal`).size);
    }
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { t, walMaxKiB: walMax / 1024 };
}

const all: Record<Mode, number[]> = { autocheckpoint: [], checkpointer: [], "no checkpoint": [], "read only": [] };
const wal: Record<Mode, number> = { autocheckpoint: 0, checkpointer: 0, "no checkpoint": 0, "read only": 0 };
const loadAtStart = load();
for (let r = 0; r < ROUNDS; r++) {
  for (const mode of MODES) {
    const { t, walMaxKiB } = await measure(mode);
    all[mode].push(...t);
    wal[mode] = Math.max(wal[mode], walMaxKiB);
  }
}
console.log(
  `\n### one key request's database work, timed one by one (${ROUNDS} × ${N} per mode at ${RATE}/s, alternating; load ${loadAtStart} → ${load()})\n`,
);
console.log("| mode | p50 | p99 | p99.9 | p99.99 | max | > 1 ms | > 5 ms | time in requests > 1 ms | WAL max |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const mode of MODES) {
  const t = Float64Array.from(all[mode]).sort();
  const q = (p: number) => t[Math.min(t.length - 1, Math.floor(p * t.length))]!;
  const f = (us: number) => (us < 1000 ? `${us.toFixed(0)} µs` : `${(us / 1000).toFixed(2)} ms`);
  const slow = t.filter((x) => x > 1000);
  const slowMs = slow.reduce((s, x) => s + x, 0) / 1000;
  console.log(
    `| ${mode} | ${f(q(0.5))} | ${f(q(0.99))} | ${f(q(0.999))} | ${f(q(0.9999))} | ${f(t[t.length - 1]!)} | ${slow.length} | ${t.filter((x) => x > 5000).length} | ${slowMs.toFixed(0)} ms | ${(wal[mode] / 1024).toFixed(1)} MiB |`,
  );
}
