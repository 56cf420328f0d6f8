#!/usr/bin/env bun
/**
 * `bun run bench:growth`: does a request cost the same whatever the user's history (docs/data-layer.md)?
 *
 * Per engine, two servers (the production build, NODE_ENV=production, jobs off) on two databases:
 * - small: a new user and a heavy user with a short history (6 used-up grants: 1,002 finished tasks);
 * - large: a new user and a heavy user with --heavy-tasks finished tasks (default 100,200: 600 used-up grants of 167
 *   tasks each), each task with its debit and its allocation, and as many paid pack orders as grants.
 * The new user has one full history page of finished tasks (20, one used-up grant) on both databases: each request
 * then returns what the heavy user's returns (a page of 20 entries, a gallery with pictures), so heavy/new measures
 * the growth of the history alone. A sign-up-only user's deep pages would be past the end of its history (empty
 * pages): against those, heavy/new measures the shaping of 20 entries, not growth (it is as low on the small
 * database as on the large one).
 * Users, sessions and keys are made over HTTP; the history through bulk SQL both engines accept (one statement per
 * table, rows derived from the user's own rows) that keeps every invariant; after loading, the integrity is checked
 * (SQLite integrity_check and foreign_key_check, every grant's use equal to its allocations, every debit's charge,
 * the task counter, and where this checkout has them the grant counter, the dense history ordinals, the per-(type,
 * status) counters and the gallery lists' places). A failed
 * check stops the run.
 *
 * Then, alternated in each round (wrk c16, a thread and its connections on the other core), for the new and the heavy
 * user of each database: get-user-credits (key), generator/history at random deep pages (key: pages 2,500–4,900 of
 * 20 on the large heavy user, the same share of the history on the others — page 1, its only page, for the new
 * user: every request returns 20 entries), generator/generate (key; the tasks it
 * leaves pending are failed after each point), GET /studio (session). Printed: req/s (best of the rounds), p99,
 * large/small per user, and heavy/new on the large database (the contract: ≥ 0.7), with the load average; and the
 * same ratios from the server process's CPU per request (the lowest of the rounds, as throughput: baseline CPU over
 * measured CPU), which a busy machine disturbs far less than req/s (on PostgreSQL the database's own CPU is not in
 * it).
 *
 *   bun run bench:growth [--smoke] [--engine sqlite|postgres|both] [--heavy-tasks N] [--seconds S] [--rounds R]
 *                        [--paths credits,history,generate,studio] [--connections C] [--root <a built checkout>]
 *
 * --smoke: SQLite only, 2,004 heavy tasks, 1 s per point, one round: it runs and prints (CI); exits non-zero when a
 * request failed or a check did not hold. --paths: measure only these paths (default: all four). --root: serve
 * another built checkout (a before/after run: its own migrations make its schema; the loading SQL only uses columns
 * every version has).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Db } from "#db/client";
import { Client, uniqueEmail } from "../support/client";
import { openServerDb } from "../support/db";
import { type Postgres, startPostgres } from "../support/postgres";
import { startServer, type TestServer } from "../support/server";
import { cpuMs, load, parseWrk, WRK, type WrkResult } from "./harness";

const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : undefined);
const SMOKE = argv.includes("--smoke");
const ENGINE = opt("engine") ?? (SMOKE ? "sqlite" : "both");
const ENGINES = ENGINE === "both" ? ["sqlite", "postgres"] : [ENGINE];
const GRANTS = 600;
/** The new user's history: one full page of the history's default page size (20 tasks, one used-up grant). */
const FRESH_TASKS = 20;
const PER_GRANT = Math.ceil(Number(opt("heavy-tasks") ?? (SMOKE ? 2000 : 100_000)) / GRANTS);
const SECONDS = Number(opt("seconds") ?? (SMOKE ? 1 : 3));
const ROUNDS = Number(opt("rounds") ?? (SMOKE ? 1 : 2));
/** wrk's connections: 16 (the issue's load); `--connections 1` gives one client's latency, requests one at a time. */
const CONNECTIONS = Number(opt("connections") ?? 16);
const ROOT = opt("root");
const COST = 3;

