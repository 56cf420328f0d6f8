#!/usr/bin/env bun
/**
 * `bun tests/bench/history-pieces.ts`: where a history request's CPU goes, in process (`process.cpuUsage`, three
 * runs, µs per call, lowest first) on a WAL file database like the server's: 20 users with keys and 200 finished
 * tasks each (the bench's data). The route action is called with a `Request` (guard, limiter, body, the page,
 * envelope) without the HTTP server and React Router. docs/performance.md, "Session 5: history".
 *
 *   bun tests/bench/history-pieces.ts [calls per run, default 5000]
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { openDatabase } from "#db/client";
import { createAuth } from "~/lib/auth.server";
import { systemClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { grantCredits } from "~/domain/credits/ledger.server";
import { createApiKey } from "~/domain/api-keys/keys.server";
import { addUserRow } from "../support/services";
import { historyPageJson } from "~/domain/generations/generations.server";
import { readJsonBody } from "~/lib/api.server";
import { okBodyText, envelopeResponse } from "~/lib/envelope";

const dir = mkdtempSync(join(tmpdir(), "histmicro-"));
const config = { ...parseConfig({ DATA_DIR: dir, LOG_LEVEL: "silent", RATE_LIMIT_STANDARD: "10000000", RATE_LIMIT_WINDOW_MS: "1000" }), authSecret: "unit-test-secret-unit-test-secret-0123" };
const db = openDatabase(join(dir, "atelier.db"));
const clock = systemClock;
(globalThis as any)[Symbol.for("atelier.services")] = { config, db, clock, auth: createAuth(config, db, clock) };
const { action } = await import("~/routes/api/generator/history");

const users: { id: string; key: string }[] = [];
for (let i = 0; i < 20; i++) {
  const id = await addUserRow(db, Date.now());
  await db.tx(function* (t) { yield* grantCredits(t, { userId: id, amount: 1_000_000, source: "signup" }, clock); });
  const k = await createApiKey(db, { userId: id, name: "k" }, clock);
  const base = Date.now() - 200 * 60_000;
  for (let j = 0; j < 200; j++) {
    const gid = randomUUID();
    const failed = j % 10 === 9;
    await db
      .raw("INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, result_urls, error_message, credits_cost, deadline_at, created_at, completed_at) VALUES (?, ?, 'image','replicate','black-forest-labs/flux-schnell',?,?,?,?,3,?,?,?)")
      .run(gid, id, `seeded prompt ${j}: a lighthouse at dusk, oil on canvas`, failed ? "failed" : "completed", failed ? null : JSON.stringify([`http://127.0.0.1:3000/media/${gid}/0.png`]), failed ? "Replicate failed the prediction: CUDA out of memory" : null, base + j * 60_000 + 600_000, base + j * 60_000, base + j * 60_000 + 2000);
  }
  users.push({ id, key: k.key });
}

async function measure(name: string, n: number, f: (i: number) => unknown) {
  for (let i = 0; i < 500; i++) await f(i);
  const results: number[] = [];
  for (let r = 0; r < 3; r++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await f(i);
    const d = process.cpuUsage(c0);
    results.push((d.user + d.system) / n);
  }
  results.sort((a, b) => a - b);
  console.log(`${name.padEnd(48)} ${results.map((x) => x.toFixed(1)).join(" / ")} µs`);
}
const N = Number(process.argv[2] ?? 5000);
const BODY = JSON.stringify({ page: 1, page_size: 20 });
const req = (i: number, body = BODY) => new Request("http://localhost/api/generator/history", { method: "POST", headers: { "x-api-key": users[i % 20]!.key, "content-type": "application/json" }, body });
const page = (i: number) => ({ page: 1 + (i % 5), pageSize: 20 });
await measure("route action history p20 (key), response text", N, async (i) => (await action({ request: req(i) } as any)).text());
await measure("route action history p20 (key)", N, (i) => action({ request: req(i) } as any));
await measure("new Request (not in the server's cost)", N, (i) => req(i));
await measure("historyPageJson (pages 1-5 of 20)", N, (i) => historyPageJson(db, users[i % 20]!.id, page(i)));
await measure("ids statement", N, (i) => db.raw("SELECT id FROM generations WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?").many(users[i % 20]!.id, 20, (i % 5) * 20));
await measure("count(*) (before)", N, (i) => db.raw("SELECT count(*) AS n FROM generations WHERE user_id = ?").one(users[i % 20]!.id));
await measure("counter + version (after)", N, (i) => db.raw("SELECT tasks AS n, tasks_version AS v FROM user_generation_stats WHERE user_id = ?").one(users[i % 20]!.id));
await measure("readJsonBody", N, (i) => readJsonBody(req(i)));
const text = await historyPageJson(db, users[0]!.id, page(0));
await measure("okBodyText + envelopeResponse", N, () => envelopeResponse(okBodyText(text)));
await measure("… + response.text()", N, () => envelopeResponse(okBodyText(text)).text());
const pageText = async () => console.log(`page text: ${text.length} chars; load: ${(await Bun.$`uptime`.text()).trim()}`);
// A pending task on page 1 of every user: page 1 is built on every request (ids, the pending entry read, the rest remembered).
for (const u of users) await db.raw("INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, credits_cost, deadline_at, created_at) VALUES (?, ?, 'image','replicate','black-forest-labs/flux-schnell','pending one','pending',3,?,?)").run(randomUUID(), u.id, Date.now() + 600_000, Date.now() + 1000);
await measure("historyPageJson, page 1 with a pending task", N, (i) => historyPageJson(db, users[i % 20]!.id, { page: 1, pageSize: 20 }));
await pageText();
