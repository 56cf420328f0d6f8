#!/usr/bin/env bun
/**
 * `bun run bench`: the production server (`bun app/cli.ts serve` from the
 * build, LOG_LEVEL=warn, NODE_ENV=production) side by side with a bare
 * `Bun.serve` doing the same JSON parsing and SQLite work on the same database
 * file (tests/bench/bare-server.ts), both driven by wrk at concurrency 1, 16
 * and 64, in one run. Prints req/s, p50, p99 and the ratio to the baseline for
 * get-user-credits (session and key), generator/query, generator/history (a
 * page of 20) and generator/generate; beside it the bare minimum of a key read
 * (JSON parse, SHA-256 of the key, key row, user row, envelope: bare-server.ts
 * /minimum) and each endpoint's ratio to it (issue 15's targets); the rate
 * limiter's own cost measured alone at limits 100, 1,000 and 100,000; generate with a worker process running the simulator; and the RSS of
 * the server idle and under load. The machine may be shared: read the ratios.
 *
 *   bun run bench [--quick] [--seconds N] [--rounds N] [--users N]
 *
 * --quick: 1 s per point, no warm-up: a smoke check that it runs and prints
 * numbers (CI, tests/ci-suites.json). It asserts nothing about speed; it exits
 * non-zero only when a request failed (non-2xx, socket errors, wrong answers).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generations } from "#db/schema";
import { authenticateApiKey } from "~/domain/api-keys/authenticate.server";
import { take } from "~/domain/rate-limits/limiter.server";
import { keyPolicy, userBucket } from "~/domain/rate-limits/policy.server";
import { systemClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { Client, uniqueEmail } from "../support/client";
import { openServerDb } from "../support/db";
import { ROOT, startServer } from "../support/server";
import { fmtMs, load, rssMiB, runWrk, startBare, type WrkResult, type WrkTarget } from "./harness";

const argv = process.argv.slice(2);
const arg = (name: string, def: number) => (argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : def);
const QUICK = argv.includes("--quick");
const SECONDS = arg("seconds", QUICK ? 1 : 3);
const ROUNDS = arg("rounds", QUICK ? 1 : 2);
const USERS = arg("users", 20);
const SEED_PER_USER = 200;
const CONCURRENCY = [1, 16, 64];
// Issue 15: throughput at c16 as a fraction of the bare minimum; p99 at c64; RSS; the limiter's cost flat in the limit.
const TARGETS = { p99AtC64Ms: 15, generateP99AtC64Ms: 40, rssMiB: 250, limiterSpread: 0.2 };

const loadAtStart = load();
const t0 = performance.now();
const dataDir = mkdtempSync(join(tmpdir(), "atelier-bench-"));
// Key runs: the tier limit raised far above the load (RATE_LIMIT_*) so nothing is ever denied; the
// limiter does the same work whatever the limit (one row per user, one statement; measured below).
const env = {
  NODE_ENV: "production",
  BETTER_AUTH_SECRET: "bench-secret-bench-secret-bench-secret-0",
  LOG_LEVEL: "warn",
  JOBS: "off",
  RATE_LIMIT_STANDARD: "10000000",
  RATE_LIMIT_WINDOW_MS: "1000",
  SIGNUP_CREDITS: "1000000",
  SIMULATOR_DELAY_MS: "1500",
};
const server = await startServer({ dataDir, env });
const api = new Client(server.url);

// ---- data: USERS users, each with a session, a key and SEED_PER_USER finished generations
const users: { cookie: string; key: string; userId: string; genIds: string[] }[] = [];
for (let i = 0; i < USERS; i++) {
  const { cookie, userId } = await api.signUp(uniqueEmail("bench"));
  const key = (await api.post("/api/keys/create", { name: `bench ${i}` }, { cookie })).body.data.key as string;
  users.push({ cookie, key, userId, genIds: [] });
}
const db = openServerDb(dataDir);
db.drizzle.transaction((tx) => {
  const base = Date.now() - SEED_PER_USER * 60_000;
  for (const u of users) {
    for (let j = 0; j < SEED_PER_USER; j++) {
      const id = randomUUID();
      const failed = j % 10 === 9;
      tx.insert(generations)
        .values({
          id,
          userId: u.userId,
          aiType: "image",
          provider: "replicate",
          model: "black-forest-labs/flux-schnell",
          prompt: `seeded prompt ${j}: a lighthouse at dusk, oil on canvas`,
          status: failed ? "failed" : "completed",
          resultUrls: failed ? null : JSON.stringify([`${server.url}/media/${id}/0.png`]),
          errorMessage: failed ? "Replicate failed the prediction: CUDA out of memory" : null,
          creditsCost: 3,
          deadlineAt: base + j * 60_000 + 600_000,
          createdAt: new Date(base + j * 60_000),
          completedAt: new Date(base + j * 60_000 + 2000),
        })
        .run();
      u.genIds.push(id);
    }
  }
});
/** Generate runs leave pending tasks; failing them afterwards keeps each run's reservation sums alike. */
const settlePending = () => db.sqlite!.run("UPDATE generations SET status = 'failed', error_message = 'bench', completed_at = ? WHERE status IN ('pending','processing')", [Date.now()]);
const countTasks = () => (db.sqlite!.query("SELECT count(*) AS n FROM generations").get() as { n: number }).n;

