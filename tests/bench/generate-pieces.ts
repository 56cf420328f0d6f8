#!/usr/bin/env bun
import { randomUUID } from "node:crypto";
/**
 * `bun run bench:generate-pieces`: where a generate request's CPU goes, and the job runner's work per task,
 * in process (`process.cpuUsage`, median of 3 runs, µs per call) on a WAL file database like the server's:
 * 20 users with keys and 200 finished tasks each, pending tasks failed every 2,000 creates as `bun run bench`
 * does. The route action is called with a `Request` (guard, limiter, body, validation, the reservation
 * transaction, envelope) without the HTTP server and React Router. Run it in an older checkout for a before/after
 * (it uses only long-standing functions). docs/performance.md, "Session 4: generate".
 *
 *   bun run bench:generate-pieces [calls per run, default 3000] [--engine postgres]
 *
 * --engine postgres: the same on a throwaway PostgreSQL cluster (the CPU of this process: the Bun side only);
 * the SQLite-only pieces (the raw insert, the empty transaction) are left out.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase, openPostgres } from "#db/client";
import { availableCredits, getCredits, reservedCredits } from "~/domain/credits/ledger.server";
import { createGeneration } from "~/domain/generations/create.server";
import { validateGenerateInput } from "~/domain/generations/validate.server";
import { createAuth } from "~/http/auth.server";
import { ENDPOINTS } from "~/http/endpoints.server";
import { systemClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { startPostgres } from "../support/postgres";
import { cpuPerCall, seedBenchUsers } from "./harness";

const dir = mkdtempSync(join(tmpdir(), "genmicro-"));
const config = {
  ...parseConfig({ DATA_DIR: dir, LOG_LEVEL: "silent", RATE_LIMIT_STANDARD: "10000000", RATE_LIMIT_WINDOW_MS: "1000" }),
  authSecret: "unit-test-secret-unit-test-secret-0123",
};
const ENGINE = process.argv.includes("--engine") ? process.argv[process.argv.indexOf("--engine") + 1] : "sqlite";
const pg = ENGINE === "postgres" ? await startPostgres() : undefined;
const db: Db = pg ? await openPostgres(pg.url) : openDatabase(join(dir, "atelier.db"));
const clock = systemClock;
(globalThis as any)[Symbol.for("atelier.services")] = { config, db, clock, auth: createAuth(config, db, clock) };
const { action } = await import("~/routes/api/generator/generate");
const { action: creditsAction } = await import("~/routes/api/get-user-credits");

const users = await seedBenchUsers(db, clock);
const BODY = {
  ai_type: "image",
  provider: "replicate",
  model: "black-forest-labs/flux-schnell",
  prompt: "bench: a red fox in snow",
};
const BODYS = JSON.stringify(BODY);
const settle = () =>
  db
    .raw("UPDATE generations SET status = 'failed', completed_at = ? WHERE status IN ('pending','processing')")
    .run(Date.now());

const measure = (name: string, n: number, f: (i: number) => unknown, every = 0) =>
  cpuPerCall(name, n, f, { warmup: 300, pad: 44, uncounted: { every: every || Infinity, fn: settle } });
const N = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 3000);
const EVERY = 2000; // pending per run like the bench (settle every 2000 creates ≈ 100 pending per user)
const parsed = validateGenerateInput(BODY);
const req = (i: number, path = "/api/generator/generate", body = BODYS) =>
  new Request(`http://localhost${path}`, {
    method: "POST",
    headers: { "x-api-key": users[i % 20]!.key, "content-type": "application/json" },
    body,
  });
await measure("route action generate (key)", N, (i) => action({ request: req(i) } as any), EVERY);
await measure("route action get-user-credits (key)", N, (i) =>
  creditsAction({ request: req(i, "/api/get-user-credits", "") } as any),
);
await measure("zod body schema parse", N * 10, () => ENDPOINTS["/api/generator/generate"].body.safeParse(BODY));
await measure("validateGenerateInput", N * 10, () => validateGenerateInput(BODY));
await measure(
  "createGeneration (whole tx)",
  N,
  (i) => createGeneration(db, { userId: users[i % 20]!.id, input: parsed, mode: "simulated", config }, clock),
  EVERY,
);
await measure("getCredits", N, (i) => db.exec(getCredits(db, users[i % 20]!.id, clock)));
// reserved with ~100 pending per user
for (let i = 0; i < 2000; i++)
  await createGeneration(db, { userId: users[i % 20]!.id, input: parsed, mode: "simulated", config }, clock);
await measure("reservedCredits (100 pending/user)", N, (i) => db.exec(reservedCredits(db, users[i % 20]!.id)));
await settle();
await measure("availableCredits (both sums, 0 pending)", N, (i) =>
  db.exec(availableCredits(db, users[i % 20]!.id, clock)),
);
await measure("reservedCredits (0 pending)", N, (i) => db.exec(reservedCredits(db, users[i % 20]!.id)));
if (!pg) {
  await measure("empty tx (BEGIN IMMEDIATE/COMMIT)", N, () =>
    db.tx(function* () {
      return 1;
    }),
  );
  const { generations } = await import("#db/schema");
  const rowOf = (i: number) => ({
    id: randomUUID(),
    userId: users[i % 20]!.id,
    aiType: "image",
    provider: "replicate",
    model: "black-forest-labs/flux-schnell",
    prompt: "p",
    options: "{}",
    status: "pending",
    creditsCost: 3,
    mode: "simulated",
    deadlineAt: Date.now() + 1000,
    createdAt: new Date(),
  });
  const sqlite = db.sqlite!;
  const raw = sqlite.prepare(
    "INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, options, status, credits_cost, mode, deadline_at, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
  );
  await measure(
    "raw prepared insert in tx",
    N,
    (i) =>
      db.tx(function* () {
        const r = rowOf(i);
        raw.run(
          r.id,
          r.userId,
          r.aiType,
          r.provider,
          r.model,
          r.prompt,
          r.options,
          r.status,
          r.creditsCost,
          r.mode,
          r.deadlineAt,
          r.createdAt.getTime(),
        );
      }),
    EVERY,
  );
}
const { getGenerationRuntime } = await import("~/http/generation-runtime.server");

// ---- the runner's work per task (claims of 8 with a backlog of 2,000 pending tasks, then completion + debit + outbox)
const { claimDue } = await import("~/domain/generations/claim.server");
const { completeGeneration, schedulePoll } = await import("~/domain/generations/transitions.server");
const { renderAssets } = await import("~/providers/simulator/simulator.server");
async function runnerRound(label: string) {
  await settle();
  for (let i = 0; i < 2000; i++)
    await createGeneration(db, { userId: users[i % 20]!.id, input: parsed, mode: "simulated", config }, clock);
  let c0 = process.cpuUsage();
  const claimed = [];
  for (let i = 0; i < 200; i++)
    claimed.push(...(await claimDue(db, { owner: "bench", limit: 8, leaseMs: 60_000, probe: false }, clock)));
  let d = process.cpuUsage(c0);
  const claimUs = (d.user + d.system) / 200;
  c0 = process.cpuUsage();
  for (const t of claimed.slice(0, 800))
    await schedulePoll(db, { id: t.row.id, owner: "bench", nextPollAt: Date.now() - 1, countPoll: true });
  d = process.cpuUsage(c0);
  const pollUs = (d.user + d.system) / 800;
  c0 = process.cpuUsage();
  for (const t of claimed.slice(800))
    await completeGeneration(db, { id: t.row.id, owner: "bench", resultUrls: ["http://x/media/a.png"] }, clock);
  d = process.cpuUsage(c0);
  const completeUs = (d.user + d.system) / (claimed.length - 800);
  console.log(
    `${label.padEnd(44)} claim round (8 of a 2,000 backlog) ${claimUs.toFixed(0)} µs · schedulePoll ${pollUs.toFixed(0)} µs · complete + debit ${completeUs.toFixed(0)} µs`,
  );
}
for (let r = 0; r < 3; r++) await runnerRound("runner");
const fox = {
  aiType: "image",
  provider: "replicate",
  model: "black-forest-labs/flux-schnell",
  options: {},
  prompt: "bench: a red fox in snow",
} as const;
await measure("simulator render, the same request", 200, () => renderAssets(fox as any));
await measure("simulator render, a new prompt each time", 200, (i) =>
  renderAssets({ ...fox, prompt: `bench ${i} ${Math.random()}` } as any),
);
await db.close();
await pg?.stop();
process.exit(0);