const env = {
  NODE_ENV: "production",
  BETTER_AUTH_SECRET: "bench-secret-bench-secret-bench-secret-0",
  LOG_LEVEL: "warn",
  JOBS: "off",
  RATE_LIMIT_STANDARD: "10000000",
  RATE_LIMIT_WINDOW_MS: "1000",
  SIGNUP_CREDITS: "1000000",
};

interface BenchUser {
  id: string;
  cookie: string;
  key: string;
  /** Finished tasks loaded. */
  tasks: number;
}
interface Side {
  name: "small" | "large";
  server: TestServer;
  db: Db;
  users: { fresh: BenchUser; heavy: BenchUser };
}

/** `WITH RECURSIVE` rows 0 … n−1 (both engines). */
const series = (n: number) => `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${n - 1})`;

/**
 * A history for `userId`: `grants` used-up grants of `perGrant` tasks each, the tasks (finished, one second apart,
 * oldest first), one debit per task and its allocation from the task's grant, and one paid pack order per grant.
 */
async function loadHistory(db: Db, userId: string, grants: number, perGrant: number): Promise<number> {
  const tasks = grants * perGrant;
  const base = Date.now() - 86_400_000 - tasks * 1000;
  const tag = userId.slice(0, 8);
  await db
    .raw(
      `INSERT INTO credit_grants (id, user_id, amount, remaining, source, note, created_at)
       ${series(grants)} SELECT 'g-${tag}-' || i, ?, ${perGrant * COST}, 0, 'order', 'bench', ${base} + i FROM n`,
    )
    .run(userId);
  await db
    .raw(
      `INSERT INTO orders (order_no, user_id, product_id, product_name, interval, amount, status, sub_id, kind, credits, created_at)
       ${series(grants)} SELECT 'o-${tag}-' || i, ?, 'pack', 'Pack', 'one-time', 500, 'paid', 's-${tag}-' || i, 'pack', ${perGrant * COST}, ${base} + i FROM n`,
    )
    .run(userId);
  // In chunks, each followed by ANALYZE on PostgreSQL: the ordinal trigger's plans are made once per session, and a
  // plan made while the table was nearly empty (a sequential scan) would make one long statement quadratic.
  const CHUNK = 10_000;
  for (let from = 0; from < tasks; from += CHUNK) {
    const count = Math.min(CHUNK, tasks - from);
    await db
      .raw(
        `INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, result_urls, credits_cost, deadline_at, created_at, started_at, completed_at)
         WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${from + count - 1})
         SELECT 'h-${tag}-' || i, ?, 'image', 'replicate', 'black-forest-labs/flux-schnell',
           'seeded prompt ' || i || ': a lighthouse at dusk, oil on canvas', 'completed',
           '["http://127.0.0.1/media/h-${tag}-' || i || '/0.png"]', ${COST}, ${base} + i * 1000 + 600000,
           ${base} + i * 1000, ${base} + i * 1000 + 500, ${base} + i * 1000 + 2000 FROM n`,
      )
      .run(userId);
    if (db.engine === "postgres") await db.raw("ANALYZE generations").run();
  }
  await db
    .raw(
      `INSERT INTO credit_debits (id, user_id, gen_id, amount, charged, created_at)
       SELECT 'd-' || id, user_id, id, ${COST}, ${COST}, completed_at FROM generations WHERE user_id = ? AND id LIKE 'h-%'`,
    )
    .run(userId);
  await db
    .raw(
      `INSERT INTO credit_allocations (debit_id, grant_id, amount)
       SELECT 'd-' || id, 'g-${tag}-' || (((created_at - ${base}) / 1000) / ${perGrant}), ${COST}
       FROM generations WHERE user_id = ? AND id LIKE 'h-%'`,
    )
    .run(userId);
  return tasks;
}

const num = (v: unknown) => Number(v ?? 0);