const bare = await startBare(dataDir, { ...env, DATABASE_PATH: join(dataDir, "atelier.db") });

// ---- what is measured
const GENERATE = JSON.stringify({ ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "bench: a red fox in snow" });
const viaKey = (body: (u: (typeof users)[number], i: number) => string) => ({ header: "X-API-Key", requests: users.map((u, i) => ({ value: u.key, body: body(u, i) })) });
const viaSession = (body: (u: (typeof users)[number], i: number) => string) => ({ header: "Cookie", requests: users.map((u, i) => ({ value: u.cookie, body: body(u, i) })) });
interface Point {
  name: string;
  read: boolean;
  /** Issue 15: req/s at c16 at least this fraction of the bare minimum's. */
  vsMinimum?: number;
  atelier: string;
  bare: string;
  auth: ReturnType<typeof viaKey>;
}
const points: Point[] = [
  { name: "get-user-credits (session)", read: true, vsMinimum: 0.5, atelier: "/api/get-user-credits", bare: "/credits/session", auth: viaSession(() => "") },
  { name: "get-user-credits (key)", read: true, vsMinimum: 0.3, atelier: "/api/get-user-credits", bare: "/credits/key", auth: viaKey(() => "") },
  { name: "generator/query (key)", read: true, vsMinimum: 0.25, atelier: "/api/generator/query", bare: "/query/key", auth: viaKey((u, i) => JSON.stringify({ gen_id: u.genIds[(i * 7) % SEED_PER_USER] })) },
  { name: "generator/history p20 (key)", read: true, vsMinimum: 0.25, atelier: "/api/generator/history", bare: "/history/key", auth: viaKey((_, i) => JSON.stringify({ page: 1 + (i % 5), page_size: 20 })) },
  { name: "generator/generate (key)", read: false, atelier: "/api/generator/generate", bare: "/generate/key", auth: viaKey(() => GENERATE) },
];

// Every target must answer correctly once before it is measured.
for (const p of points) {
  for (const [origin, path] of [
    [server.url, p.atelier],
    [bare.url, p.bare],
  ] as const) {
    const r0 = p.auth.requests[0]!;
    const res = await fetch(origin + path, { method: "POST", headers: { [p.auth.header]: r0.value, "content-type": "application/json" }, body: r0.body || undefined });
    const body = (await res.json()) as { code: number; data: unknown };
    if (res.status !== 200 || body.code !== 0 || body.data === null) throw new Error(`${origin}${path}: ${res.status} ${JSON.stringify(body)}`);
  }
}
settlePending();

const rssIdle = rssMiB(server.proc.pid)!;
const bareRssIdle = rssMiB(bare.proc.pid)!;
const failures: string[] = [];
const checkRun = (label: string, r: WrkResult) => {
  if (r.non2xx > 0 || r.socketErrors) failures.push(`${label}: ${r.non2xx} non-2xx${r.socketErrors ? `, socket errors ${r.socketErrors}` : ""}`);
};

