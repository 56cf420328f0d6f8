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
 * /minimum) and each endpoint's ratio to it (docs/performance.md's targets); the rate
 * limiter's own cost measured alone at limits 100, 1,000 and 100,000 per second (leases, and one statement per check); generate with a worker process running the simulator; and the RSS of
 * the server idle and under load. The machine may be shared: read the ratios.
 *
 *   bun run bench [--quick] [--seconds N] [--rounds N] [--users N] [--baseline-ref <git ref>] [--engine postgres]
 *                 [--only <names>] [--concurrency <list>]
 *
 * --only key,query: measure only the endpoints whose name contains one of these words (e.g. "key" for every
 * key path); --concurrency 1,64: only these concurrencies. A shorter run for one question; the generate-with-
 * a-worker run, the limiter alone and RSS are measured as always.
 *
 * --engine postgres: the same on a throwaway PostgreSQL cluster (tests/support/postgres.ts): the server
 * with DATABASE_URL, the bare baseline doing the same queries with postgres.js (bare-server.ts), the data
 * seeded through the engine-aware handle. CPU per request is the Bun process's only (PostgreSQL's own
 * work is in its processes, for both sides alike); the limiter alone is timed by the clock, not the CPU.
 *
 * --baseline-ref: the same bench, in the same run, against an older commit
 * (built in a temporary git worktree: bun install --frozen-lockfile, bun run
 * build): its server gets the same data and is measured point by point right
 * after this checkout's; a markdown before/after table is printed at the end.
 *
 * --quick: 1 s per point, no warm-up: a smoke check that it runs and prints
 * numbers (CI, tests/ci-suites.json). It asserts nothing about speed; it exits
 * non-zero only when a request failed (non-2xx, socket errors, wrong answers).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Db } from "#db/client";
