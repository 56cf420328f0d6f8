#!/usr/bin/env bun
/**
 * End-to-end job throughput: N image tasks (default 2,000) created through the
 * domain, run by the real job runner with the simulator at 0 ms delay —
 * claims, submit/poll transitions, PNG rendering, files written to disk, and
 * completion + debit transactions included — on a temporary SQLite file.
 *
 * Baseline measured in the same run: rendering the same prompts in a plain
 * loop (the floor of the work per task). The machine is shared: compare the
 * ratio, not the absolute figures.
 *
 *   bun run bench:jobs [--tasks 2000] [--concurrency 8] [--runners 1] [--min 300] [--engine postgres] [--history N]
 *
 * `--history N`: every task belongs to one user whose ledger already holds N finished tasks, each with its debit and
 * allocation, and N / 167 used-up grants (bulk SQL both engines accept, as `bun run bench:growth` loads them). Run it
 * with `--history 0` (the same single user, new) and a large N in a row: the claim and the debit must not grow with
 * the ledger (docs/data-layer.md, "Flat cost as history grows").
 *
 * `--engine postgres`: the same on a throwaway PostgreSQL cluster (tests/support/postgres.ts); each runner gets
 * its own connection pool, as separate nodes would, and claims with FOR UPDATE SKIP LOCKED.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase, openPostgres, run } from "#db/client";
import { user } from "#db/schema";
import { createRunner } from "#jobs/runner";
import { findOffering } from "~/domain/catalog";
import { grantCredits } from "~/domain/credits/ledger.server";
import { createGeneration } from "~/domain/generations/create.server";
import { createRegistry } from "~/domain/generations/registry.server";
import { validateGenerateInput } from "~/domain/generations/validate.server";
import { systemClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { renderAssets } from "~/providers/simulator/simulator.server";
import { localStorageFor } from "~/storage/local.server";
import { startPostgres } from "../support/postgres";

process.env.LOG_LEVEL ??= "warn";

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const TASKS = arg("tasks", 2000);
const CONCURRENCY = arg("concurrency", 8);
const RUNNERS = arg("runners", 1);
const MIN = arg("min", 0);
const ENGINE = process.argv.includes("postgres") ? "postgres" : "sqlite";
const HISTORY = arg("history", -1);

const dir = mkdtempSync(join(tmpdir(), "atelier-bench-"));
const config = parseConfig({
  DATA_DIR: dir,
  SIMULATOR_DELAY_MS: "0",
  JOB_CONCURRENCY: String(CONCURRENCY),
  PUBLIC_URL: "http://localhost:3000",
});
const pg = ENGINE === "postgres" ? await startPostgres() : undefined;
const db = pg ? await openPostgres(pg.url, { poolMax: 10 }) : openDatabase(config.databasePath);
const clock = systemClock;
const providers = createRegistry(config, clock);
const storage = localStorageFor(config.mediaDir, config.publicUrl);

// Users with enough credits, and the tasks (a mix of sync and async image providers).
const USERS = 200;
const offerings = [
  findOffering("image", "replicate", "black-forest-labs/flux-schnell")!,
  findOffering("image", "openai", "dall-e-3")!,
  findOffering("image", "kling", "kling-v1")!,
];
const userIds: string[] = [];
await db.tx(function* (tx) {
  for (let i = 0; i < USERS; i++) {
    const id = crypto.randomUUID();
    userIds.push(id);
    yield* run(
      tx.insert(user).values({
        id,
        name: `bench ${i}`,
        email: `bench${i}@example.test`,
        createdAt: new Date(),
        updatedAt: new Date(),
        inviteCode: `BENCH${i}`,
      }),
    );
    yield* grantCredits(tx, { userId: id, amount: 1_000_000, source: "admin" }, clock);
  }
});
/** N finished tasks with their debits and allocations, and the used-up grants that paid them, for one user. */
async function loadHistory(userId: string, tasks: number) {
  const PER_GRANT = 167;
  const grants = Math.ceil(tasks / PER_GRANT);
  const base = Date.now() - 86_400_000 - tasks * 1000;
  const series = (from: number, to: number) =>
    `WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to})`;
  await db
    .raw(
      `INSERT INTO credit_grants (id, user_id, amount, remaining, source, note, created_at)
       ${series(0, grants - 1)} SELECT 'g-old-' || i, ?, ${PER_GRANT * 3}, 0, 'order', 'bench', ${base} + i FROM n`,
    )
    .run(userId);
  for (let from = 0; from < tasks; from += 10_000) {
    const to = Math.min(tasks, from + 10_000) - 1;
    await db
      .raw(
        `INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, result_urls, credits_cost, deadline_at, created_at, started_at, completed_at)
         ${series(from, to)} SELECT 'h-' || i, ?, 'image', 'replicate', 'black-forest-labs/flux-schnell', 'old ' || i,
           'completed', '["http://localhost/media/h-' || i || '/0.png"]', 3, ${base} + i * 1000 + 600000,
           ${base} + i * 1000, ${base} + i * 1000 + 500, ${base} + i * 1000 + 2000 FROM n`,
      )
      .run(userId);
    if (pg) await db.raw("ANALYZE generations").run(); // the triggers' plans, made once per session (growth.bench.ts)
  }
  await db
    .raw(
      `INSERT INTO credit_debits (id, user_id, gen_id, amount, charged, created_at)
       SELECT 'd-' || id, user_id, id, 3, 3, completed_at FROM generations WHERE user_id = ? AND id LIKE 'h-%'`,
    )
    .run(userId);
  await db
    .raw(
      `INSERT INTO credit_allocations (debit_id, grant_id, amount)
       SELECT 'd-' || id, 'g-old-' || (((created_at - ${base}) / 1000) / ${PER_GRANT}), 3
       FROM generations WHERE user_id = ? AND id LIKE 'h-%'`,
    )
    .run(userId);
  if (pg) await db.raw("ANALYZE").run();
}
const owners = HISTORY >= 0 ? [userIds[0]!] : userIds;
if (HISTORY > 0) {
  const l0 = performance.now();
  await loadHistory(owners[0]!, HISTORY);
  console.log(
    `history: ${HISTORY} finished tasks loaded for the tasks' owner in ${(performance.now() - l0).toFixed(0)} ms`,
  );
}
const prompts = Array.from(
  { length: TASKS },
  (_, i) => `benchmark task ${i}: a watercolour harbour at dusk, boats and gulls`,
);

