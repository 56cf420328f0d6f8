/**
 * The per-user task counter (user_generation_stats.tasks, docs/decisions/089-task-counter-triggers.md): the history's total without a count(*) per
 * request. Database triggers keep it on every insert, delete and change of owner of a task; the migration that made
 * it backfills existing tasks. Checked on both engines against the truth (count(*) of the user's rows) after every
 * path that adds or removes tasks: the reservation (created, refused, replayed by Idempotency-Key), tasks that fail,
 * rows written straight into the table, a task moved to another user, account deletion (cascade), the migration's
 * backfill, and migrate-to-postgres (the target's triggers rebuild it; the copy is checked against the source).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { type Db, openDatabase, openPostgres } from "#db/client";
import { prepared } from "#db/prepared";
import { generations, user } from "#db/schema";
import { findOffering } from "~/domain/catalog";
import { availableCredits, balanceOf, grantCredits, reservedCredits } from "~/domain/credits/ledger.server";
import { cancelTransition } from "~/domain/generations/cancel.server";
import { claimDue } from "~/domain/generations/claim.server";
import { createGeneration, createOrReplay } from "~/domain/generations/create.server";
import { historyPageJson } from "~/domain/generations/history.server";
import { hasUnfinished } from "~/domain/generations/live.server";
import { completeGeneration, failGeneration } from "~/domain/generations/transitions.server";
import { manualClock } from "~/lib/clock";
import { migrateToPostgres } from "~/server/migrate-to-postgres.server";
import { skipWithoutPostgres } from "../../support/postgres";
import { addUserRow } from "../../support/services";
import { bothEngines } from "../../support/trigger-engines";

const CONFIG = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
const flux = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!; // 3 credits
const clock = manualClock();

/** The counter and the truth, per user (users with no task and no counter left out). */
async function counters(db: Db) {
  const truth = await db
    .raw<{ user_id: string; n: number | string }>("SELECT user_id, count(*) AS n FROM generations GROUP BY user_id")
    .many();
  const kept = await db
    .raw<{ user_id: string; n: number | string }>(
      "SELECT user_id, tasks AS n FROM user_generation_stats WHERE tasks <> 0",
    )
    .many();
  const asMap = (rows: { user_id: string; n: number | string }[]) =>
    Object.fromEntries(rows.map((r) => [r.user_id, Number(r.n)]).sort());
  return { truth: asMap(truth), kept: asMap(kept) };
}
/** Credits held and tasks unfinished per user: as kept (user_generation_stats) and the truth (the unfinished rows). */
async function holds(db: Db) {
  const truth = await db
    .raw<{ user_id: string; held: number | string; n: number | string }>(
      "SELECT user_id, sum(credits_cost) AS held, count(*) AS n FROM generations WHERE status IN ('pending', 'processing') GROUP BY user_id",
    )
    .many();
  const kept = await db
    .raw<{ user_id: string; held: number | string; n: number | string }>(
      "SELECT user_id, held, unfinished AS n FROM user_generation_stats WHERE held <> 0 OR unfinished <> 0",
    )
    .many();
  const asMap = (rows: typeof truth) =>
    Object.fromEntries(rows.map((r) => [r.user_id, [Number(r.held), Number(r.n)]]).sort());
  return { truth: asMap(truth), kept: asMap(kept) };
}
const counterOf = async (db: Db, userId: string) =>
  Number(
    (await db.raw<{ n: number | string }>("SELECT tasks AS n FROM user_generation_stats WHERE user_id = ?").one(userId))
      ?.n ?? 0,
  );
const totalOf = async (db: Db, userId: string, page = 1, pageSize = 20) =>
  (JSON.parse(await historyPageJson(db, userId, { page, pageSize })) as { total: number }).total;

async function newUser(db: Db, credits = 1000) {
  const id = await addUserRow(db, clock.now());
  if (credits > 0) await db.exec(grantCredits(db, { userId: id, amount: credits, source: "admin" }, clock));
  return id;
}
const create = (db: Db, userId: string) =>
  createGeneration(
    db,
    { userId, input: { offering: flux, prompt: "a cat", options: {} }, mode: "simulated", config: CONFIG },
    clock,
  );
const plainRow = (userId: string) => ({
  id: crypto.randomUUID(),
  userId,
  aiType: "image",
  provider: "replicate",
  model: flux.model,
  prompt: "p",
  status: "completed",
  creditsCost: 3,
  deadlineAt: clock.now() + 1000,
  createdAt: new Date(clock.now()),
});

/** Tasks written into a database whose schema is older than db/schema.ts: the columns every version has. */
async function insertOld(db: Db, rows: ReturnType<typeof plainRow>[]) {
  for (const r of rows)
    await db
      .raw(
        "INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, credits_cost, deadline_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        r.id,
        r.userId,
        r.aiType,
        r.provider,
        r.model,
        r.prompt,
        r.status,
        r.creditsCost,
        r.deadlineAt,
        +r.createdAt,
      );
}