interface Row {
  point: Point;
  c: number;
  atelier: WrkResult;
  bare: WrkResult;
  atelierRssMax: number;
}
const rows: Row[] = [];
// The bare minimum (same key requests, bare-server.ts /minimum), measured at each concurrency in every round.
const minimum = new Map<number, WrkResult>();
const minTarget: WrkTarget = { url: `${bare.url}/minimum`, header: "X-API-Key", requests: users.map((u) => ({ value: u.key, body: "" })) };
// Interleaved rounds (Atelier, then bare, point by point) so a noisy neighbour hits both alike; the best round counts.
const best = (prev: WrkResult | undefined, r: WrkResult) => (!prev || r.rps > prev.rps ? r : prev);
for (let round = 0; round < ROUNDS; round++) {
  if (!QUICK && round === 0) await runWrk(dataDir, minTarget, { connections: 16, seconds: 1 });
  for (const c of CONCURRENCY) {
    const m = await runWrk(dataDir, minTarget, { connections: c, seconds: SECONDS, watchPid: bare.proc.pid });
    checkRun(`minimum c${c}`, m);
    minimum.set(c, best(minimum.get(c), m));
  }
  for (const p of points) {
    const target = (origin: string, path: string): WrkTarget => ({ url: origin + path, header: p.auth.header, requests: p.auth.requests });
    if (!QUICK && round === 0) {
      await runWrk(dataDir, target(server.url, p.atelier), { connections: 16, seconds: 1 });
      await runWrk(dataDir, target(bare.url, p.bare), { connections: 16, seconds: 1 });
      if (!p.read) settlePending();
    }
    for (const c of CONCURRENCY) {
      const before = countTasks();
      const a = await runWrk(dataDir, target(server.url, p.atelier), { connections: c, seconds: SECONDS, watchPid: server.proc.pid });
      if (!p.read) {
        settlePending();
        // Each accepted request created exactly one task (code 0): the count rose with the requests.
        const created = countTasks() - before;
        if (created < a.rps * SECONDS * 0.9) failures.push(`${p.name} c${c}: ${created} tasks created for ≈${Math.round(a.rps * SECONDS)} requests`);
      }
      const b = await runWrk(dataDir, target(bare.url, p.bare), { connections: c, seconds: SECONDS, watchPid: bare.proc.pid });
      if (!p.read) settlePending();
      checkRun(`${p.name} c${c} atelier`, a);
      checkRun(`${p.name} c${c} bare`, b);
      const row = rows.find((r) => r.point === p && r.c === c);
      if (row) {
        row.atelier = best(row.atelier, a);
        row.bare = best(row.bare, b);
        row.atelierRssMax = Math.max(row.atelierRssMax, a.rssMaxMiB ?? 0);
      } else rows.push({ point: p, c, atelier: a, bare: b, atelierRssMax: a.rssMaxMiB ?? 0 });
    }
  }
}

// ---- generate while a worker process runs the simulator on the same database (the real lifecycle)
const worker = Bun.spawn(["bun", join(ROOT, "app/cli.ts"), "worker"], {
  cwd: dataDir,
  env: { ...server.env, JOBS: "on", JOB_TICK_MS: "250" },
  stdout: "ignore",
  stderr: "inherit",
});
await Bun.sleep(QUICK ? 500 : 1500);
const genPoint = points.find((p) => !p.read)!;
const withWorker = await runWrk(dataDir, { url: server.url + genPoint.atelier, header: genPoint.auth.header, requests: genPoint.auth.requests }, { connections: 16, seconds: SECONDS, watchPid: server.proc.pid });
checkRun("generate with worker", withWorker);
await Bun.sleep(2000);
const done = (db.sqlite!.query("SELECT count(*) AS n FROM generations WHERE status = 'completed' AND error_message IS NULL AND created_at > ?").get(Date.now() - 60_000) as { n: number }).n;
const workerRss = rssMiB(worker.pid, "VmHWM");
worker.kill("SIGTERM");
await worker.exited;
settlePending();

