/**
 * The per-user history ordinal (generations.user_seq) and the grant counter (user_credit_stats.granted), kept by
 * database triggers (docs/data-layer.md), on both engines: the ordinals stay 1 … n in (created_at, id) order through
 * out-of-order inserts, deletes, moves to another owner and changed times; a history page read as a range of them is
 * the page an OFFSET gives; an account's deletion takes its history without renumbering it; the counter is Σ amount
 * through inserts, deletes and moves of grants; the migration backfills both for rows that existed before it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Db } from "#db/client";
import { getCredits, grantCredits } from "~/domain/credits/ledger.server";
import { listRecent } from "~/domain/generations/gallery.server";
import { historyAfterJson, historyPageJson } from "~/domain/generations/history.server";
import { manualClock } from "~/lib/clock";
import { addUserRow } from "../../support/services";
import { bothEngines } from "../../support/trigger-engines";

const clock = manualClock();
const SEQ_MIGRATION = /ADD (COLUMN )?[`"]user_seq[`"]/;

const INSERT =
  "INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, credits_cost, deadline_at, created_at) VALUES (?, ?, 'image', 'replicate', 'm', 'p', 'completed', 3, 0, ?)";
const insertTask = (db: Db, id: string, userId: string, at: number) => db.raw(INSERT).run(id, userId, at);

/** Users whose ordinals are not row_number() over (created_at, id) — the order the engine itself sorts them in. */
async function wrongOrdinals(db: Db): Promise<unknown[]> {
  return db
    .raw(
      `SELECT id FROM (SELECT id, user_seq, row_number() OVER (PARTITION BY user_id ORDER BY created_at, id) AS n FROM generations) t
       WHERE user_seq IS NULL OR user_seq <> n`,
    )
    .many();
}
async function wrongGrantCounters(db: Db): Promise<unknown[]> {
  return db
    .raw(
      `SELECT u.id FROM "user" u WHERE coalesce((SELECT sum(amount) FROM credit_grants g WHERE g.user_id = u.id), 0)
         <> coalesce((SELECT granted FROM user_credit_stats s WHERE s.user_id = u.id), 0)`,
    )
    .many();
}

const { engines } = bothEngines("ordinal");