/** The index of the migration that creates the counter (found by content: its number moves when others land first). */
const COUNTER_MIGRATION = /CREATE TABLE [`"]user_generation_stats[`"]/;
/** The migration that adds the held credits and unfinished tasks (and drops the (user_id, status) index). */
const HELD_MIGRATION = /ADD (COLUMN )?[`"]held[`"]/;
const { engines, postgres } = bothEngines("counter", { poolMax: 10 });

for (const engine of engines) {
  describe.skipIf(engine.skip)(`the task counter on ${engine.name}`, () => {
    let db: Db;
    beforeAll(async () => {
      db = await engine.open();
    }, 60_000);
    afterAll(async () => {
      await db?.close();
    });

    test("reservations: each created task counts once; a refused one and an Idempotency-Key replay add nothing", async () => {
      const u = await newUser(db, 10); // 3 tasks of 3 credits fit, the fourth is refused
      for (let i = 0; i < 3; i++) await create(db, u);
      await expect(create(db, u)).rejects.toThrow("insufficient credits");
      expect(await counterOf(db, u)).toBe(3);

      const v = await newUser(db);
      const args = {
        userId: v,
        input: { offering: flux, prompt: "once", options: {} },
        mode: "simulated" as const,
        config: CONFIG,
        idempotency: { key: "k-1", requestHash: "h" },
      };
      const [first, again] = [await createOrReplay(db, args, clock), await createOrReplay(db, args, clock)];
      expect([first.replayed, again.replayed, again.row.id]).toEqual([false, true, first.row.id]);
      expect(await counterOf(db, v)).toBe(1);
      // Concurrent creates (PostgreSQL: 20 transactions racing on the user's row lock) count exactly the ones that won.
      const w = await newUser(db, 30);
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => create(db, w)));
      expect(results.filter((r) => r.status === "fulfilled").length).toBe(10);
      expect(await counterOf(db, w)).toBe(10);
      const { truth, kept } = await counters(db);
      expect(kept).toEqual(truth);
    });

    test("a full page's total is the counter (25 tasks, pages of 20); failed tasks still count; another user's are not counted", async () => {
      const u = await newUser(db);
      const other = await newUser(db);
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) {
        ids.push((await create(db, u)).id);
        clock.advance(10);
      }
      await create(db, other);
      await db.run(
        db
          .update(generations)
          .set({ status: "failed", errorMessage: "boom", completedAt: new Date(clock.now()) })
          .where(eq(generations.id, ids[0]!)),
      );
      expect(await totalOf(db, u)).toBe(25); // full page: the counter
      expect(await totalOf(db, u, 2)).toBe(25); // partial page: offset + entries
      expect(await totalOf(db, u, 5, 5)).toBe(25);
      expect(await totalOf(db, u, 9)).toBe(25); // past the end: the counter
      expect(await totalOf(db, other, 1, 1)).toBe(1);
      expect(await totalOf(db, await newUser(db), 2)).toBe(0); // no task yet: no counter row
    });

    test("rows written straight into generations, deleted, or moved to another user keep the counter", async () => {
      const a = await newUser(db, 0);
      const b = await newUser(db, 0);
      const rows = Array.from({ length: 5 }, () => plainRow(a));
      await db.run(db.insert(generations).values(rows));
      expect([await counterOf(db, a), await counterOf(db, b)]).toEqual([5, 0]);
      await db.run(db.delete(generations).where(eq(generations.id, rows[0]!.id)));
      await db.run(db.update(generations).set({ userId: b }).where(eq(generations.id, rows[1]!.id)));
      await db.run(db.update(generations).set({ status: "failed" }).where(eq(generations.id, rows[2]!.id))); // not a move
      expect([await counterOf(db, a), await counterOf(db, b)]).toEqual([3, 1]);
      expect(await totalOf(db, a, 1, 3)).toBe(3);
      const { truth, kept } = await counters(db);
      expect(kept).toEqual(truth);
    });

    test("a page of finished tasks served from memory is still the page: a task created, deleted or moved shows at once", async () => {
      const u = await newUser(db);
      const v = await newUser(db, 0);
      const rows = Array.from({ length: 30 }, (_, i) => ({
        ...plainRow(u),
        createdAt: new Date(clock.now() - 1000 * (30 - i)),
      }));
      await db.run(db.insert(generations).values(rows));
      const page = async (n = 1) =>
        JSON.parse(await historyPageJson(db, u, { page: n, pageSize: 20 })) as {
          generations: { gen_id: string }[];
          total: number;
        };
      const first = async (n = 1) => (await page(n)).generations[0]!.gen_id;
      const newest = rows.at(-1)!.id;
      expect([await first(), (await page()).total, await first()]).toEqual([newest, 30, newest]); // the second time from memory
      const made = await create(db, u); // pending: newest, so page 1 changes and is no longer remembered
      expect([await first(), (await page()).total]).toEqual([made.id, 31]);
      await db.run(
        db
          .update(generations)
          .set({ status: "completed", completedAt: new Date(clock.now()) })
          .where(eq(generations.id, made.id)),
      );
      expect([await first(), await first()]).toEqual([made.id, made.id]);
      await db.run(db.delete(generations).where(eq(generations.id, made.id)));
      expect([await first(), (await page()).total]).toEqual([newest, 30]);
      expect((await page(2)).generations.length).toBe(10);
      await db.run(db.update(generations).set({ userId: v }).where(eq(generations.id, newest)));
      expect([await first(), (await page()).total, (await page(2)).generations.length]).toEqual([
        rows.at(-2)!.id,
        29,
        9,
      ]);
    });

    test("a page remembered by one process shows a task another process added (the version is in the database)", async () => {
      const [a, b] = await engine.openPair();
      try {
        const u = await newUser(a);
        for (let i = 0; i < 20; i++)
          await a.run(
            a.insert(generations).values({ ...plainRow(u), createdAt: new Date(clock.now() - 1000 * (20 - i)) }),
          );
        const first = async () => {
          const p = JSON.parse(await historyPageJson(a, u, { page: 1, pageSize: 20 })) as {
            generations: { gen_id: string }[];
            total: number;
          };
          return [p.generations[0]!.gen_id, p.total];
        };
        const before = await first();
        expect(await first()).toEqual(before); // remembered
        const late = { ...plainRow(u), createdAt: new Date(clock.now() + 60_000) };
        await b.run(b.insert(generations).values(late));
        expect(await first()).toEqual([late.id, 21]);
      } finally {
        await a.close();
        await b.close();
      }
    });

    test("account deletion: the user's tasks and counter go with the user (cascade), nobody else's change", async () => {
      const gone = await newUser(db);
      const stays = await newUser(db);
      for (let i = 0; i < 4; i++) await create(db, gone);
      await create(db, stays);
      await db.run(db.delete(user).where(eq(user.id, gone)));
      expect(await db.raw("SELECT 1 FROM user_generation_stats WHERE user_id = ?").one(gone)).toBeUndefined();
      expect(await counterOf(db, stays)).toBe(1);
      const { truth, kept } = await counters(db);
      expect(kept).toEqual(truth);
    });

    test("held credits and unfinished tasks: kept by the triggers through reservations, claims, completion, failure, cancel, raw writes, moves and deletes", async () => {
      const u = await newUser(db, 100);
      const v = await newUser(db, 0);
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await create(db, u)); // 5 × 3 credits held
      expect((await holds(db)).kept[u]).toEqual([15, 5]);
      expect(await db.exec(availableCredits(db, u, clock))).toBe(85);
      expect(await db.exec(balanceOf(db, u, clock))).toEqual({ available: 85, held: 15 });
      expect(await hasUnfinished(db, u)).toBe(true);
      const claimed = await claimDue(db, { owner: "t", limit: 1000, leaseMs: 60_000 }, clock); // pending → processing: still held
      expect(claimed.map((c) => c.row.id)).toEqual(expect.arrayContaining(made.map((m) => m.id)));
      expect((await holds(db)).kept[u]).toEqual([15, 5]);
      expect(await completeGeneration(db, { id: made[0]!.id, owner: "t", resultUrls: ["http://x/a.png"] }, clock)).toBe(
        true,
      ); // debited, released
      expect(await failGeneration(db, { id: made[1]!.id, owner: "t", message: "boom" }, clock)).toBe(true);
      await cancelTransition(db, u, made[2]!.id, clock);
      expect((await holds(db)).kept[u]).toEqual([6, 2]);
      expect(await db.exec(availableCredits(db, u, clock))).toBe(100 - 3 - 6);
      // Straight writes: a pending row inserted, its cost changed, one moved to another user, one deleted, one finished by hand.
      const raw = { ...plainRow(u), status: "pending" };
      await db.run(db.insert(generations).values(raw));
      await db.run(db.update(generations).set({ creditsCost: 8 }).where(eq(generations.id, raw.id)));
      expect((await holds(db)).kept[u]).toEqual([14, 3]);
      await db.run(db.update(generations).set({ userId: v }).where(eq(generations.id, made[3]!.id)));
      await db.run(db.update(generations).set({ userId: v, status: "failed" }).where(eq(generations.id, made[4]!.id)));
      expect([(await holds(db)).kept[u], (await holds(db)).kept[v]]).toEqual([
        [8, 1],
        [3, 1],
      ]);
      await db.run(db.delete(generations).where(eq(generations.id, raw.id)));
      await db.run(db.update(generations).set({ status: "completed" }).where(eq(generations.id, made[3]!.id)));
      expect(await hasUnfinished(db, u)).toBe(false);
      expect(await db.exec(reservedCredits(db, v))).toBe(0);
      const { truth, kept } = await holds(db);
      expect(kept).toEqual(truth);
    });

    test("the reservation's check reads the held credits from the user's row, not from the user's tasks", async () => {
      if (db.engine !== "sqlite") return; // the plan pinned on SQLite (PostgreSQL: the same statement text)
      const u = await newUser(db);
      await create(db, u);
      const check = prepared(db, "ledger.available", () => {
        throw new Error("availableCredits has not prepared its statement");
      }) as unknown as { getQuery(): { sql: string } };
      const plan = (db.sqlite!.prepare(`EXPLAIN QUERY PLAN ${check.getQuery().sql}`).all() as { detail: string }[]).map(
        (r) => r.detail,
      );
      expect(plan.join(" | ")).not.toContain("generations");
      expect(
        plan.some((d) =>
          /user_generation_stats USING INDEX sqlite_autoindex_user_generation_stats_1 \(user_id=\?\)/.test(d),
        ),
      ).toBe(true);
      expect(plan.some((d) => /credit_grants USING INDEX/.test(d))).toBe(true);
    });

    test("the held credits' migration backfills unfinished tasks that existed before it", async () => {
      const { db: old, finish } = await engine.openBefore(HELD_MIGRATION);
      try {
        const [a, b] = [await newUser(old, 0), await newUser(old, 0)];
        const rows = [
          ...["pending", "processing", "completed", "failed", "pending"].map((status, i) => ({
            ...plainRow(a),
            status,
            creditsCost: 1 + i,
          })),
          { ...plainRow(b), status: "processing", creditsCost: 4 },
        ];
        await insertOld(old, rows);
        await finish();
        expect((await holds(old)).kept).toEqual({ [a]: [1 + 2 + 5, 3], [b]: [4, 1] });
        await old.run(old.update(generations).set({ status: "completed" }).where(eq(generations.id, rows[1]!.id)));
        expect((await holds(old)).kept[a]).toEqual([6, 2]);
      } finally {
        await old.close();
      }
    });

    test("the migration backfills the tasks that existed before it (and the triggers count from there)", async () => {
      const { db: old, finish } = await engine.openBefore(COUNTER_MIGRATION);
      try {
        const [a, b, none] = [await newUser(old, 0), await newUser(old, 0), await newUser(old, 0)];
        await insertOld(old, [
          ...Array.from({ length: 7 }, () => plainRow(a)),
          ...Array.from({ length: 2 }, () => plainRow(b)),
        ]);
        await finish();
        expect([await counterOf(old, a), await counterOf(old, b), await counterOf(old, none)]).toEqual([7, 2, 0]);
        expect(await old.raw("SELECT 1 FROM user_generation_stats WHERE user_id = ?").one(none)).toBeUndefined();
        await old.run(old.insert(generations).values(plainRow(b)));
        expect(await counterOf(old, b)).toBe(3);
        expect(await totalOf(old, a, 1, 7)).toBe(7);
      } finally {
        await old.close();
      }
    });
  });
}