let t0 = performance.now();
for (let i = 0; i < TASKS; i++) {
  const o = offerings[i % offerings.length]!;
  const input = validateGenerateInput({ ai_type: o.aiType, provider: o.provider, model: o.model, prompt: prompts[i] });
  await createGeneration(db, { userId: owners[i % owners.length]!, input, mode: "simulated", config }, clock);
}
const createMs = performance.now() - t0;

// Baseline: rendering alone, same prompts and models (so the same shapes and marks), same process.
const baseN = Math.min(TASKS, 500);
const render = (i: number) => {
  const o = offerings[i % offerings.length]!;
  return renderAssets({
    aiType: o.aiType,
    provider: o.provider,
    model: o.model,
    options: {},
    specs: o.options,
    label: o.label,
    prompt: prompts[i]!,
  });
};
for (let i = 0; i < 50; i++) render(i); // warm-up
t0 = performance.now();
for (let i = 0; i < baseN; i++) render(i);
const renderPerSec = baseN / ((performance.now() - t0) / 1000);

const runnerDbs: Db[] = [];
for (let i = 0; i < RUNNERS; i++)
  runnerDbs.push(pg && i > 0 ? await openPostgres(pg.url, { poolMax: 10, migrate: false }) : db);
const runners = runnerDbs.map((rdb, i) =>
  createRunner({ db: rdb, clock, config, providers, storage, owner: `bench-${i}` }),
);
const unfinishedQuery = db.raw<{ n: number }>("SELECT sum(unfinished) AS n FROM user_generation_stats");
const unfinished = async () => Number((await unfinishedQuery.one())?.n ?? 0);

t0 = performance.now();
const cpu0 = process.cpuUsage();
for (const r of runners) r.start();
while ((await unfinished()) > 0) await Bun.sleep(5);
const runMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const cpuMs = (cpu.user + cpu.system) / 1000;
await Promise.all(runners.map((r) => r.stop(1000)));

