/**
 * Query plans of the hot statements, pinned so a new query cannot make a request's cost grow with the user's
 * history again (docs/data-layer.md, "Flat cost as history grows"). The domain runs its own paths — balance,
 * reservation, history pages, the studio's gallery and live summary, the premium check, the claim, completion with
 * its debit, the retention sweep — while every statement it sends is recorded; then each is explained:
 *
 * - SQLite: `EXPLAIN QUERY PLAN`; a `SCAN` of a table that grows with users' history, or `USE TEMP B-TREE` in a
 *   statement over generations, fails;
 * - PostgreSQL: `EXPLAIN` with the statement's own parameters and `enable_seqscan`/`enable_sort` off (the planner
 *   then picks an index wherever one serves): a `Seq Scan` of such a table, or a `Sort` over generations, fails.
 *
 * The debit's live grants are sorted (soonest expiry first, never-expiring last: an order no index gives on both
 * engines); that sort covers the grants with credit left only (credit_grants_live_idx), never the used-up ones.
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, mock, test } from "bun:test";
import { type Db, openDatabase, openPostgres } from "#db/client";
import { findOffering } from "~/domain/catalog";
import { balanceOf, getCredits, grantCredits } from "~/domain/credits/ledger.server";
import { claimDue } from "~/domain/generations/claim.server";
import { createGeneration, createOrReplay } from "~/domain/generations/create.server";
import { galleryNeighbours, listRecent, setHidden } from "~/domain/generations/gallery.server";
import { historyAfterJson, historyPageJson } from "~/domain/generations/history.server";
import { liveSummary } from "~/domain/generations/live.server";
import { completeGeneration } from "~/domain/generations/transitions.server";
import { queryGeneration } from "~/domain/generations/views.server";
import { sweepRetention } from "~/domain/maintenance/retention.server";
import { getActiveSubscription, isPremium } from "~/domain/subscriptions/subscriptions.server";
import { manualClock } from "~/lib/clock";
import { type Postgres, skipWithoutPostgres, startPostgres } from "../../support/postgres";
import { addUserRow } from "../../support/services";

/** Tables that grow with each user's history or with time: never read whole by a hot statement. */
const GROWING = [
  "generations",
  "credit_grants",
  "credit_debits",
  "credit_allocations",
  "orders",
  "order_payments",
  "idempotency_keys",
  "request_joins",
  "session",
  "verification",
  "checkouts",
  "webhook_events",
  "gallery_entries",
];
const CONFIG = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
const flux = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!;
const clock = manualClock();

/** The statements the triggers run on every insert, delete and move of a task (db/migrations: generations_seq_*). */
const TRIGGER_STATEMENTS = [
  "UPDATE generations SET user_seq = user_seq + 1 WHERE user_id = 'u' AND created_at >= 1 AND (created_at > 1 OR id > 'x')",
  "SELECT g.user_seq FROM generations g WHERE g.user_id = 'u' AND g.created_at <= 1 AND (g.created_at < 1 OR g.id < 'x') ORDER BY g.created_at DESC, g.id DESC LIMIT 1",
  "UPDATE generations SET user_seq = user_seq - 1 WHERE user_id = 'u' AND user_seq > 5",
  // gallery_entries_place / _close, generations_gallery_*: a task's places in the gallery's lists.
  "UPDATE gallery_entries SET seq = seq + 1 WHERE user_id = 'u' AND grp = 'g' AND created_at >= 1 AND (created_at > 1 OR gen_id > 'x')",
  "SELECT e.seq FROM gallery_entries e WHERE e.user_id = 'u' AND e.grp = 'g' AND e.created_at <= 1 AND (e.created_at < 1 OR e.gen_id < 'x') ORDER BY e.created_at DESC, e.gen_id DESC LIMIT 1",
  "UPDATE gallery_entries SET seq = seq - 1 WHERE user_id = 'u' AND grp = 'g' AND seq > 5",
  "DELETE FROM gallery_entries WHERE gen_id = 'x' AND grp NOT IN ('', 'image')",
];