describe.skipIf(skipWithoutPostgres())("migrate-to-postgres and the task counter", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "atelier-counter-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("the target's triggers rebuild the counter as the tasks are copied (not copied twice); verified against the source's tasks", async () => {
    const file = join(dir, "atelier.db");
    const src = openDatabase(file);
    const users = [await newUser(src), await newUser(src), await newUser(src)];
    for (const [i, u] of users.entries()) for (let k = 0; k < 3 + i * 11; k++) await create(src, u);
    const want = await counters(src);
    await src.close();
    const url = await postgres().createDatabase("counter_move");
    const r = await migrateToPostgres({ from: file, to: url, batchRows: 7 });
    expect(r.tables.find((t) => t.table === "user_generation_stats")?.rows).toBe(3);
    const target = await openPostgres(url, { migrate: false });
    try {
      const got = await counters(target);
      expect(got.kept).toEqual(want.kept);
      expect(got.truth).toEqual(want.truth);
      expect(await totalOf(target, users[2]!)).toBe(25);
    } finally {
      await target.close();
    }
    // Tasks left out of the copy: the counter check names each user whose tasks differ.
    const url2 = await postgres().createDatabase("counter_move_missing");
    const { copyOrder } = await import("~/server/migrate-to-postgres.server");
    const err = await migrateToPostgres({
      from: file,
      to: url2,
      tables: copyOrder().filter((t) => t !== generations),
    }).catch((e: Error) => e);
    for (const u of users)
      expect(String(err)).toContain(`user ${u}: ${want.truth[u]} tasks in SQLite, task counter 0 in PostgreSQL`);
  }, 60_000);
});