for (const engine of engines) {
  describe.skipIf(engine.skip)(`history ordinals and the grant counter on ${engine.name}`, () => {
    let db: Db;
    beforeAll(async () => {
      db = await engine.open();
    }, 60_000);
    afterAll(async () => {
      await db?.close();
    });

    test("ordinals stay 1 … n in (created_at, id) order: inserts out of order, deletes, moves, changed times", async () => {
      const [a, b] = [await addUserRow(db, 0), await addUserRow(db, 0)];
      // Ties on created_at, older tasks inserted after newer ones.
      const times = [50, 10, 30, 30, 20, 60, 10, 40, 30, 5];
      for (const [i, at] of times.entries()) await insertTask(db, `t${String(i).padStart(2, "0")}`, a, at);
      expect(await wrongOrdinals(db)).toEqual([]);
      await db.raw("DELETE FROM generations WHERE id = ?").run("t02");
      await db.raw("DELETE FROM generations WHERE id = ?").run("t09");
      expect(await wrongOrdinals(db)).toEqual([]);
      await db.raw("UPDATE generations SET user_id = ? WHERE id = ?").run(b, "t04");
      await db.raw("UPDATE generations SET created_at = 70 WHERE id = ?").run("t01");
      await db.raw("UPDATE generations SET created_at = 1 WHERE id = ?").run("t05");
      expect(await wrongOrdinals(db)).toEqual([]);
      const max = await db
        .raw<{ n: number; m: number }>("SELECT count(*) AS n, max(user_seq) AS m FROM generations WHERE user_id = ?")
        .one(a);
      expect(Number(max!.m)).toBe(Number(max!.n));
    });

    test("a page as a range of ordinals is the page OFFSET gives, for every page and size", async () => {
      const u = await addUserRow(db, 0);
      for (let i = 0; i < 23; i++) await insertTask(db, `p-${u}-${String(22 - i).padStart(2, "0")}`, u, 1000 + (i % 7));
      const offsetIds = await db
        .raw<{ id: string }>("SELECT id FROM generations WHERE user_id = ? ORDER BY created_at DESC, id DESC")
        .many(u);
      for (const size of [1, 5, 20, 100])
        for (let page = 1; page <= Math.ceil(23 / size) + 1; page++) {
          const json = JSON.parse(await historyPageJson(db, u, { page, pageSize: size })) as {
            generations: { gen_id: string }[];
            total: number;
          };
          const want = offsetIds.slice((page - 1) * size, page * size).map((r) => r.id);
          expect(json.generations.map((g) => g.gen_id)).toEqual(want);
          const rows = await listRecent(db, u, { page, pageSize: size }, { galleryOnly: true });
          expect(rows.rows.map((r) => r.id)).toEqual(want);
          expect(rows.total).toBe(23);
        }
    });

    test("keyset pages (cursor) walk the same entries in the same order, and a forged cursor is refused", async () => {
      const u = await addUserRow(db, 0);
      for (let i = 0; i < 17; i++) await insertTask(db, `c-${u}-${String(i % 5)}${i}`, u, 2000 + (i % 4));
      const want = (
        await db
          .raw<{ id: string }>("SELECT id FROM generations WHERE user_id = ? ORDER BY created_at DESC, id DESC")
          .many(u)
      ).map((r) => r.id);
      const seen: string[] = [];
      let cursor: string | null = "";
      let pages = 0;
      while (cursor !== null) {
        const page = JSON.parse(await historyAfterJson(db, u, { cursor, pageSize: 5 })) as {
          generations: { gen_id: string }[];
          total: number;
          next_cursor: string | null;
        };
        expect(page.total).toBe(17);
        seen.push(...page.generations.map((g) => g.gen_id));
        cursor = page.next_cursor;
        if (++pages > 10) throw new Error("no end");
      }
      expect(seen).toEqual(want);
      for (const bad of ["x", Buffer.from("1.a b").toString("base64url"), 42, "a".repeat(300)])
        await expect(historyAfterJson(db, u, { cursor: bad, pageSize: 5 })).rejects.toThrow(
          "cursor must be a next_cursor this API returned",
        );
    });

    test("an account's deletion takes its whole history at once, others untouched", async () => {
      const [gone, kept] = [await addUserRow(db, 0), await addUserRow(db, 0)];
      await db
        .raw(
          `INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, credits_cost, deadline_at, created_at)
           WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 3999)
           SELECT 'g-' || i, ?, 'image', 'replicate', 'm', 'p', 'completed', 3, 0, i FROM n`,
        )
        .run(gone);
      for (let i = 0; i < 5; i++) await insertTask(db, `k-${kept}-${i}`, kept, i);
      const t0 = performance.now();
      await db.raw('DELETE FROM "user" WHERE id = ?').run(gone);
      // Renumbering after each cascaded row would touch every younger row: ~8,000,000 updates instead of none.
      expect(performance.now() - t0).toBeLessThan(2000);
      expect(await db.raw("SELECT 1 FROM generations WHERE user_id = ?").many(gone)).toEqual([]);
      expect(await wrongOrdinals(db)).toEqual([]);
    });

    test("the grant counter is Σ amount through grants, deletes and moves; total_credits reads it", async () => {
      const [a, b] = [await addUserRow(db, 0), await addUserRow(db, 0)];
      const g1 = await db.exec(grantCredits(db, { userId: a, amount: 7, source: "admin" }, clock));
      await db.exec(grantCredits(db, { userId: a, amount: 5, source: "admin" }, clock));
      await db.raw("UPDATE credit_grants SET remaining = 0 WHERE id = ?").run(g1.id);
      expect(await db.exec(getCredits(db, a, clock))).toEqual({ left_credits: 5, total_credits: 12 });
      await db.raw("UPDATE credit_grants SET user_id = ? WHERE id = ?").run(b, g1.id);
      expect(await db.exec(getCredits(db, b, clock))).toEqual({ left_credits: 0, total_credits: 7 });
      await db.raw("DELETE FROM credit_grants WHERE user_id = ?").run(a);
      expect(await db.exec(getCredits(db, a, clock))).toEqual({ left_credits: 0, total_credits: 0 });
      expect(await wrongGrantCounters(db)).toEqual([]);
    });

    test("the migration backfills the ordinals and the grant counter of rows that existed before it", async () => {
      const { db: old, finish } = await engine.openBefore(SEQ_MIGRATION);
      try {
        const [a, b] = [await addUserRow(old, 0), await addUserRow(old, 0)];
        for (const [i, at] of [30, 10, 20, 10].entries()) await insertTask(old, `o${i}`, a, at);
        await insertTask(old, "o9", b, 5);
        await old
          .raw(
            "INSERT INTO credit_grants (id, user_id, amount, remaining, source, created_at) VALUES ('x1', ?, 4, 0, 'admin', 0), ('x2', ?, 6, 6, 'admin', 0)",
          )
          .run(a, a);
        await finish();
        expect(await wrongOrdinals(old)).toEqual([]);
        expect(await wrongGrantCounters(old)).toEqual([]);
        expect(await old.exec(getCredits(old, a, clock))).toEqual({ left_credits: 6, total_credits: 10 });
        await insertTask(old, "o5", a, 15);
        expect(await wrongOrdinals(old)).toEqual([]);
      } finally {
        await old.close();
      }
    });
  });
}