/** The invariants after loading; returns what does not hold. */
async function integrity(db: Db, engine: string): Promise<string[]> {
  const problems: string[] = [];
  const q = async (text: string) => db.raw<Record<string, unknown>>(text).many();
  if (engine === "sqlite") {
    const ok = await q("PRAGMA integrity_check");
    if (String(Object.values(ok[0] ?? {})[0]) !== "ok") problems.push(`integrity_check: ${JSON.stringify(ok)}`);
    const fk = await q("PRAGMA foreign_key_check");
    if (fk.length > 0) problems.push(`foreign_key_check: ${fk.length} rows`);
  }
  const unbalanced = await q(`SELECT g.id FROM credit_grants g
    LEFT JOIN (SELECT grant_id, sum(amount) AS used FROM credit_allocations GROUP BY grant_id) a ON a.grant_id = g.id
    WHERE g.amount - g.remaining <> coalesce(a.used, 0)`);
  if (unbalanced.length > 0) problems.push(`${unbalanced.length} grants whose use differs from their allocations`);
  const debits = await q(`SELECT d.id FROM credit_debits d
    WHERE d.charged <> coalesce((SELECT sum(a.amount) FROM credit_allocations a WHERE a.debit_id = d.id), 0)`);
  if (debits.length > 0) problems.push(`${debits.length} debits whose charge differs from their allocations`);
  const counters = await q(`SELECT g.user_id FROM generations g GROUP BY g.user_id
    HAVING count(*) <> coalesce((SELECT max(s.tasks) FROM user_generation_stats s WHERE s.user_id = g.user_id), 0)`);
  if (counters.length > 0) problems.push(`${counters.length} users whose task counter is wrong`);
  try {
    const seq = await q(`SELECT user_id FROM generations GROUP BY user_id
      HAVING count(DISTINCT user_seq) <> count(*) OR max(user_seq) <> count(*) OR min(user_seq) <> 1`);
    if (seq.length > 0) problems.push(`${seq.length} users whose history ordinals are not 1 … n`);
    const granted = await q(`SELECT g.user_id FROM credit_grants g GROUP BY g.user_id
      HAVING sum(g.amount) <> coalesce((SELECT max(s.granted) FROM user_credit_stats s WHERE s.user_id = g.user_id), 0)`);
    if (granted.length > 0) problems.push(`${granted.length} users whose grant counter is wrong`);
  } catch {
    // A checkout without the ordinals and the grant counter (a --root run of an older one).
  }
  try {
    const counts = await q(`SELECT g.user_id FROM generations g GROUP BY g.user_id, g.ai_type, g.status
      HAVING count(*) <> coalesce((SELECT max(c.tasks) FROM user_task_counts c
          WHERE c.user_id = g.user_id AND c.ai_type = g.ai_type AND c.status = g.status), -1)
        OR count(g.hidden_at) <> (SELECT max(c.hidden) FROM user_task_counts c
          WHERE c.user_id = g.user_id AND c.ai_type = g.ai_type AND c.status = g.status)`);
    if (counts.length > 0) problems.push(`${counts.length} (user, type, status) counters that are wrong`);
    const lists = await q(`SELECT user_id, grp FROM gallery_entries GROUP BY user_id, grp
      HAVING count(DISTINCT seq) <> count(*) OR max(seq) <> count(*) OR min(seq) <> 1`);
    if (lists.length > 0) problems.push(`${lists.length} gallery lists whose places are not 1 … n`);
    const kept = await q(`SELECT g.user_id FROM generations g WHERE g.hidden_at IS NULL GROUP BY g.user_id
      HAVING count(*) <> (SELECT count(*) FROM gallery_entries e WHERE e.user_id = g.user_id AND e.grp = '')
        OR count(*) <> (SELECT count(*) FROM gallery_entries e WHERE e.user_id = g.user_id AND e.grp IN ('image', 'video'))
        OR count(CASE WHEN g.status IN ('completed', 'failed') THEN 1 END) <> (SELECT count(*) FROM gallery_entries e
          WHERE e.user_id = g.user_id AND e.grp IN ('completed', 'failed'))`);
    if (kept.length > 0) problems.push(`${kept.length} users whose gallery lists miss or repeat tasks`);
  } catch {
    // A checkout without the gallery's counters and lists (a --root run of an older one).
  }
  return problems;
}