// ---- the rate limiter alone (in this process, on the same database): what each key request pays for it,
// at limits 100, 1,000 and 100,000 per minute, each user's bucket half used (GCRA: one row per user, one statement).
const config = parseConfig({ ...env, DATA_DIR: dataDir, RATE_LIMIT_WINDOW_MS: "60000" });
const limiterUs: Record<number, number> = {};
{
  const LIMITS = [100, 1000, 100_000];
  const n = QUICK ? 500 : 5000;
  const start = Date.now();
  const setups: { limit: number; policy: ReturnType<typeof keyPolicy>; buckets: string[]; checks: number[]; samples: number[] }[] = [];
  for (const limit of LIMITS) {
    const policy = { ...keyPolicy(config, "standard"), limit };
    const buckets = users.map((_, i) => userBucket(`limiter-bench-${limit}-${i}`));
    // Half the quota in use (at most 1,000 requests' worth)…
    for (const b of buckets) for (let j = 0; j < Math.min(limit / 2, 1000); j++) await take(db, b, policy, start);
    setups.push({ limit, policy, buckets, checks: buckets.map(() => 0), samples: [] });
  }
  // …and kept there: check k of a bucket happens k emission intervals after the start (a synthetic clock),
  // so every check is admitted and writes, at every limit — the same work the limiter does under load.
  for (let round = 0; round < 7; round++) {
    for (const s of setups) {
      const t = s.policy.windowMs / s.limit;
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const b = i % s.buckets.length;
        if (!(await take(db, s.buckets[b]!, s.policy, start + ++s.checks[b]! * t)).allowed) throw new Error("limiter bench: a check was denied");
      }
      const c = process.cpuUsage(c0);
      s.samples.push((c.user + c.system) / n);
    }
  }
  for (const s of setups) limiterUs[s.limit] = s.samples.sort((x, y) => x - y)[3]!;
}
const N = QUICK ? 2000 : 20_000;
const tk = process.cpuUsage();
for (let i = 0; i < N; i++) await authenticateApiKey(db, users[i % users.length]!.key, systemClock);
const tkd = process.cpuUsage(tk);
const keyLookupUs = (tkd.user + tkd.system) / N;

const rssPeak = rssMiB(server.proc.pid, "VmHWM")!;
const rssLoadMax = Math.max(...rows.map((r) => r.atelierRssMax), withWorker.rssMaxMiB ?? 0);
const bareRssMax = Math.max(...rows.map((r) => r.bare.rssMaxMiB ?? 0));
await bare.stop();
await server.stop();
db.sqlite!.close();
rmSync(dataDir, { recursive: true, force: true });

// ---- report
const pad = (s: string, n: number) => s.padEnd(n);
const num = (n: number, w = 8) => n.toFixed(0).padStart(w);
console.log(`\nAtelier HTTP benchmark — ${QUICK ? "QUICK (smoke: numbers are not meaningful)" : `${SECONDS}s per point, best of ${ROUNDS} interleaved rounds`}, wrk -t1, ${USERS} users/keys in rotation, ${SEED_PER_USER} tasks each`);
console.log(`load average at start: ${loadAtStart}; at end: ${load()} (2 cores, shared machine: compare ratios, not absolute figures)\n`);
console.log("vs today's same-work baseline (bare-server.ts: the same domain functions and database work, without React Router, better-auth or the guard)");
console.log(`${pad("endpoint", 30)} ${"c".padStart(3)} ${"atelier/s".padStart(9)} ${"p50".padStart(8)} ${"p99".padStart(8)} ${"bare/s".padStart(8)} ${"p50".padStart(8)} ${"p99".padStart(8)} ${"ratio".padStart(6)}  ${"CPU µs/req A/B".padStart(14)} ${"ratio".padStart(6)}`);
for (const r of rows) {
  const ca = r.atelier.cpuUsPerReq ?? NaN;
  const cb = r.bare.cpuUsPerReq ?? NaN;
  console.log(
    `${pad(r.point.name, 30)} ${String(r.c).padStart(3)} ${num(r.atelier.rps, 9)} ${fmtMs(r.atelier.p50).padStart(8)} ${fmtMs(r.atelier.p99).padStart(8)} ${num(r.bare.rps)} ${fmtMs(r.bare.p50).padStart(8)} ${fmtMs(r.bare.p99).padStart(8)} ${(r.atelier.rps / r.bare.rps).toFixed(2).padStart(6)}  ${`${ca.toFixed(0)}/${cb.toFixed(0)}`.padStart(14)} ${(cb / ca).toFixed(2).padStart(6)}`,
  );
}
console.log("ratio = Atelier req/s ÷ bare req/s; CPU ratio = bare CPU per request ÷ Atelier CPU per request (the throughput ratio a quiet machine would show)");
const gen16 = rows.find((r) => !r.point.read && r.c === 16)!;
console.log(`\ngenerate (key) c16 while a worker runs the simulator: ${withWorker.rps.toFixed(0)} req/s, p50 ${fmtMs(withWorker.p50)}, p99 ${fmtMs(withWorker.p99)} (${(withWorker.rps / gen16.atelier.rps).toFixed(2)}× of generate without it); ${done} tasks completed by the worker; worker peak RSS ${workerRss?.toFixed(0)} MiB`);
const keyRow = rows.find((r) => r.point.name === "get-user-credits (key)" && r.c === 16)!;
const keyUs = 1e6 / keyRow.atelier.rps;
const keyCpu = keyRow.atelier.cpuUsPerReq ?? keyUs;
const lim = Object.values(limiterUs);
console.log(
  `rate limiter alone (one statement, CPU µs per check): ${[100, 1000, 100_000].map((l) => `${limiterUs[l]!.toFixed(1)} µs at ${l}/min`).join(", ")} ` +
    `(spread ${((Math.max(...lim) / Math.min(...lim) - 1) * 100).toFixed(0)} %, target ±20 %); ` +
    `key authentication (hash + per-process cache) ${keyLookupUs.toFixed(1)} µs; the limiter is ≈${((limiterUs[100]! / keyCpu) * 100).toFixed(0)}% of a key request to get-user-credits at c16 (${keyCpu.toFixed(0)} µs CPU per request)`,
);
console.log(`server RSS: idle ${rssIdle.toFixed(0)} MiB, under load max ${rssLoadMax.toFixed(0)} MiB, peak (VmHWM) ${rssPeak.toFixed(0)} MiB; bare baseline idle ${bareRssIdle.toFixed(0)} MiB, under load ${bareRssMax.toFixed(0)} MiB`);