import { authenticateApiKey } from "~/domain/api-keys/authenticate.server";
import { LeaseLimiter, take } from "~/domain/rate-limits/limiter.server";
import { keyPolicy, userBucket } from "~/domain/rate-limits/policy.server";
import { systemClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { Client, uniqueEmail } from "../support/client";
import { openServerDb } from "../support/db";
import { startPostgres } from "../support/postgres";
import { ROOT, startServer, type TestServer } from "../support/server";
import { fmtMs, load, rssMiB, runWrk, startBare, type WrkResult, type WrkTarget } from "./harness";

const argv = process.argv.slice(2);
const arg = (name: string, def: number) =>
  argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : def;
const QUICK = argv.includes("--quick");
const SECONDS = arg("seconds", QUICK ? 1 : 3);
const ROUNDS = arg("rounds", QUICK ? 1 : 2);
const USERS = arg("users", 20);
const BASELINE_REF = argv.includes("--baseline-ref") ? argv[argv.indexOf("--baseline-ref") + 1] : undefined;
const ENGINE = argv.includes("--engine") ? argv[argv.indexOf("--engine") + 1] : "sqlite";
if (ENGINE !== "sqlite" && ENGINE !== "postgres") throw new Error(`--engine ${ENGINE}: sqlite or postgres`);
const SEED_PER_USER = 200;
const CONCURRENCY = argv.includes("--concurrency")
  ? argv[argv.indexOf("--concurrency") + 1]!.split(",").map(Number)
  : [1, 16, 64];
const ONLY = argv.includes("--only") ? argv[argv.indexOf("--only") + 1]!.split(",") : undefined;
// Targets (docs/performance.md): throughput at c16 as a fraction of the bare minimum; p99 at c64; RSS; the limiter's cost flat in the limit.
const TARGETS = { p99AtC64Ms: 15, generateP99AtC64Ms: 40, rssMiB: 250, limiterSpread: 0.2 };

const loadAtStart = load();
const t0 = performance.now();

/** The older commit, checked out and built in a temporary worktree (removed at the end). */
function buildBaseline(ref: string): { root: string; commit: string } {
  const sh = (cmd: string[], cwd = ROOT) => {
    const r = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString()}`);
    return r.stdout.toString().trim();
  };
  const commit = sh(["git", "rev-parse", "--short", `${ref}^{commit}`]);
  const root = mkdtempSync(join(tmpdir(), "atelier-baseline-"));
  sh(["git", "worktree", "add", "--detach", root, commit]);
  console.error(`baseline ${ref} (${commit}): installing and building in ${root}…`);
  sh(["bun", "install", "--frozen-lockfile"], root);
  sh(["bun", "run", "build"], root);
  return { root, commit };
}
const baseline = BASELINE_REF ? buildBaseline(BASELINE_REF) : undefined;

// Key runs: the tier limit raised far above the load (RATE_LIMIT_*) so nothing is ever denied; the
// limiter does the same work whatever the limit (one row per user, leases of up to 16 tokens; measured below).
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

interface BenchUser {
  cookie: string;
  key: string;
  userId: string;
  genIds: string[];
}
interface Side {
  server: TestServer;
  users: BenchUser[];
  /** The server's database (SQLite file or PostgreSQL), engine-aware. */
  db: Db;
}
// --engine postgres: one throwaway cluster, a database per side.
const pg = ENGINE === "postgres" ? await startPostgres() : undefined;
let sides = 0;
/** One user's SEED_PER_USER tasks in one statement (plain SQL both engines accept: any commit's schema has these columns). */
const SEED_SQL = `INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, result_urls, error_message, credits_cost, deadline_at, created_at, completed_at) VALUES ${Array.from(
  { length: SEED_PER_USER },
  () => "(?, ?, 'image', 'replicate', 'black-forest-labs/flux-schnell', ?, ?, ?, ?, 3, ?, ?, ?)",
).join(", ")}`;
/** A server with USERS users, each with a session, a key and SEED_PER_USER finished generations. */
async function prepareSide(root?: string): Promise<Side> {
  const dataDir = mkdtempSync(join(tmpdir(), "atelier-bench-"));
  const databaseUrl = pg ? await pg.createDatabase(`bench_${sides++}`) : undefined;
  const server = await startServer({ dataDir, env, root, databaseUrl });
  const api = new Client(server.url);
  const users: BenchUser[] = [];
  for (let i = 0; i < USERS; i++) {
    const { cookie, userId } = await api.signUp(uniqueEmail("bench"));
    const key = (await api.post("/api/keys/create", { name: `bench ${i}` }, { cookie })).body.data.key as string;
    users.push({ cookie, key, userId, genIds: [] });
  }
  const db = await openServerDb(dataDir);
  const base = Date.now() - SEED_PER_USER * 60_000;
  for (const u of users) {
    const params: unknown[] = [];
    for (let j = 0; j < SEED_PER_USER; j++) {
      const id = randomUUID();
      const failed = j % 10 === 9;
      const at = base + j * 60_000;
      params.push(
        id,
        u.userId,
        `seeded prompt ${j}: a lighthouse at dusk, oil on canvas`,
        failed ? "failed" : "completed",
        failed ? null : JSON.stringify([`${server.url}/media/${id}/0.png`]),
        failed ? "Replicate failed the prediction: CUDA out of memory" : null,
        at + 600_000,
        at,
        at + 2000,
      );
      u.genIds.push(id);
    }
    await db.raw(SEED_SQL).run(...params);
  }
  return { server, users, db };
}

const current = await prepareSide();
const old = baseline ? await prepareSide(baseline.root) : undefined;
const { server, users } = current;
const dataDir = current.server.dataDir;
const db = current.db;
/** Generate runs leave pending tasks; failing them afterwards keeps each run's reservation sums alike. */
const settlePending = (side: Side = current) =>
  side.db
    .raw(
      "UPDATE generations SET status = 'failed', error_message = 'bench', completed_at = ? WHERE status IN ('pending','processing')",
    )
    .run(Date.now());
const countTasks = async (side: Side = current) =>
  Number((await side.db.raw<{ n: number }>("SELECT count(*) AS n FROM generations").one())!.n);

const bare = await startBare(dataDir, {
  ...env,
  DATABASE_PATH: join(dataDir, "atelier.db"),
  ...(server.databaseUrl ? { DATABASE_URL: server.databaseUrl } : {}),
});

// ---- what is measured
const GENERATE = JSON.stringify({
  ai_type: "image",
  provider: "replicate",
  model: "black-forest-labs/flux-schnell",
  prompt: "bench: a red fox in snow",
});
interface Auth {
  header: string;
  requests: { value: string; body: string }[];
}
type Body = (u: BenchUser, i: number) => string;
const viaKey =
  (body: Body) =>
  (side: Side): Auth => ({
    header: "X-API-Key",
    requests: side.users.map((u, i) => ({ value: u.key, body: body(u, i) })),
  });
const viaSession =
  (body: Body) =>
  (side: Side): Auth => ({
    header: "Cookie",
    requests: side.users.map((u, i) => ({ value: u.cookie, body: body(u, i) })),
  });
interface Point {
  name: string;
  read: boolean;
  /** Target (docs/performance.md): req/s at c16 at least this fraction of the bare minimum's. */
  vsMinimum?: number;
  atelier: string;
  bare: string;
  /** The requests in rotation for one side's users (the bare baseline uses this checkout's). */
  auth: (side: Side) => Auth;
}
const points: Point[] = [
  {
    name: "get-user-credits (session)",
    read: true,
    vsMinimum: 0.5,
    atelier: "/api/get-user-credits",
    bare: "/credits/session",
    auth: viaSession(() => ""),
  },
  {
    name: "get-user-credits (key)",
    read: true,
    vsMinimum: 0.3,
    atelier: "/api/get-user-credits",
    bare: "/credits/key",
    auth: viaKey(() => ""),
  },
  {
    name: "generator/query (key)",
    read: true,
    vsMinimum: 0.25,
    atelier: "/api/generator/query",
    bare: "/query/key",
    auth: viaKey((u, i) => JSON.stringify({ gen_id: u.genIds[(i * 7) % SEED_PER_USER] })),
  },
  {
    name: "generator/history p20 (key)",
    read: true,
    vsMinimum: 0.25,
    atelier: "/api/generator/history",
    bare: "/history/key",
    auth: viaKey((_, i) => JSON.stringify({ page: 1 + (i % 5), page_size: 20 })),
  },
  {
    name: "generator/generate (key)",
    read: false,
    atelier: "/api/generator/generate",
    bare: "/generate/key",
    auth: viaKey(() => GENERATE),
  },
];

const measured = ONLY ? points.filter((p) => ONLY.some((w) => p.name.includes(w))) : points;

// Every target must answer correctly once before it is measured.
for (const p of points) {
  for (const [origin, path, side] of [
    [server.url, p.atelier, current],
    [bare.url, p.bare, current],
    ...(old ? [[old.server.url, p.atelier, old] as const] : []),
  ] as const) {
    const r0 = p.auth(side).requests[0]!;
    const res = await fetch(origin + path, {
      method: "POST",
      headers: { [p.auth(side).header]: r0.value, "content-type": "application/json" },
      body: r0.body || undefined,
    });
    const body = (await res.json()) as { code: number; data: unknown };
    if (res.status !== 200 || body.code !== 0 || body.data === null)
      throw new Error(`${origin}${path}: ${res.status} ${JSON.stringify(body)}`);
  }
}
await settlePending();
if (old) await settlePending(old);

const rssIdle = rssMiB(server.proc.pid)!;
const bareRssIdle = rssMiB(bare.proc.pid)!;
const failures: string[] = [];
const checkRun = (label: string, r: WrkResult) => {
  if (r.non2xx > 0 || r.socketErrors)
    failures.push(`${label}: ${r.non2xx} non-2xx${r.socketErrors ? `, socket errors ${r.socketErrors}` : ""}`);
};

interface Row {
  point: Point;
  c: number;
  atelier: WrkResult;
  bare: WrkResult;
  atelierRssMax: number;
  /** The same point on the --baseline-ref build. */
  before?: WrkResult;
}
const rows: Row[] = [];
// The bare minimum (same key requests, bare-server.ts /minimum), measured at each concurrency in every round.
const minimum = new Map<number, WrkResult>();
const minTarget: WrkTarget = {
  url: `${bare.url}/minimum`,
  header: "X-API-Key",
  requests: users.map((u) => ({ value: u.key, body: "" })),
};
// Interleaved rounds (Atelier, then bare, point by point) so a noisy neighbour hits both alike; the best round counts.
const best = (prev: WrkResult | undefined, r: WrkResult) => (!prev || r.rps > prev.rps ? r : prev);
for (let round = 0; round < ROUNDS; round++) {
  if (!QUICK && round === 0) await runWrk(dataDir, minTarget, { connections: 16, seconds: 1 });
  for (const c of CONCURRENCY) {
    const m = await runWrk(dataDir, minTarget, { connections: c, seconds: SECONDS, watchPid: bare.proc.pid });
    checkRun(`minimum c${c}`, m);
    minimum.set(c, best(minimum.get(c), m));
  }
  for (const p of measured) {
    const target = (origin: string, path: string, side: Side = current): WrkTarget => ({
      url: origin + path,
      ...p.auth(side),
    });
    if (!QUICK && round === 0) {
      await runWrk(dataDir, target(server.url, p.atelier), { connections: 16, seconds: 1 });
      await runWrk(dataDir, target(bare.url, p.bare), { connections: 16, seconds: 1 });
      if (old) await runWrk(dataDir, target(old.server.url, p.atelier, old), { connections: 16, seconds: 1 });
      if (!p.read) {
        await settlePending();
        if (old) await settlePending(old);
      }
    }
    for (const c of CONCURRENCY) {
      const before = await countTasks();
      const a = await runWrk(dataDir, target(server.url, p.atelier), {
        connections: c,
        seconds: SECONDS,
        watchPid: server.proc.pid,
      });
      if (!p.read) {
        await settlePending();
        // Each accepted request created exactly one task (code 0): the count rose with the requests.
        const created = (await countTasks()) - before;
        if (created < a.rps * SECONDS * 0.9)
          failures.push(`${p.name} c${c}: ${created} tasks created for ≈${Math.round(a.rps * SECONDS)} requests`);
      }
      const b = await runWrk(dataDir, target(bare.url, p.bare), {
        connections: c,
        seconds: SECONDS,
        watchPid: bare.proc.pid,
      });
      if (!p.read) await settlePending();
      let o: WrkResult | undefined;
      if (old) {
        o = await runWrk(dataDir, target(old.server.url, p.atelier, old), {
          connections: c,
          seconds: SECONDS,
          watchPid: old.server.proc.pid,
        });
        if (!p.read) await settlePending(old);
        checkRun(`${p.name} c${c} baseline ${baseline!.commit}`, o);
      }
      checkRun(`${p.name} c${c} atelier`, a);
      checkRun(`${p.name} c${c} bare`, b);
      const row = rows.find((r) => r.point === p && r.c === c);
      if (row) {
        row.atelier = best(row.atelier, a);
        row.bare = best(row.bare, b);
        if (o) row.before = best(row.before, o);
        row.atelierRssMax = Math.max(row.atelierRssMax, a.rssMaxMiB ?? 0);
      } else rows.push({ point: p, c, atelier: a, bare: b, before: o, atelierRssMax: a.rssMaxMiB ?? 0 });
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
const withWorker = await runWrk(
  dataDir,
  { url: server.url + genPoint.atelier, ...genPoint.auth(current) },
  { connections: 16, seconds: SECONDS, watchPid: server.proc.pid },
);
checkRun("generate with worker", withWorker);
await Bun.sleep(2000);
const completed = async () =>
  Number(
    (await db
      .raw<{ n: number }>(
        "SELECT count(*) AS n FROM generations WHERE status = 'completed' AND error_message IS NULL AND created_at > ?",
      )
      .one(Date.now() - 60_000))!.n,
  );
let done = await completed();
// The worker starts slower on PostgreSQL (its pool, the product seeding): give a --quick run's first tasks up to 5 s more.
for (let i = 0; done === 0 && i < 20; i++) {
  await Bun.sleep(250);
  done = await completed();
}
const workerRss = rssMiB(worker.pid, "VmHWM");
worker.kill("SIGTERM");
await worker.exited;
await settlePending();

// ---- the rate limiter alone (in this process, on the same database): what each key request pays for it, at limits
// 100, 1,000 and 100,000 per second, each user's bucket a quarter used and kept there (checks at the limit's rate,
// all admitted): the leased limiter the guard uses (LeaseLimiter: a statement per lease of up to 16, the rest from
// memory) and, beside it, the one-statement `take`. Per second, not per minute: a user at 100 per minute sends one
// request per 600 ms, more than a lease's lifetime (250 ms) apart — each is then one statement, as with `take`.
// A quarter used, not half: a lease takes at most a quarter of what fits, so with 50 of 100 free leases stop at 12
// (the cost then depends on the headroom, by design); with 75 free every limit leases 16 and the spread shows
// what the limit itself changes.
const config = parseConfig({ ...env, DATA_DIR: dataDir, RATE_LIMIT_WINDOW_MS: "1000" });
const limiterUs: Record<number, number> = {};
const takeUs: Record<number, number> = {};
const limiterStatements: Record<number, number> = {};
// SQLite: CPU of this process, where the statement runs. PostgreSQL: wall time (one connection, one check at a time),
// as the statement's work is in the database's processes, which this process's CPU time does not see.
const LIMITER_MEASURE = ENGINE === "postgres" ? "wall-clock" : "CPU";
const spentUs =
  ENGINE === "postgres"
    ? () => performance.now() * 1000
    : () => {
        const c = process.cpuUsage();
        return c.user + c.system;
      };
{
  const LIMITS = [100, 1000, 100_000];
  const n = QUICK ? 500 : 5000;
  const start = Date.now();
  type Setup = {
    limit: number;
    leased: boolean;
    limiter: LeaseLimiter;
    policy: ReturnType<typeof keyPolicy>;
    buckets: string[];
    checks: number[];
    samples: number[];
  };
  const setups: Setup[] = [];
  for (const leased of [true, false]) {
    for (const limit of LIMITS) {
      const policy = { ...keyPolicy(config, "standard"), limit };
      const buckets = users.map((_, i) => userBucket(`limiter-bench-${leased ? "lease" : "take"}-${limit}-${i}`));
      // A quarter of the quota in use (at most 1,000 requests' worth)…
      for (const b of buckets) for (let j = 0; j < Math.min(limit / 4, 1000); j++) await take(db, b, policy, start);
      setups.push({
        limit,
        leased,
        limiter: new LeaseLimiter(db),
        policy,
        buckets,
        checks: buckets.map(() => 0),
        samples: [],
      });
    }
  }
  // …and kept there: check k of a bucket happens k emission intervals after the start (a synthetic clock),
  // so every check is admitted, at every limit — the same work the limiter does for a busy user under the limit.
  for (let round = 0; round < 7; round++) {
    // Each round starts at another setup, so none always runs first (after the previous round's garbage).
    for (const s of setups.map((_, i) => setups[(i + round) % setups.length]!)) {
      const t = s.policy.windowMs / s.limit;
      const check = s.leased
        ? (b: string, now: number) => s.limiter.take(b, s.policy, now)
        : (b: string, now: number) => take(db, b, s.policy, now);
      const checks = s.leased ? 16 * n : n; // ≈ 2 µs each: more of them (≈ 150 ms a sample) so a GC pause or a neighbour weighs little
      const c0 = spentUs();
      for (let i = 0; i < checks; i++) {
        const b = i % s.buckets.length;
        if (!(await check(s.buckets[b]!, start + ++s.checks[b]! * t)).allowed)
          throw new Error(`limiter bench: a check was denied (${s.leased ? "leases" : "take"} at ${s.limit})`);
      }
      s.samples.push((spentUs() - c0) / checks);
    }
  }
  for (const s of setups) (s.leased ? limiterUs : takeUs)[s.limit] = s.samples.sort((x, y) => x - y)[3]!;
  for (const s of setups.filter((x) => x.leased))
    limiterStatements[s.limit] = s.limiter.statements / s.checks.reduce((x, y) => x + y, 0);
}
const N = QUICK ? 2000 : 20_000;
const tk = process.cpuUsage();
for (let i = 0; i < N; i++) await authenticateApiKey(db, users[i % users.length]!.key, systemClock);
const tkd = process.cpuUsage(tk);
const keyLookupUs = (tkd.user + tkd.system) / N;

const rssPeak = rssMiB(server.proc.pid, "VmHWM")!;
const oldRssPeak = old ? rssMiB(old.server.proc.pid, "VmHWM") : undefined;
const rssLoadMax = Math.max(...rows.map((r) => r.atelierRssMax), withWorker.rssMaxMiB ?? 0);
const bareRssMax = Math.max(...rows.map((r) => r.bare.rssMaxMiB ?? 0));
const pgVersion = pg ? (await db.raw<{ server_version: string }>("SHOW server_version").one())?.server_version : "";
await bare.stop();
for (const side of old ? [current, old] : [current]) {
  await side.server.stop();
  await side.db.close();
  rmSync(side.server.dataDir, { recursive: true, force: true });
}
await pg?.stop();
if (baseline) {
  Bun.spawnSync(["git", "worktree", "remove", "--force", baseline.root], { cwd: ROOT });
  rmSync(baseline.root, { recursive: true, force: true });
}

// ---- report (markdown tables: they go into issue notes as they are)
const cpu = (r: WrkResult | undefined) => (r?.cpuUsPerReq ?? NaN).toFixed(0);
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "–");
const head = (cols: string[], right = cols.length - 2) => {
  console.log(`| ${cols.join(" | ")} |`);
  console.log(`|${cols.map((_, k) => (k < cols.length - right ? "---" : "---:")).join("|")}|`);
};
console.log(
  `\n## Atelier HTTP benchmark on ${ENGINE === "postgres" ? "PostgreSQL" : "SQLite"} — ${QUICK ? "QUICK (smoke: numbers are not meaningful)" : `${SECONDS}s per point, best of ${ROUNDS} interleaved rounds`}`,
);
console.log(
  `wrk -t1, ${USERS} users/keys in rotation, ${SEED_PER_USER} tasks each; this checkout ${gitHead()}${baseline ? `, baseline ${BASELINE_REF} = ${baseline.commit}` : ""}`,
);
console.log(
  `load average at start: ${loadAtStart}; at end: ${load()} (2 cores, shared machine: compare ratios, not absolute figures)`,
);
if (ENGINE === "postgres") {
  console.log(
    `PostgreSQL ${pgVersion} (throwaway cluster on 127.0.0.1, fsync off; DATABASE_POOL_MAX 10 for both servers); CPU µs/req counts the Bun process only, not PostgreSQL's (alike for both sides); the limiter alone is timed by the clock`,
  );
}