/** Runs the hot paths of a user with some history; every statement they send is recorded by the caller. */
async function exercise(db: Db) {
  const u = await addUserRow(db, clock.now());
  for (let i = 0; i < 5; i++) {
    const g = await db.exec(grantCredits(db, { userId: u, amount: 3, source: "admin" }, clock));
    await db.raw("UPDATE credit_grants SET remaining = 0 WHERE id = ?").run(g.id); // used up
  }
  await db.exec(grantCredits(db, { userId: u, amount: 1000, source: "admin" }, clock));
  const create = () =>
    createGeneration(
      db,
      { userId: u, input: { offering: flux, prompt: "p", options: {} }, mode: "simulated", config: CONFIG },
      clock,
    );
  for (let i = 0; i < 6; i++) {
    await create();
    clock.advance(1000);
  }
  await createOrReplay(
    db,
    {
      userId: u,
      input: { offering: flux, prompt: "p", options: {} },
      mode: "simulated",
      config: CONFIG,
      idempotency: { key: "k", requestHash: "h" },
    },
    clock,
  );
  const claimed = await claimDue(db, { owner: "w", limit: 3, leaseMs: 60_000 }, clock);
  for (const t of claimed)
    await completeGeneration(db, { id: t.row.id, owner: "w", resultUrls: ["https://x/1.png"] }, clock);
  const last = await create();
  await db.exec(getCredits(db, u, clock));
  await db.exec(balanceOf(db, u, clock));
  await historyPageJson(db, u, { page: 1, pageSize: 2 });
  await historyPageJson(db, u, { page: 3, pageSize: 2 });
  const first = JSON.parse(await historyAfterJson(db, u, { cursor: "", pageSize: 2 })) as { next_cursor: string };
  await historyAfterJson(db, u, { cursor: first.next_cursor, pageSize: 2 });
  await queryGeneration(db, u, last.id);
  await liveSummary(db, u);
  await listRecent(db, u, { page: 2, pageSize: 2 }, { galleryOnly: true });
  await listRecent(db, u, { page: 2, pageSize: 2 });
  await setHidden(db, u, last.id, true, clock);
  await listRecent(db, u, { page: 1, pageSize: 2 }, { galleryOnly: true });
  for (const f of [{ aiType: "image" }, { status: "completed" }, { aiType: "image", status: "failed" }] as const)
    await listRecent(db, u, { page: 2, pageSize: 1 }, { ...f, galleryOnly: true });
  await listRecent(db, u, { page: 1, pageSize: 2 }, { status: "running", galleryOnly: true });
  await listRecent(db, u, { page: 1, pageSize: 2 }, { aiType: "video", status: "pending", galleryOnly: true });
  await galleryNeighbours(db, claimed[0]!.row);
  await setHidden(db, u, last.id, false, clock);
  await isPremium(db, u, clock);
  await getActiveSubscription(db, u, clock);
  await sweepRetention(db, clock, { webhookRetentionDays: 30 });
}

const touches = (text: string) => GROWING.filter((t) => new RegExp(`["\`\\s.]${t}["\`\\s]|\\b${t}\\b`).test(text));

