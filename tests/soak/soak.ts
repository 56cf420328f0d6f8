#!/usr/bin/env bun
/**
 * `bun run soak [--seconds 60] [--clients 64] [--users 16]`: load and soak
 * test. One production server with the simulator (SIMULATOR_DELAY_MS small)
 * and its job runner; CLIENTS concurrent clients (half by session, half by
 * X-API-Key) mixing generate / query / history / ping for SECONDS. Then a
 * drain, and the checks:
 *
 *   - zero 5xx (and zero transport errors);
 *   - zero lost tasks: every accepted gen_id exists, ends completed or failed,
 *     and the query endpoint says so; no task the API did not accept exists;
 *   - nothing left pending or processing after the drain;
 *   - per user, the ledger balances: total_credits − Σ debits charged =
 *     left_credits (both from the API), and Σ debits = Σ cost of the user's
 *     completed tasks, one debit per completed task, none for failed ones;
 *   - `[simulate:fail]` tasks failed with a message, the others completed.
 *
 * Exits 1 when a check fails. A short variant runs in CI (tests/ci-suites.json).
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { rssMiB } from "../bench/harness";
import { Client, uniqueEmail } from "../support/client";
import { startServer } from "../support/server";

const argv = process.argv.slice(2);
const arg = (name: string, def: number) =>
  argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : def;
const SECONDS = arg("seconds", 60);
const CLIENTS = arg("clients", 64);
const USERS = arg("users", 16);
const DRAIN_TIMEOUT_MS = arg("drain-seconds", 120) * 1000;
const SIGNUP_CREDITS = 3000;

const loadStart = loadavg()[0]!.toFixed(2);
const dataDir = mkdtempSync(join(tmpdir(), "atelier-soak-"));
const server = await startServer({
  dataDir,
  env: {
    SIMULATOR_DELAY_MS: "100",
    JOB_TICK_MS: "50",
    JOB_CONCURRENCY: "32",
    SIGNUP_CREDITS: String(SIGNUP_CREDITS),
    RATE_LIMIT_STANDARD: "1000000",
    LOG_LEVEL: "warn",
  },
});
const api = new Client(server.url);

interface User {
  userId: string;
  cookie: string;
  key: string;
  accepted: Set<string>;
  doomed: Set<string>;
}
const users: User[] = [];
for (let i = 0; i < USERS; i++) {
  const { cookie, userId } = await api.signUp(uniqueEmail("soak"));
  const key = (await api.post("/api/keys/create", { name: "soak" }, { cookie })).body.data.key as string;
  users.push({ userId, cookie, key, accepted: new Set(), doomed: new Set() });
}

const KINDS = [
  { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" }, // async, 3
  { ai_type: "image", provider: "openai", model: "dall-e-3" }, // sync, 5
  { ai_type: "image", provider: "kling", model: "kling-v1" }, // async, 4
  { ai_type: "video", provider: "runway", model: "gen4.5" }, // async, 10
] as const;

type Op = "generate" | "query" | "history" | "ping";
const stats = new Map<Op, { n: number; ms: number[]; code1: Map<string, number> }>();
for (const op of ["generate", "query", "history", "ping"] as Op[]) stats.set(op, { n: 0, ms: [], code1: new Map() });
const serverErrors: string[] = [];
const transportErrors: string[] = [];
let rssMax = 0;

const pick = (): Op => {
  const r = Math.random();
  return r < 0.3 ? "generate" : r < 0.7 ? "query" : r < 0.9 ? "history" : "ping";
};

async function call(op: Op, path: string, body: unknown, headers: Record<string, string>) {
  const t0 = performance.now();
  let res: Response;
  try {
    res = await fetch(server.url + path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  } catch (e) {
    transportErrors.push(`${op}: ${(e as Error).message}`);
    return null;
  }
  const text = await res.text();
  const s = stats.get(op)!;
  s.n++;
  s.ms.push(performance.now() - t0);
  if (res.status >= 500) {
    serverErrors.push(`${op} → HTTP ${res.status}: ${text.slice(0, 200)}`);
    return null;
  }
  const env = JSON.parse(text) as { code: number; message: string; data: any };
  if (env.code !== 0) {
    const m = env.message.replace(/\d+/g, "N");
    s.code1.set(m, (s.code1.get(m) ?? 0) + 1);
  }
  return env;
}

async function client(n: number, deadline: number) {
  const u = users[n % USERS]!;
  const headers: Record<string, string> = n % 2 === 0 ? { cookie: u.cookie } : { "x-api-key": u.key };
  let i = 0;
  while (Date.now() < deadline) {
    const op = pick();
    i++;
    if (op === "generate") {
      const kind = KINDS[(n + i) % KINDS.length]!;
      const doomed = Math.random() < 0.1;
      const prompt = `soak ${n}/${i}${doomed ? " [simulate:fail]" : ""}`;
      const r = await call(op, "/api/generator/generate", { ...kind, prompt }, headers);
      if (r?.code === 0) {
        u.accepted.add(r.data.gen_id);
        if (doomed) u.doomed.add(r.data.gen_id);
      }
    } else if (op === "query") {
      const ids = [...u.accepted];
      const id = ids.length ? ids[Math.floor(Math.random() * ids.length)]! : "unknown-gen-id";
      const r = await call(op, "/api/generator/query", { gen_id: id }, headers);
      if (r && ids.length && r.code !== 0) serverErrors.push(`query of an accepted task answered ${r.message}`);
    } else if (op === "history") {
      await call(op, "/api/generator/history", { page: 1 + (i % 3), page_size: 20 }, headers);
    } else {
      await call(op, "/api/ping", {}, headers);
    }
  }
}

const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssMiB(server.proc.pid) ?? 0)), 500);
const t0 = Date.now();
await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n, t0 + SECONDS * 1000)));
const loadSeconds = (Date.now() - t0) / 1000;

// ---- drain: the runner finishes every accepted task
const db = new Database(join(dataDir, "atelier.db"), { readonly: true });
const unfinished = () =>
  (db.query("SELECT count(*) AS n FROM generations WHERE status IN ('pending','processing')").get() as { n: number }).n;
const backlog = unfinished();
const d0 = Date.now();
while (unfinished() > 0 && Date.now() - d0 < DRAIN_TIMEOUT_MS) await Bun.sleep(200);
const drainSeconds = (Date.now() - d0) / 1000;
clearInterval(sampler);

// ---- checks
const failures: string[] = [];
const check = (ok: boolean, what: string) => {
  if (!ok) failures.push(what);
};
check(
  serverErrors.length === 0,
  `${serverErrors.length} 5xx or wrong answers, e.g. ${serverErrors.slice(0, 3).join(" | ")}`,
);
check(
  transportErrors.length === 0,
  `${transportErrors.length} transport errors, e.g. ${transportErrors.slice(0, 3).join(" | ")}`,
);
check(unfinished() === 0, `${unfinished()} tasks still pending/processing ${drainSeconds}s after the load`);

let accepted = 0;
let completed = 0;
let failed = 0;
for (const u of users) {
  accepted += u.accepted.size;
  const rows = db
    .query("SELECT id, status, credits_cost AS cost, error_message AS err FROM generations WHERE user_id = ?")
    .all(u.userId) as { id: string; status: string; cost: number; err: string | null }[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  check(
    rows.length === u.accepted.size,
    `user ${u.userId}: ${rows.length} tasks in the database, ${u.accepted.size} accepted by the API`,
  );
  for (const id of u.accepted) {
    const r = byId.get(id);
    if (!r) {
      check(false, `lost task ${id}`);
      continue;
    }
    check(r.status === "completed" || r.status === "failed", `task ${id} ended ${r.status}`);
    if (u.doomed.has(id)) check(r.status === "failed" && !!r.err, `task ${id} ([simulate:fail]) ended ${r.status}`);
    else check(r.status === "completed", `task ${id} ended ${r.status}: ${r.err}`);
    if (r.status === "completed") completed++;
    if (r.status === "failed") failed++;
  }
  // The API's view of a sample of tasks agrees with the database.
  for (const id of [...u.accepted].slice(0, 5)) {
    const q = await api.post("/api/generator/query", { gen_id: id }, { cookie: u.cookie });
    check(q.body.code === 0 && q.body.data.status === byId.get(id)?.status, `query ${id}: ${JSON.stringify(q.body)}`);
  }

  const credits = (await api.post("/api/get-user-credits", undefined, { cookie: u.cookie })).body.data as {
    left_credits: number;
    total_credits: number;
  };
  const grants = (
    db.query("SELECT coalesce(sum(amount),0) AS n FROM credit_grants WHERE user_id = ?").get(u.userId) as { n: number }
  ).n;
  const debits = db
    .query(
      "SELECT coalesce(sum(charged),0) AS charged, coalesce(sum(amount),0) AS amount, count(*) AS n FROM credit_debits WHERE user_id = ?",
    )
    .get(u.userId) as { charged: number; amount: number; n: number };
  const done = rows.filter((r) => r.status === "completed");
  const spent = done.reduce((a, r) => a + r.cost, 0);
  check(
    credits.total_credits === grants,
    `user ${u.userId}: total_credits ${credits.total_credits} ≠ Σ grants ${grants}`,
  );
  check(
    credits.total_credits - debits.charged === credits.left_credits,
    `user ${u.userId}: total ${credits.total_credits} − charged ${debits.charged} ≠ left ${credits.left_credits}`,
  );
  check(
    debits.amount === spent && debits.charged === spent,
    `user ${u.userId}: debits ${debits.amount}/${debits.charged} ≠ Σ cost of completed tasks ${spent}`,
  );
  check(debits.n === done.length, `user ${u.userId}: ${debits.n} debits for ${done.length} completed tasks`);
  check(credits.left_credits >= 0, `user ${u.userId}: negative balance ${credits.left_credits}`);
}
const debitsOfFailed = (
  db
    .query(
      "SELECT count(*) AS n FROM credit_debits c JOIN generations g ON g.id = c.gen_id WHERE g.status != 'completed'",
    )
    .get() as { n: number }
).n;
check(debitsOfFailed === 0, `${debitsOfFailed} debits for tasks that did not complete`);
const rssAfter = rssMiB(server.proc.pid) ?? 0;
db.close();
await server.stop();

// ---- report
const pct = (xs: number[], p: number) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const total = [...stats.values()].reduce((a, s) => a + s.n, 0);
console.log(
  `\nsoak: ${CLIENTS} clients, ${USERS} users (half session, half key), ${loadSeconds.toFixed(0)} s; load average at start ${loadStart}, now ${loadavg()[0]!.toFixed(2)} (2 cores, shared)`,
);
console.log(`${total} requests, ${(total / loadSeconds).toFixed(0)} req/s overall`);
for (const [op, s] of stats) {
  const errs = [...s.code1].map(([m, n]) => `${n}× "${m}"`).join(", ");
  console.log(
    `  ${op.padEnd(9)} ${String(s.n).padStart(7)}  p50 ${pct(s.ms, 50).toFixed(1)} ms  p99 ${pct(s.ms, 99).toFixed(1)} ms${errs ? `  (code 1: ${errs})` : ""}`,
  );
}
console.log(
  `tasks: ${accepted} accepted, ${completed} completed, ${failed} failed; backlog at end of load ${backlog}, drained in ${drainSeconds.toFixed(1)} s`,
);
console.log(
  `5xx: ${serverErrors.length}; transport errors: ${transportErrors.length}; server RSS max ${rssMax.toFixed(0)} MiB, after drain ${rssAfter.toFixed(0)} MiB`,
);
rmSync(dataDir, { recursive: true, force: true });
if (failures.length) {
  console.error(`\nSOAK FAILED (${failures.length} checks):\n  ${failures.slice(0, 30).join("\n  ")}`);
  process.exit(1);
}
console.log("soak: all checks passed (no 5xx, no lost or stuck task, every ledger balances)");