console.log(
  `\n### vs the bare minimum (bare-server.ts /minimum: JSON parse, SHA-256 of the key, key row, user row, envelope), same run\n`,
);
head([
  "endpoint",
  "c",
  "req/s",
  "p50",
  "p99",
  "CPU µs/req",
  "minimum req/s",
  "min p99",
  "min CPU µs/req",
  "ratio",
  "ratio by CPU",
  "target",
]);
for (const r of rows) {
  const m = minimum.get(r.c)!;
  const target =
    r.c === 16 && r.point.vsMinimum
      ? `≥ ${r.point.vsMinimum}`
      : r.c === 64
        ? `p99 < ${r.point.read ? TARGETS.p99AtC64Ms : TARGETS.generateP99AtC64Ms} ms`
        : "";
  console.log(
    `| ${r.point.name} | ${r.c} | ${r.atelier.rps.toFixed(0)} | ${fmtMs(r.atelier.p50)} | ${fmtMs(r.atelier.p99)} | ${cpu(r.atelier)} | ${m.rps.toFixed(0)} | ${fmtMs(m.p99)} | ${cpu(m)} | ${f2(r.atelier.rps / m.rps)} | ${f2((m.cpuUsPerReq ?? NaN) / (r.atelier.cpuUsPerReq ?? NaN))} | ${target} |`,
  );
}
console.log(
  "ratio = Atelier req/s ÷ minimum req/s; ratio by CPU = minimum CPU per request ÷ Atelier CPU per request (what a quiet machine would show)",
);