const counts = (await db
  .raw(`SELECT
  sum(CASE WHEN status = 'completed' THEN 1 ELSE 0 END) AS completed, sum(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS failed,
  (SELECT count(*) FROM credit_debits WHERE gen_id NOT LIKE 'h-%') AS debits, sum(attempts) AS submits, sum(poll_count) AS polls
  FROM generations WHERE id NOT LIKE 'h-%'`)
  .one())!;
const done = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Number(v)])) as {
  completed: number;
  failed: number;
  debits: number;
  submits: number;
  polls: number;
};

const tps = TASKS / (runMs / 1000);
const agg = { claim: 0, provider: 0, store: 0, db: 0, claims: 0, steps: 0 };
for (const r of runners) {
  const s = r.stats();
  agg.claim += s.ms.claim;
  agg.provider += s.ms.provider;
  agg.store += s.ms.store;
  agg.db += s.ms.db;
  agg.claims += s.claims;
  agg.steps += s.steps;
}
const pct = (ms: number) => `${((ms / runMs) * 100).toFixed(0)}%`.padStart(4);
const f = (n: number) => n.toFixed(1).padStart(8);
const renderMs = (TASKS / renderPerSec) * 1000;
const syncMs = agg.claim + agg.db + renderMs;

console.log(
  `Atelier job runner benchmark — shared 2-core machine (load average ${loadavg()[0]!.toFixed(1)}): read the ratio`,
);
console.log(
  `engine ${ENGINE}; tasks ${TASKS} (image: replicate/openai/kling, simulated, 0 ms delay), runners ${RUNNERS} × concurrency ${CONCURRENCY}${HISTORY >= 0 ? `; one owner with ${HISTORY} finished tasks before` : ""}`,
);
console.log(
  `results: ${done.completed} completed, ${done.failed} failed, ${done.debits} debits, ${done.submits} submits, ${done.polls} extra polls`,
);
console.log(
  `create: ${TASKS} tasks in ${createMs.toFixed(0)} ms (${Math.round(TASKS / (createMs / 1000))}/s, one write transaction each; not in the figure below)`,
);
console.log(`END-TO-END: ${Math.round(tps)} tasks/s (${runMs.toFixed(0)} ms for ${TASKS})`);
// On a busy shared machine wall time mostly measures the neighbours; CPU time per task is what this process spent.
console.log(
  `CPU: ${((cpuMs / TASKS) * 1000).toFixed(0)} µs per task (all threads) → ${Math.round(TASKS / (cpuMs / 1000))} tasks per CPU-second`,
);
console.log(
  `baseline, same run: rendering alone ${Math.round(renderPerSec)} PNG/s → end-to-end = ${(tps / renderPerSec).toFixed(2)}× render-only`,
);
console.log(`where the time goes (one event loop; ${agg.steps} steps, ${agg.claims} claim rounds):`);
console.log(
  `  claim transactions        ${f(agg.claim)} ms ${pct(agg.claim)}  (${((agg.claim / agg.claims) * 1000).toFixed(0)} µs per round)`,
);
console.log(
  `  transitions (+ debit)     ${f(agg.db)} ms ${pct(agg.db)}  (${((agg.db / TASKS) * 1000).toFixed(0)} µs per task)`,
);
console.log(
  `  PNG rendering (baseline)  ${f(renderMs)} ms ${pct(renderMs)}  (${((renderMs / TASKS) * 1000).toFixed(0)} µs per task)`,
);
console.log(
  `  the rest                  ${f(Math.max(0, runMs - syncMs))} ms ${pct(Math.max(0, runMs - syncMs))}  (file writes, promise scheduling, idle)`,
);
console.log(
  `  (in-flight wall time, overlapping across ${CONCURRENCY} slots: provider calls ${agg.provider.toFixed(0)} ms, file storage ${agg.store.toFixed(0)} ms)`,
);

for (const d of new Set([db, ...runnerDbs])) await d.close();
await pg?.stop();
rmSync(dir, { recursive: true, force: true });
const ok = done.completed === TASKS && done.debits === TASKS && tps >= MIN;
if (!ok)
  console.error(
    `FAILED: ${done.completed}/${TASKS} completed, ${done.debits} debits, ${Math.round(tps)} tasks/s (min ${MIN})`,
  );
process.exit(ok ? 0 : 1);