let pg: Postgres | undefined;
let databases = 0;
async function prepareSide(name: Side["name"], engine: string, grants: number): Promise<Side> {
  const dataDir = mkdtempSync(join(tmpdir(), "atelier-growth-"));
  if (engine === "postgres") pg ??= await startPostgres();
  const databaseUrl = engine === "postgres" ? await pg!.createDatabase(`growth_${databases++}`) : undefined;
  const server = await startServer({ dataDir, env, root: ROOT, databaseUrl, engine: engine as "sqlite" | "postgres" });
  const api = new Client(server.url);
  const user = async (): Promise<BenchUser> => {
    const { cookie, userId } = await api.signUp(uniqueEmail("growth"));
    const key = (await api.post("/api/keys/create", { name: "growth" }, { cookie })).body.data.key as string;
    return { id: userId, cookie, key, tasks: 0 };
  };
  const [fresh, heavy] = [await user(), await user()];
  const db = await openServerDb(dataDir);
  const t0 = performance.now();
  fresh.tasks = await loadHistory(db, fresh.id, 1, FRESH_TASKS);
  heavy.tasks = await loadHistory(db, heavy.id, grants, PER_GRANT);
  const loadMs = performance.now() - t0;
  const problems = await integrity(db, engine);
  console.log(
    `${engine} ${name}: new user ${fresh.tasks} tasks, heavy user ${heavy.tasks.toLocaleString("en")} tasks, ${grants} used-up grants, loaded in ${(loadMs / 1000).toFixed(1)} s; integrity ${problems.length === 0 ? "ok" : problems.join("; ")}`,
  );
  if (problems.length > 0) throw new Error(`integrity after loading: ${problems.join("; ")}`);
  if (engine === "sqlite") await db.raw("PRAGMA wal_checkpoint(TRUNCATE)").many();
  else await db.raw("ANALYZE").run();
  return { name, server, db, users: { fresh, heavy } };
}

const LUA = `local reqs = {}
local i = 0
init = function(args)
  local header = os.getenv("BENCH_HEADER")
  local method = os.getenv("BENCH_METHOD")
  for line in io.lines(os.getenv("BENCH_FILE")) do
    local tab = string.find(line, "\\t", 1, true)
    local value = string.sub(line, 1, tab - 1)
    local body = string.sub(line, tab + 1)
    local headers = { ["Host"] = wrk.host .. ":" .. wrk.port }
    if method == "POST" then
      headers["Content-Type"] = "application/json"
      headers["Content-Length"] = tostring(#body)
    else
      body = nil
    end
    headers[header] = value
    reqs[#reqs + 1] = wrk.format(method, os.getenv("BENCH_PATH"), headers, body)
  end
end
request = function()
  i = i % #reqs + 1
  return reqs[i]
end
`;
const work = mkdtempSync(join(tmpdir(), "atelier-growth-wrk-"));
writeFileSync(join(work, "growth.lua"), LUA);
let files = 0;

interface Path {
  /** Its name for --paths. */
  key: string;
  name: string;
  method: "GET" | "POST";
  path: string;
  header: string;
  /** Lines of the rotation for this user: header value and body. */
  requests(u: BenchUser): { value: string; body: string }[];
}
/**
 * Deep history pages: 2,500–4,900 of 20 on 100,000 tasks, the same share (50 %–98 %) of any other history; on a
 * history of one page (the new user's) that is page 1, so every request returns a full page. Drawn anew for each
 * point: on a long history most are pages the server has not built yet (SQLite keeps built pages in the process),
 * on a short one all of them are after the first point (docs/performance.md, "Deep history pages as history grows").
 */