describe("query plans on SQLite", () => {
  test("no hot statement scans a growing table or sorts a user's tasks", async () => {
    const seen = new Set<string>();
    const proto = Database.prototype as unknown as Record<string, (sql: string, ...rest: unknown[]) => unknown>;
    const originals = { prepare: proto.prepare!, query: proto.query! };
    for (const name of ["prepare", "query"] as const) {
      const original = originals[name];
      proto[name] = function (this: Database, sql: string, ...rest: unknown[]) {
        seen.add(sql);
        return original.call(this, sql, ...rest);
      };
    }
    const db = openDatabase(":memory:");
    try {
      seen.clear(); // the migrations' own statements
      await exercise(db);
    } finally {
      Object.assign(proto, originals);
    }
    const sqlite = (db as unknown as { sqlite: Database }).sqlite;
    const statements = [...seen, ...TRIGGER_STATEMENTS].filter(
      (s) => touches(s).length > 0 && /^\s*(select|update|delete|with)/i.test(s),
    );
    expect(statements.length).toBeGreaterThan(15);
    const problems = (sqlite: Database, label: string) => {
      const found: string[] = [];
      for (const s of statements) {
        const plan = (sqlite.query(`EXPLAIN QUERY PLAN ${s}`).all() as { detail: string }[]).map((r) => r.detail);
        for (const line of plan) {
          const scanned = /^SCAN (\w+)/.exec(line)?.[1];
          if (scanned && GROWING.includes(scanned)) found.push(`${label}: ${line}\n    in ${s}`);
          if (/USE TEMP B-TREE/.test(line) && /\bgenerations\b/.test(s)) found.push(`${label}: ${line}\n    in ${s}`);
        }
      }
      return found;
    };
    expect(problems(sqlite, "no statistics")).toEqual([]);
    // The same plans once ANALYZE has seen a long history of finished tasks (an operator may run it, or
    // PRAGMA optimize): statistics saying "status is mostly completed" must not turn a claim into a scan.
    const analyzed = openDatabase(":memory:");
    const heavy = await addUserRow(analyzed, clock.now());
    await analyzed
      .raw(
        `INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, credits_cost, deadline_at, created_at, completed_at)
         WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2999)
         SELECT 'old-' || i, ?, 'image', 'replicate', 'm', 'p', 'completed', 3, 0, i, i + 1 FROM n`,
      )
      .run(heavy);
    await analyzed.raw("ANALYZE").run();
    expect(problems((analyzed as unknown as { sqlite: Database }).sqlite, "after ANALYZE")).toEqual([]);
    await analyzed.close();
    await db.close();
  });
});

let pg: Postgres | undefined;
describe.skipIf(skipWithoutPostgres())("query plans on PostgreSQL", () => {
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });

  test("no hot statement reads a growing table sequentially or sorts a user's tasks", async () => {
    const real = (await import("postgres")).default;
    const seen = new Map<string, unknown[]>();
    mock.module("postgres", () => ({
      default: (url: string, opts: Record<string, unknown>) =>
        real(url, {
          ...opts,
          debug: (_connection: number, query: string, params: unknown[]) => {
            if (!seen.has(query)) seen.set(query, params);
          },
        }),
    }));
    const url = await pg!.createDatabase("plans");
    const db = await openPostgres(url, { poolMax: 2 });
    try {
      seen.clear();
      await exercise(db);
    } finally {
      await db.close();
    }
    const client = real(url, { max: 1, onnotice: () => {} });
    try {
      await client`SET enable_seqscan = off`;
      await client`SET enable_sort = off`;
      const statements = [...seen].filter(([s]) => touches(s).length > 0 && /^\s*(select|update|delete|with)/i.test(s));
      for (const s of TRIGGER_STATEMENTS) statements.push([s, []]);
      expect(statements.length).toBeGreaterThan(15);
      const problems: string[] = [];
      for (const [s, params] of statements) {
        const rows = await client.begin(async (t) => t.unsafe(`EXPLAIN ${s}`, params as never[]));
        const plan = rows.map((r) => String((r as Record<string, unknown>)["QUERY PLAN"]));
        const text = plan.join("\n");
        for (const line of plan) {
          const scanned = /Seq Scan on (\w+)/.exec(line)?.[1];
          if (scanned && GROWING.includes(scanned)) problems.push(`${text}\n    in ${s}`);
        }
        if (/\bSort\b/.test(text) && /\bgenerations\b/.test(s)) problems.push(`${text}\n    in ${s}`);
      }
      expect(problems).toEqual([]);
    } finally {
      await client.end();
      mock.module("postgres", () => ({ default: real })); // the next file's connections without the recorder
    }
  }, 60_000);
});