console.log(`\nvs the bare minimum (JSON parse, SHA-256 of the key, key row, user row, envelope; same key requests), same run`);
console.log(`${pad("endpoint", 30)} ${"c".padStart(3)} ${"atelier/s".padStart(9)} ${"minimum/s".padStart(9)} ${"ratio".padStart(6)} ${"target".padStart(7)}  ${"CPU µs/req A/min".padStart(16)}`);
for (const r of rows) {
  const m = minimum.get(r.c)!;
  console.log(
    `${pad(r.point.name, 30)} ${String(r.c).padStart(3)} ${num(r.atelier.rps, 9)} ${num(m.rps, 9)} ${(r.atelier.rps / m.rps).toFixed(2).padStart(6)} ${(r.c === 16 && r.point.vsMinimum ? `≥ ${r.point.vsMinimum}` : "").padStart(7)}  ${`${(r.atelier.cpuUsPerReq ?? NaN).toFixed(0)}/${(m.cpuUsPerReq ?? NaN).toFixed(0)}`.padStart(16)}`,
  );
}

console.log("\ntargets (issue 15)");
const verdict = (ok: boolean) => (ok ? "met   " : "MISSED");
for (const r of rows.filter((x) => x.point.vsMinimum && x.c === 16)) {
  const m = minimum.get(16)!;
  const ratio = r.atelier.rps / m.rps;
  const cpu = (m.cpuUsPerReq ?? NaN) / (r.atelier.cpuUsPerReq ?? NaN);
  console.log(`  ${verdict(ratio >= r.point.vsMinimum!)} ${pad(`${r.point.name} c16`, 36)} ${ratio.toFixed(2)}× of the bare minimum (target ≥ ${r.point.vsMinimum}); by CPU per request ${cpu.toFixed(2)}×`);
}
for (const r of rows.filter((x) => x.c === 64)) {
  const limit = r.point.read ? TARGETS.p99AtC64Ms : TARGETS.generateP99AtC64Ms;
  console.log(`  ${verdict(r.atelier.p99 < limit)} ${pad(`${r.point.name} c64`, 36)} p99 ${fmtMs(r.atelier.p99)} (target < ${limit} ms)`);
}
const spread = Math.max(...lim) / Math.min(...lim) - 1;
console.log(`  ${verdict(spread <= TARGETS.limiterSpread)} ${pad("limiter cost at 100 / 1,000 / 100,000", 36)} spread ${(spread * 100).toFixed(0)} % (target ±${TARGETS.limiterSpread * 100} %)`);
console.log(`  ${verdict(rssPeak < TARGETS.rssMiB)} ${pad("server RSS under load", 36)} ${rssPeak.toFixed(0)} MiB peak (target < ${TARGETS.rssMiB} MiB)`);
console.log(`\ntotal ${((performance.now() - t0) / 1000).toFixed(0)} s`);
if (failures.length) {
  console.error(`\nfailed requests:\n  ${failures.join("\n  ")}`);
  process.exit(1);
}