console.log(
  `\n### vs today's same-work baseline (bare-server.ts: the same domain functions and database work, without React Router, better-auth or the guard)\n`,
);
head(["endpoint", "c", "req/s", "p99", "CPU µs/req", "same-work req/s", "p99", "CPU µs/req", "ratio", "ratio by CPU"]);
for (const r of rows) {
  console.log(
    `| ${r.point.name} | ${r.c} | ${r.atelier.rps.toFixed(0)} | ${fmtMs(r.atelier.p99)} | ${cpu(r.atelier)} | ${r.bare.rps.toFixed(0)} | ${fmtMs(r.bare.p99)} | ${cpu(r.bare)} | ${f2(r.atelier.rps / r.bare.rps)} | ${f2((r.bare.cpuUsPerReq ?? NaN) / (r.atelier.cpuUsPerReq ?? NaN))} |`,
  );
}

if (baseline) {
  console.log(
    `\n### before (${BASELINE_REF} = ${baseline.commit}) / after (${gitHead()}), same run, interleaved point by point\n`,
  );
  head([
    "endpoint",
    "c",
    "before req/s",
    "p99",
    "CPU µs/req",
    "after req/s",
    "p99",
    "CPU µs/req",
    "after ÷ before",
    "CPU before ÷ after",
    "before ÷ min",
    "after ÷ min",
    "after ÷ min by CPU",
  ]);
  for (const r of rows) {
    const m = minimum.get(r.c)!;
    const b = r.before!;
    console.log(
      `| ${r.point.name} | ${r.c} | ${b.rps.toFixed(0)} | ${fmtMs(b.p99)} | ${cpu(b)} | ${r.atelier.rps.toFixed(0)} | ${fmtMs(r.atelier.p99)} | ${cpu(r.atelier)} | ${f2(r.atelier.rps / b.rps)} | ${f2((b.cpuUsPerReq ?? NaN) / (r.atelier.cpuUsPerReq ?? NaN))} | ${f2(b.rps / m.rps)} | ${f2(r.atelier.rps / m.rps)} | ${f2((m.cpuUsPerReq ?? NaN) / (r.atelier.cpuUsPerReq ?? NaN))} |`,
    );
  }
  console.log(`\nRSS peak (VmHWM): before ${oldRssPeak?.toFixed(0)} MiB, after ${rssPeak.toFixed(0)} MiB`);
}

