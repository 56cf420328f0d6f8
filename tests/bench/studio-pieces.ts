#!/usr/bin/env bun
/**
 * Where a signed-in `GET /studio` spends its CPU: the production build (NODE_ENV=production, jobs off) on SQLite,
 * a new user and one with --tasks finished tasks (bulk SQL as bench:growth loads them), wrk c16 for --seconds on
 * each; prints req/s, p99 and the server's CPU per request (robust to a busy machine), then, with --cpu-prof <dir>,
 * the server's own CPU profile grouped by where the time goes (self time by source file and by function).
 *
 *   bun tests/bench/studio-pieces.ts [--tasks 20000] [--seconds 5] [--rounds 2] [--cpu-prof <dir>] [--root <a built checkout>]
 *
 * --root: a before/after run — the other built checkout's server ("before") and this one's ("after"), each with its
 * own database and users, alternated in every round; the ratios are printed (compare them, not absolute figures).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { Client, uniqueEmail } from "../support/client";
import { openServerDb } from "../support/db";
import { startServer } from "../support/server";
import { parseWrk, WRK } from "./harness";

const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : undefined);
const TASKS = Number(opt("tasks") ?? 20_000);
const SECONDS = Number(opt("seconds") ?? 5);
const PROF = opt("cpu-prof");
const ROOT = opt("root");
const ROUNDS = Number(opt("rounds") ?? 2);
if (PROF) mkdirSync(resolve(PROF), { recursive: true });

/** A server of one built checkout, with a new user and a heavy one. */
async function prepare(root: string | undefined, prof: boolean) {
  const server = await startServer({
    root,
    engine: "sqlite",
    env: {
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      JOBS: "off",
      RATE_LIMIT_STANDARD: "10000000",
      SIGNUP_CREDITS: "1000",
      ...(prof && PROF ? { BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(PROF)}` } : {}),
    },
  });
  const api = new Client(server.url);
  const fresh = await api.signUp(uniqueEmail("studio"));
  const heavy = await api.signUp(uniqueEmail("studio"));
  const db = await openServerDb(server.dataDir);
  const base = Date.now() - 86_400_000 - TASKS * 1000;
  for (let from = 0; from < TASKS; from += 10_000) {
    const to = Math.min(TASKS, from + 10_000) - 1;
    await db
      .raw(
        `INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, result_urls, credits_cost, deadline_at, created_at, started_at, completed_at)
         WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to})
         SELECT 'h-' || i, ?, CASE WHEN i % 5 = 0 THEN 'video' ELSE 'image' END, 'replicate', 'black-forest-labs/flux-schnell',
           'seeded prompt ' || i || ': a lighthouse at dusk', 'completed', '["http://127.0.0.1/media/h-' || i || '/0.png"]', 3,
           ${base} + i * 1000 + 600000, ${base} + i * 1000, ${base} + i * 1000 + 500, ${base} + i * 1000 + 2000 FROM n`,
      )
      .run(heavy.userId);
  }
  await db.raw("PRAGMA wal_checkpoint(TRUNCATE)").many();
  await db.close();
  return { name: root ?? "this checkout", server, users: { new: fresh, heavy } };
}

async function wrk(server: { url: string; proc: { pid: number } }, cookie: string, path = "/studio") {
  const cpu0 = cpuMs(server.proc.pid);
  const out = await new Response(
    Bun.spawn([WRK, "-t1", "-c16", `-d${SECONDS}s`, "--latency", "-H", `Cookie: ${cookie}`, `${server.url}${path}`], {
      stdout: "pipe",
    }).stdout,
  ).text();
  const r = parseWrk(out);
  const cpu = cpuMs(server.proc.pid) - cpu0;
  return { ...r, cpuUsPerReq: r.requests > 0 ? (cpu * 1000) / r.requests : 0 };
}
function cpuMs(pid: number) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
}

// With --root, the other checkout is "before" and this one "after", alternated in each round.
const sides = ROOT ? [await prepare(ROOT, false), await prepare(undefined, true)] : [await prepare(undefined, true)];
const best = new Map<string, { rps: number; p99: number; cpu: number }>();
console.log(
  `load average before: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
for (let round = 0; round < ROUNDS; round++)
  for (const who of ["new", "heavy"] as const)
    for (const side of sides) {
      const r = await wrk(side.server, side.users[who].cookie);
      if (r.non2xx > 0 || r.requests === 0)
        throw new Error(`${side.name} ${who}: ${r.non2xx} non-2xx of ${r.requests}`);
      const key = `${side.name}|${who}`;
      const b = best.get(key);
      best.set(key, {
        rps: Math.max(b?.rps ?? 0, r.rps),
        p99: Math.min(b?.p99 ?? Infinity, r.p99),
        cpu: Math.min(b?.cpu ?? Infinity, r.cpuUsPerReq),
      });
    }
console.log(
  `load average after: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
console.log(`GET /studio, wrk c16, ${SECONDS} s per point, best of ${ROUNDS} rounds; heavy = ${TASKS} finished tasks`);
for (const who of ["new", "heavy"] as const)
  for (const side of sides) {
    const b = best.get(`${side.name}|${who}`)!;
    const vs = sides.length > 1 && side !== sides[0] ? best.get(`${sides[0]!.name}|${who}`)! : undefined;
    console.log(
      `${who.padEnd(5)} ${side.name.padEnd(22)} ${Math.round(b.rps)} req/s, p99 ${b.p99.toFixed(1)} ms, CPU ${Math.round(b.cpu)} µs/request` +
        (vs ? `  (after/before: CPU ${(b.cpu / vs.cpu).toFixed(2)}, req/s ${(b.rps / vs.rps).toFixed(2)})` : ""),
    );
  }
for (const side of sides) await side.server.stop("SIGINT");

if (PROF) {
  const file = readdirSync(resolve(PROF))
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => join(resolve(PROF), f))
    .sort()
    .at(-1)!;
  const prof = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[];
    samples: number[];
  };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (const s of prof.samples) self.set(s, (self.get(s) ?? 0) + 1);
  const total = prof.samples.length;
  const group = (key: (n: (typeof prof.nodes)[number]) => string) => {
    const m = new Map<string, number>();
    for (const [id, hits] of self) {
      const k = key(byId.get(id)!);
      m.set(k, (m.get(k) ?? 0) + hits);
    }
    return [...m].sort((a, b) => b[1] - a[1]).slice(0, 25);
  };
  const short = (url: string) =>
    url.replace(/^.*node_modules\//, "nm:").replace(/^.*\/build\//, "build/") || "(native)";
  console.log(`\nself time by file (${total} samples):`);
  for (const [k, v] of group((n) => short(n.callFrame.url)))
    console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
  console.log("\nself time by function:");
  for (const [k, v] of group(
    (n) => `${n.callFrame.functionName || "(anonymous)"} ${short(n.callFrame.url)}:${n.callFrame.lineNumber}`,
  ))
    console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
  console.log(`\nprofile: ${file}`);
}
for (const side of sides) rmSync(side.server.dataDir, { recursive: true, force: true });
