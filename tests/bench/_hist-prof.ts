import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { openDatabase } from "#db/client";
import { createAuth } from "~/lib/auth.server";
import { systemClock as clock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { grantCredits } from "~/domain/credits/ledger.server";
import { createApiKey } from "~/domain/api-keys/keys.server";
import { addUserRow } from "../support/services";
const dir = mkdtempSync(join(tmpdir(), "histprof-"));
const config = { ...parseConfig({ DATA_DIR: dir, LOG_LEVEL: "silent", RATE_LIMIT_STANDARD: "10000000", RATE_LIMIT_WINDOW_MS: "1000" }), authSecret: "unit-test-secret-unit-test-secret-0123" };
const db = openDatabase(join(dir, "atelier.db"));
(globalThis as any)[Symbol.for("atelier.services")] = { config, db, clock, auth: createAuth(config, db, clock) };
const { action } = await import("~/routes/api/generator/history");
const users: { id: string; key: string }[] = [];
for (let i = 0; i < 20; i++) {
  const id = await addUserRow(db, Date.now());
  const k = await createApiKey(db, { userId: id, name: "k" }, clock);
  for (let j = 0; j < 200; j++) await db.raw("INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, result_urls, credits_cost, deadline_at, created_at, completed_at) VALUES (?, ?, 'image','replicate','black-forest-labs/flux-schnell','seeded prompt: a lighthouse at dusk','completed', ?, 3, 0, ?, ?)").run(randomUUID(), id, JSON.stringify([`http://127.0.0.1:3000/media/x/0.png`]), Date.now() - j * 1000, Date.now());
  users.push({ id, key: k.key });
}
const BODY = JSON.stringify({ page: 1, page_size: 20 });
const N = 30000;
const c0 = process.cpuUsage();
for (let i = 0; i < N; i++) {
  const r = await action({ request: new Request("http://localhost/api/generator/history", { method: "POST", headers: { "x-api-key": users[i % 20]!.key, "content-type": "application/json" }, body: BODY }) } as any);
  await r.arrayBuffer();
}
const d = process.cpuUsage(c0);
console.log(`${((d.user + d.system) / N).toFixed(1)} µs per call`);