const deepPages = (u: BenchUser) => {
  const pages = Math.max(1, Math.floor(u.tasks / 20));
  return Array.from({ length: 200 }, () => ({
    value: u.key,
    body: JSON.stringify({ page: Math.max(1, Math.floor(pages * (0.5 + Math.random() * 0.48))), page_size: 20 }),
  }));
};
const GENERATE = JSON.stringify({
  ai_type: "image",
  provider: "replicate",
  model: "black-forest-labs/flux-schnell",
  prompt: "growth: a red fox in snow",
});
const paths: Path[] = [
  {
    key: "credits",
    name: "get-user-credits (key)",
    method: "POST",
    path: "/api/get-user-credits",
    header: "X-API-Key",
    requests: (u) => [{ value: u.key, body: "" }],
  },
  {
    key: "history",
    name: "history, deep random pages (key)",
    method: "POST",
    path: "/api/generator/history",
    header: "X-API-Key",
    requests: deepPages,
  },
  {
    key: "generate",
    name: "generate (key)",
    method: "POST",
    path: "/api/generator/generate",
    header: "X-API-Key",
    requests: (u) => [{ value: u.key, body: GENERATE }],
  },
  {
    key: "studio",
    name: "GET /studio (session)",
    method: "GET",
    path: "/studio",
    header: "Cookie",
    requests: (u) => [{ value: u.cookie, body: "" }],
  },
];

const chosen = opt("paths")?.split(",") ?? paths.map((p) => p.key);
const unknown = chosen.filter((k) => !paths.some((p) => p.key === k));
if (unknown.length > 0) {
  console.error(`--paths: unknown ${unknown.join(", ")} (known: ${paths.map((p) => p.key).join(", ")})`);
  rmSync(work, { recursive: true, force: true });
  process.exit(2);
}
const measured = paths.filter((p) => chosen.includes(p.key));