const gen16 = rows.find((r) => !r.point.read && r.c === 16);
console.log(
  `\ngenerate (key) c16 while a worker runs the simulator: ${withWorker.rps.toFixed(0)} req/s, p50 ${fmtMs(withWorker.p50)}, p99 ${fmtMs(withWorker.p99)} (${gen16 ? (withWorker.rps / gen16.atelier.rps).toFixed(2) : "–"}× of generate without it); ${done} tasks completed by the worker; worker peak RSS ${workerRss?.toFixed(0)} MiB`,
);
const keyRow = rows.find((r) => r.point.name === "get-user-credits (key)" && r.c === 16);
const keyCpu = keyRow ? (keyRow.atelier.cpuUsPerReq ?? 1e6 / keyRow.atelier.rps) : NaN;
const lim = Object.values(limiterUs);
console.log(
  `rate limiter alone (leases, ${LIMITER_MEASURE} µs per check): ${[100, 1000, 100_000].map((l) => `${limiterUs[l]!.toFixed(1)} µs at ${l}/s`).join(", ")} ` +
    `(spread ${((Math.max(...lim) / Math.min(...lim) - 1) * 100).toFixed(0)} %, target ±20 %; statements per check ${[100, 1000, 100_000].map((l) => limiterStatements[l]!.toFixed(3)).join(" / ")}); ` +
    `one statement per check (take): ${[100, 1000, 100_000].map((l) => `${takeUs[l]!.toFixed(1)} µs`).join(" / ")}; ` +
    `key authentication (hash + per-process cache) ${keyLookupUs.toFixed(1)} µs; the limiter is ≈${((limiterUs[100]! / keyCpu) * 100).toFixed(0)}% of a key request to get-user-credits at c16 (${keyCpu.toFixed(0)} µs CPU per request)`,
);
console.log(
  `server RSS: idle ${rssIdle.toFixed(0)} MiB, under load max ${rssLoadMax.toFixed(0)} MiB, peak (VmHWM) ${rssPeak.toFixed(0)} MiB; same-work baseline idle ${bareRssIdle.toFixed(0)} MiB, under load ${bareRssMax.toFixed(0)} MiB`,
);

