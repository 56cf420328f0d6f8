#!/usr/bin/env bun
/**
 * Backup time for a database holding N generations (default 100,000) spread
 * over 1,000 users with their credit grants and debits, using the same
 * `backupDatabase` (VACUUM INTO + integrity check) as `atelier backup`.
 * Usage: bun tests/bench/backup.ts [generations=100000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "#db/client";
import { backupDatabase } from "~/server/backup.server";

const N = Number(process.argv[2] ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), "atelier-backup-bench-"));
const db = openDatabase(join(dir, "atelier.db"));
const sql = db.sqlite!;
const users = 1000;
const now = Date.now();
const t0 = performance.now();
sql.transaction(() => {
  const u = sql.prepare(
    "INSERT INTO user (id, name, email, email_verified, created_at, updated_at, invite_code, is_affiliate) VALUES (?, ?, ?, 0, ?, ?, ?, 0)",
  );
  const g = sql.prepare(
    "INSERT INTO credit_grants (id, user_id, amount, remaining, source, expires_at, created_at) VALUES (?, ?, 1000, 500, 'admin', NULL, ?)",
  );
  for (let i = 0; i < users; i++) {
    u.run(`u${i}`, `User ${i}`, `u${i}@example.test`, now, now, `INV${i}`);
    g.run(`g${i}`, `u${i}`, now);
  }
  const gen = sql.prepare(
    "INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, options, status, result_urls, credits_cost, mode, deadline_at, created_at, completed_at) VALUES (?, ?, 'image', 'replicate', 'black-forest-labs/flux-schnell', ?, '{}', 'completed', ?, 3, 'simulated', ?, ?, ?)",
  );
  const deb = sql.prepare(
    "INSERT INTO credit_debits (id, user_id, gen_id, amount, charged, created_at) VALUES (?, ?, ?, 3, 3, ?)",
  );
  for (let i = 0; i < N; i++) {
    const id = crypto.randomUUID();
    const user = `u${i % users}`;
    gen.run(
      id,
      user,
      `a watercolor fox number ${i} in a misty forest at dawn`,
      JSON.stringify([`https://atelier.example.com/media/${id}/0.png`]),
      now,
      now - i * 1000,
      now - i * 1000 + 1500,
    );
    deb.run(crypto.randomUUID(), user, id, now);
  }
})();
const fill = performance.now() - t0;
const t1 = performance.now();
const r = backupDatabase(db, join(dir, "copy.db"));
const total = performance.now() - t1;
console.log(`filled ${N} generations for ${users} users in ${(fill / 1000).toFixed(1)} s`);
console.log(
  `backup of ${(r.bytes / 1024 / 1024).toFixed(1)} MiB: VACUUM INTO ${r.ms.toFixed(0)} ms; with the integrity check of the copy ${total.toFixed(0)} ms`,
);
db.sqlite!.close();
rmSync(dir, { recursive: true, force: true });