async function wrk(side: Side, path: Path, u: BenchUser): Promise<WrkResult> {
  const file = join(work, `requests-${files++}.txt`);
  writeFileSync(
    file,
    `${path
      .requests(u)
      .map((r) => `${r.value}\t${r.body}`)
      .join("\n")}\n`,
  );
  const cpu0 = cpuMs(side.server.proc.pid);
  const proc = Bun.spawn(
    [
      WRK,
      "-t1",
      `-c${CONNECTIONS}`,
      // A page render is slow enough that on a busy machine a short point can end before 16 renders answer (seen
      // with 3 s at a load average of 12, which the smoke then counts as a failure): at least 5 s.
      `-d${path.method === "GET" ? Math.max(5, SECONDS) : SECONDS}s`,
      "--timeout",
      "10s",
      "--latency",
      "-s",
      join(work, "growth.lua"),
      side.server.url,
    ],
    {
      env: {
        ...process.env,
        BENCH_HEADER: path.header,
        BENCH_FILE: file,
        BENCH_PATH: path.path,
        BENCH_METHOD: path.method,
      },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const cpu1 = cpuMs(side.server.proc.pid);
  const r = parseWrk(out);
  // No answer within the point (a page slower than the point on a busy machine): 0 req/s, except in the smoke.
  if (r.requests === 0 && !SMOKE) return { ...r, rps: 0, p99: NaN, rssMaxMiB: undefined, cpuUsPerReq: undefined };
  if (!(r.rps > 0) || r.non2xx > 0 || r.socketErrors !== "") {
    const t0 = performance.now();
    const probe = await fetch(`${side.server.url}${path.path}`, {
      method: path.method,
      headers: { [path.header]: path.requests(u)[0]!.value },
      body: path.method === "POST" ? path.requests(u)[0]!.body : undefined,
    });
    console.error(`one request: HTTP ${probe.status} in ${(performance.now() - t0).toFixed(0)} ms`);
    throw new Error(`${side.name} ${path.name}: ${r.non2xx} non-2xx, socket errors '${r.socketErrors}'\n${out}`);
  }
  if (path.path.endsWith("/generate")) {
    await side.db
      .raw(
        "UPDATE generations SET status = 'failed', error_message = 'bench', completed_at = ? WHERE status IN ('pending', 'processing')",
      )
      .run(Date.now());
  }
  const cpuUsPerReq = cpu0 !== undefined && cpu1 !== undefined ? ((cpu1 - cpu0) * 1000) / r.requests : undefined;
  return { ...r, rssMaxMiB: undefined, cpuUsPerReq };
}

/** Checks that each rotation answers as expected once (history: a full page) before anything is measured. */
async function answersOnce(side: Side) {
  for (const u of [side.users.fresh, side.users.heavy]) {
    const { value, body } = deepPages(u)[0]!;
    const res = await fetch(`${side.server.url}/api/generator/history`, {
      method: "POST",
      headers: { "x-api-key": value },
      body,
    });
    const json = (await res.json()) as { code: number; data: { generations: unknown[]; total: number } };
    const want = Math.min(20, u.tasks);
    if (json.code !== 0 || json.data.generations.length !== want || json.data.total !== u.tasks)
      throw new Error(`${side.name}: history answered ${JSON.stringify(json).slice(0, 300)}`);
  }
}

const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en") : "-");
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? (a / b).toFixed(2) : "-");
let failed = false;
try {
  for (const engine of ENGINES) {
    const small = await prepareSide("small", engine, 6);
    const large = await prepareSide("large", engine, GRANTS);
    try {
      for (const side of [small, large]) await answersOnce(side);
      const best = new Map<string, WrkResult>();
      /** The server's CPU per request, the lowest of the rounds: steadier than req/s on a shared machine. */
      const leastCpu = new Map<string, number>();
      const loads: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        loads.push(load());
        for (const path of measured)
          for (const side of [small, large])
            for (const who of ["fresh", "heavy"] as const) {
              const r = await wrk(side, path, side.users[who]);
              const k = `${path.name}/${side.name}/${who}`;
              if (!best.has(k) || best.get(k)!.rps < r.rps) best.set(k, r);
              leastCpu.set(k, Math.min(leastCpu.get(k) ?? Infinity, r.cpuUsPerReq ?? Infinity));
            }
      }
      loads.push(load());
      console.log(
        `\n${engine}: wrk c${CONNECTIONS}, ${SECONDS} s per point, best of ${ROUNDS} round(s); load average ${loads.join(" → ")}`,
      );
      console.log(
        "| path | user | small req/s (p99) | large req/s (p99) | large/small | heavy/new on large | server CPU µs/req small → large | large/small by CPU | heavy/new by CPU |\n|---|---|---|---|---|---|---|---|---|",
      );
      const cpu = (path: Path, side: string, who: string) => leastCpu.get(`${path.name}/${side}/${who}`) ?? Infinity;
      for (const path of measured)
        for (const who of ["fresh", "heavy"] as const) {
          const s = best.get(`${path.name}/small/${who}`)!;
          const l = best.get(`${path.name}/large/${who}`)!;
          const vsNew = who === "heavy" ? ratio(l.rps, best.get(`${path.name}/large/fresh`)!.rps) : "";
          // As throughput: the CPU a request of the baseline costs over the CPU one of the measured costs.
          const [cs, cl] = [cpu(path, "small", who), cpu(path, "large", who)];
          const cpuVsNew = who === "heavy" ? ratio(cpu(path, "large", "fresh"), cl) : "";
          console.log(
            `| ${path.name} | ${who === "fresh" ? "new" : "heavy"} | ${fmt(s.rps)} (${s.p99.toFixed(1)} ms) | ${fmt(l.rps)} (${l.p99.toFixed(1)} ms) | ${ratio(l.rps, s.rps)} | ${vsNew} | ${fmt(cs)} → ${fmt(cl)} | ${ratio(cs, cl)} | ${cpuVsNew} |`,
          );
        }
    } finally {
      for (const side of [small, large]) {
        await side.db.close();
        await side.server.dispose();
      }
    }
  }
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await pg?.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