console.log(`\n### targets (issue 15${ENGINE === "postgres" ? ", set for SQLite: shown for reference" : ""})\n`);
const verdict = (ok: boolean) => (ok ? "met" : "**MISSED**");
for (const r of rows.filter((x) => x.point.vsMinimum && x.c === 16)) {
  const m = minimum.get(16)!;
  const ratio = r.atelier.rps / m.rps;
  const byCpu = (m.cpuUsPerReq ?? NaN) / (r.atelier.cpuUsPerReq ?? NaN);
  console.log(
    `- ${verdict(ratio >= r.point.vsMinimum!)} — ${r.point.name} c16: ${ratio.toFixed(2)}× of the bare minimum (target ≥ ${r.point.vsMinimum}); by CPU per request ${byCpu.toFixed(2)}×`,
  );
}
for (const r of rows.filter((x) => x.c === 64)) {
  const limit = r.point.read ? TARGETS.p99AtC64Ms : TARGETS.generateP99AtC64Ms;
  console.log(
    `- ${verdict(r.atelier.p99 < limit)} — ${r.point.name} c64: p99 ${fmtMs(r.atelier.p99)} (target < ${limit} ms)`,
  );
}
const spread = Math.max(...lim) / Math.min(...lim) - 1;
console.log(
  `- ${verdict(spread <= TARGETS.limiterSpread)} — limiter cost at 100 / 1,000 / 100,000: spread ${(spread * 100).toFixed(0)} % (target ±${TARGETS.limiterSpread * 100} %)`,
);
console.log(
  `- ${verdict(rssPeak < TARGETS.rssMiB)} — server RSS under load: ${rssPeak.toFixed(0)} MiB peak (target < ${TARGETS.rssMiB} MiB)`,
);
console.log(`\ntotal ${((performance.now() - t0) / 1000).toFixed(0)} s`);
if (failures.length) {
  console.error(`\nfailed requests:\n  ${failures.join("\n  ")}`);
  process.exit(1);
}

function gitHead(): string {
  const r = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
  const dirty = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "ignore",
  })
    .stdout.toString()
    .trim();
  return `${r.stdout.toString().trim() || "?"}${dirty ? " (+ uncommitted changes)" : ""}`;
}
