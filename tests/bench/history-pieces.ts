#!/usr/bin/env bun
import { randomUUID } from "node:crypto";
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
import { openDatabase } from "#db/client";
import { historyPageJson } from "~/domain/generations/history.server";
import { readJsonBody } from "~/http/api.server";
import { createAuth } from "~/http/auth.server";
import { systemClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { envelopeResponse, okBodyText } from "~/lib/envelope";
import { cpuPerCall, seedBenchUsers } from "./harness";

const dir = mkdtempSync(join(tmpdir(), "histmicro-"));
const config = {
  ...parseConfig({ DATA_DIR: dir, LOG_LEVEL: "silent", RATE_LIMIT_STANDARD: "10000000", RATE_LIMIT_WINDOW_MS: "1000" }),
  authSecret: "unit-test-secret-unit-test-secret-0123",
};
const db = openDatabase(join(dir, "atelier.db"));
const clock = systemClock;
(globalThis as any)[Symbol.for("atelier.services")] = { config, db, clock, auth: createAuth(config, db, clock) };
const { action } = await import("~/routes/api/generator/history");

const users = await seedBenchUsers(db, clock, {
  prompt: (j) => `seeded prompt ${j}: a lighthouse at dusk, oil on canvas`,
  failedEvery: 10,
  mediaBase: "http://127.0.0.1:3000/media",
});
const measure = (name: string, n: number, f: (i: number) => unknown) => cpuPerCall(name, n, f);
const N = Number(process.argv[2] ?? 5000);
const BODY = JSON.stringify({ page: 1, page_size: 20 });
const req = (i: number, body = BODY) =>
  new Request("http://localhost/api/generator/history", {
    method: "POST",
    headers: { "x-api-key": users[i % 20]!.key, "content-type": "application/json" },
    body,
  });
const page = (i: number) => ({ page: 1 + (i % 5), pageSize: 20 });
await measure("route action history p20 (key), response text", N, async (i) =>
  (await action({ request: req(i) } as any)).text(),
);
await measure("route action history p20 (key)", N, (i) => action({ request: req(i) } as any));
await measure("new Request (not in the server's cost)", N, (i) => req(i));
await measure("historyPageJson (pages 1-5 of 20)", N, (i) => historyPageJson(db, users[i % 20]!.id, page(i)));
await measure("ids statement", N, (i) =>
  db
    .raw("SELECT id FROM generations WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?")
    .many(users[i % 20]!.id, 20, (i % 5) * 20),
);
await measure("count(*) (before)", N, (i) =>
  db.raw("SELECT count(*) AS n FROM generations WHERE user_id = ?").one(users[i % 20]!.id),
);
await measure("counter + version (after)", N, (i) =>
  db.raw("SELECT tasks AS n, tasks_version AS v FROM user_generation_stats WHERE user_id = ?").one(users[i % 20]!.id),
);
await measure("readJsonBody", N, (i) => readJsonBody(req(i)));
const text = await historyPageJson(db, users[0]!.id, page(0));
await measure("okBodyText + envelopeResponse", N, () => envelopeResponse(okBodyText(text)));
await measure("… + response.text()", N, () => envelopeResponse(okBodyText(text)).text());
const pageText = async () =>
  console.log(`page text: ${text.length} chars; load: ${(await Bun.$`uptime`.text()).trim()}`);
// A pending task on page 1 of every user: page 1 is built on every request (ids, the pending entry read, the rest remembered).
for (const u of users)
  await db
    .raw(
      "INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, credits_cost, deadline_at, created_at) VALUES (?, ?, 'image','replicate','black-forest-labs/flux-schnell','pending one','pending',3,?,?)",
    )
    .run(randomUUID(), u.id, Date.now() + 600_000, Date.now() + 1000);
await measure("historyPageJson, page 1 with a pending task", N, (i) =>
  historyPageJson(db, users[i % 20]!.id, { page: 1, pageSize: 20 }),
);
await pageText();
