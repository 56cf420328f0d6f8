/**
 * The studio gallery's counters and lists, kept by database triggers (docs/data-layer.md, "Flat cost as history
 * grows"), on both engines: user_task_counts is the user's rows per (type, status) and the removed ones among them;
 * gallery_entries places each kept task 1 … n in (created_at, id) order in every list it belongs to ('' all, its type,
 * its finished status, "type status") — through inserts out of order, claims, completion, failure, removal and
 * putting back, deletes, moves to another owner, changed times and an account's deletion. Every filter's pages read
 * from them are the pages a plain filtered query with OFFSET gives, and the migration backfills both.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Db } from "#db/client";
import type { AiType } from "~/domain/catalog";
import type { GenerationFilter, StatusFilter } from "~/domain/generations/filter";
import { galleryNeighbours, listRecent } from "~/domain/generations/gallery.server";
import { addUserRow } from "../../support/services";
import { bothEngines } from "../../support/trigger-engines";

const COUNTS_MIGRATION = /CREATE TABLE [`"]user_task_counts[`"]/;

const INSERT = `INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, credits_cost, deadline_at, created_at, hidden_at)
  VALUES (?, ?, ?, 'replicate', 'm', 'p', ?, 3, 0, ?, ?)`;
const insertTask = (
  db: Db,
  t: { id: string; user: string; type: AiType; status: string; at: number; hidden?: number },
) => db.raw(INSERT).run(t.id, t.user, t.type, t.status, t.at, t.hidden ?? null);

/** What the counters say that the rows do not (empty when they agree). */
async function wrongCounts(db: Db): Promise<unknown[]> {
  const truth = await db
    .raw<Record<string, unknown>>(
      `SELECT user_id, ai_type, status, count(*) AS tasks, count(hidden_at) AS hidden FROM generations
       GROUP BY user_id, ai_type, status`,
    )
    .many();
  const kept = await db
    .raw<Record<string, unknown>>("SELECT user_id, ai_type, status, tasks, hidden FROM user_task_counts")
    .many();
  const key = (r: Record<string, unknown>) => `${r.user_id} ${r.ai_type} ${r.status}`;
  const want = new Map(truth.map((r) => [key(r), `${Number(r.tasks)}/${Number(r.hidden)}`]));
  const have = new Map(
    kept.filter((r) => Number(r.tasks) !== 0).map((r) => [key(r), `${Number(r.tasks)}/${Number(r.hidden)}`]),
  );
  const problems: unknown[] = [];
  for (const [k, v] of want) if (have.get(k) !== v) problems.push(`${k}: ${have.get(k)} kept, ${v} true`);
  for (const [k, v] of have) if (!want.has(k)) problems.push(`${k}: ${v} kept, none true`);
  for (const r of kept) if (Number(r.hidden) < 0 || Number(r.hidden) > Number(r.tasks)) problems.push(r);
  return problems;
}

/** Entries that are not the truth: every kept task in each of its lists, placed by row_number() over (created_at, id). */
async function wrongEntries(db: Db): Promise<unknown[]> {
  const truth = `SELECT id, grp, user_id, created_at, row_number() OVER (PARTITION BY user_id, grp ORDER BY created_at, id) AS n FROM (
      SELECT id, '' AS grp, user_id, created_at FROM generations WHERE hidden_at IS NULL
      UNION ALL SELECT id, ai_type, user_id, created_at FROM generations WHERE hidden_at IS NULL
      UNION ALL SELECT id, status, user_id, created_at FROM generations WHERE hidden_at IS NULL AND status IN ('completed', 'failed')
      UNION ALL SELECT id, ai_type || ' ' || status, user_id, created_at FROM generations
        WHERE hidden_at IS NULL AND status IN ('completed', 'failed')) e`;
  const want = await db.raw<Record<string, unknown>>(truth).many();
  const have = await db
    .raw<Record<string, unknown>>("SELECT gen_id, grp, user_id, created_at, seq FROM gallery_entries")
    .many();
  const key = (id: unknown, grp: unknown) => `${id}|${grp}`;
  const wanted = new Map(want.map((r) => [key(r.id, r.grp), `${r.user_id} ${Number(r.created_at)} ${Number(r.n)}`]));
  const had = new Map(have.map((r) => [key(r.gen_id, r.grp), `${r.user_id} ${Number(r.created_at)} ${Number(r.seq)}`]));
  const problems: unknown[] = [];
  for (const [k, v] of wanted) if (had.get(k) !== v) problems.push(`${k}: ${had.get(k)} kept, ${v} true`);
  for (const [k, v] of had) if (!wanted.has(k)) problems.push(`${k}: ${v} kept, not in the gallery`);
  return problems;
}

async function expectTrue(db: Db) {
  expect(await wrongCounts(db)).toEqual([]);
  expect(await wrongEntries(db)).toEqual([]);
}

const FILTERS: GenerationFilter[] = [];
for (const aiType of [undefined, "image", "video"] as (AiType | undefined)[])
  for (const status of [undefined, "completed", "failed", "running", "pending", "processing"] as (
    | StatusFilter
    | undefined
  )[])
    FILTERS.push({ aiType, status, galleryOnly: true });

/** Every page of every filter is the page a plain filtered query with OFFSET gives, and the total its count. */
async function expectPagesRight(db: Db, userId: string) {
  const all = await db
    .raw<{ id: string; ai_type: string; status: string; hidden_at: unknown }>(
      "SELECT id, ai_type, status, hidden_at FROM generations WHERE user_id = ? ORDER BY created_at DESC, id DESC",
    )
    .many(userId);
  for (const f of FILTERS) {
    const kept = all.filter(
      (r) =>
        r.hidden_at === null &&
        (!f.aiType || r.ai_type === f.aiType) &&
        (!f.status || (f.status === "running" ? ["pending", "processing"].includes(r.status) : r.status === f.status)),
    );
    for (const size of [1, 4, 50]) {
      for (let page = 1; page <= Math.ceil(kept.length / size) + 1; page++) {
        const got = await listRecent(db, userId, { page, pageSize: size }, f);
        const label = `${f.aiType ?? "any"} ${f.status ?? "any"} page ${page} of ${size}`;
        expect({ label, ids: got.rows.map((r) => r.id), total: got.total }).toEqual({
          label,
          ids: kept.slice((page - 1) * size, page * size).map((r) => r.id),
          total: kept.length,
        });
      }
    }
  }
}

const { engines } = bothEngines("gallery");

for (const engine of engines) {
  describe.skipIf(engine.skip)(`gallery counters and lists on ${engine.name}`, () => {
    let db: Db;
    beforeAll(async () => {
      db = await engine.open();
    }, 60_000);
    afterAll(async () => {
      await db?.close();
    });

    test("kept true through every kind of write, and every filter's pages are the OFFSET pages", async () => {
      const [a, b] = [await addUserRow(db, 0), await addUserRow(db, 0)];
      // Ties on created_at, older tasks inserted after newer ones, both types, every status, one removed at once.
      const times = [50, 10, 30, 30, 20, 60, 10, 40, 30, 5, 70, 25];
      const statuses = ["completed", "failed", "pending", "processing"];
      for (const [i, at] of times.entries())
        await insertTask(db, {
          id: `t${String(i).padStart(2, "0")}`,
          user: a,
          type: i % 3 === 0 ? "video" : "image",
          status: statuses[i % 4]!,
          at,
          hidden: i === 7 ? 1 : undefined,
        });
      await expectTrue(db);
      await expectPagesRight(db, a);
      const set = (sql: string, ...args: unknown[]) => db.raw(sql).run(...args);
      await set("UPDATE generations SET status = 'processing' WHERE id = 't02'"); // a claim: no list changes
      await set("UPDATE generations SET status = 'completed' WHERE id = 't02'"); // completion
      await set("UPDATE generations SET status = 'failed' WHERE id = 't03'"); // failure
      await set("UPDATE generations SET status = 'failed' WHERE id = 't00'"); // completed → failed
      await expectTrue(db);
      await set("UPDATE generations SET hidden_at = 9 WHERE id IN ('t04', 't05')"); // removed
      await set("UPDATE generations SET hidden_at = NULL WHERE id = 't07'"); // put back
      await set("UPDATE generations SET hidden_at = 10 WHERE id = 't04'"); // removed again: nothing changes
      await expectTrue(db);
      await expectPagesRight(db, a);
      await set("UPDATE generations SET ai_type = 'image' WHERE id = 't09'");
      await set("UPDATE generations SET created_at = 1 WHERE id = 't10'");
      await set("UPDATE generations SET created_at = 80 WHERE id = 't01'");
      for (const id of ["t06", "t08"]) await set("UPDATE generations SET user_id = ? WHERE id = ?", b, id); // one by one: the ordinal trigger (PostgreSQL) moves others
      await set("UPDATE generations SET id = 't99' WHERE id = 't11'");
      await set("DELETE FROM generations WHERE id IN ('t02', 't05')");
      await expectTrue(db);
      await expectPagesRight(db, a);
      await expectPagesRight(db, b);
      // Neighbours: the kept tasks either side, newest first.
      const kept = (await listRecent(db, a, { page: 1, pageSize: 100 }, { galleryOnly: true })).rows;
      for (const [i, row] of kept.entries())
        expect(await galleryNeighbours(db, row)).toEqual({
          newer: kept[i - 1]?.id ?? null,
          older: kept[i + 1]?.id ?? null,
        });
      expect(await galleryNeighbours(db, { id: "t04", userId: a, createdAt: new Date(20) })).toEqual({
        newer: null,
        older: null,
      }); // removed from the gallery
      // A deleted account's tasks leave the gallery together (delete-my-account): its lists go, counters stay true.
      const c = await addUserRow(db, 0);
      for (let i = 0; i < 6; i++)
        await insertTask(db, { id: `d-${c}-${i}`, user: c, type: "image", status: "completed", at: i });
      await set(`UPDATE "user" SET deleted_at = 1 WHERE id = ?`, c);
      await set("UPDATE generations SET hidden_at = 2 WHERE user_id = ?", c);
      expect(await db.raw("SELECT 1 FROM gallery_entries WHERE user_id = ?").many(c)).toEqual([]);
      await expectTrue(db);
      // An account's deletion takes its counters and lists; nobody else's change.
      await set(`DELETE FROM "user" WHERE id = ?`, b);
      expect(await db.raw("SELECT 1 FROM user_task_counts WHERE user_id = ?").many(b)).toEqual([]);
      expect(await db.raw("SELECT 1 FROM gallery_entries WHERE user_id = ?").many(b)).toEqual([]);
      await expectTrue(db);
    });

    test("a filter reads the counters and one list (or the queue), never a count of the history", async () => {
      const u = await addUserRow(db, 0);
      for (let i = 0; i < 30; i++)
        await insertTask(db, {
          id: `c-${u}-${i}`,
          user: u,
          type: i % 2 ? "video" : "image",
          status: "completed",
          at: i,
        });
      await db.raw("UPDATE generations SET hidden_at = 1 WHERE id = ?").run(`c-${u}-3`);
      const counts = await db.raw<{ n: number }>("SELECT count(*) AS n FROM user_task_counts WHERE user_id = ?").one(u);
      expect(Number(counts!.n)).toBe(2);
      const page = await listRecent(db, u, { page: 2, pageSize: 4 }, { aiType: "video", galleryOnly: true });
      expect(page.total).toBe(14);
      expect(page.rows.map((r) => r.id)).toEqual([21, 19, 17, 15].map((i) => `c-${u}-${i}`));
    });

    test.skipIf(engine.name !== "PostgreSQL")(
      "the triggers' renumbering is planned with each call's values (a generic plan scanned the whole table)",
      async () => {
        const rows = await db
          .raw<{ proname: string; proconfig: string[] | null; prosrc: string }>(
            `SELECT proname, proconfig, prosrc FROM pg_proc WHERE proname IN
              ('gallery_entries_place', 'gallery_entries_close', 'generations_seq_place', 'generations_seq_close')`,
          )
          .many();
        const how = Object.fromEntries(
          rows.map((r) => [
            r.proname,
            r.proconfig?.join(",") ?? (/\bEXECUTE\b[^;]*\bUSING\b/.test(r.prosrc) ? "EXECUTE" : ""),
          ]),
        );
        expect(how).toEqual({
          gallery_entries_place: "plan_cache_mode=force_custom_plan",
          generations_seq_place: "plan_cache_mode=force_custom_plan",
          gallery_entries_close: "EXECUTE",
          generations_seq_close: "EXECUTE",
        });
      },
    );

    test("the migration backfills the counters and lists of tasks that existed before it", async () => {
      const { db: old, finish } = await engine.openBefore(COUNTS_MIGRATION);
      try {
        const u = await addUserRow(old, 0);
        for (const [i, at] of [5, 1, 3, 3, 2].entries())
          await insertTask(old, {
            id: `m${i}`,
            user: u,
            type: i % 2 ? "video" : "image",
            status: i === 4 ? "pending" : "completed",
            at,
            hidden: i === 2 ? 1 : undefined,
          });
        await finish();
        await expectTrue(old);
        await expectPagesRight(old, u);
        await insertTask(old, { id: "m9", user: u, type: "image", status: "failed", at: 4 }); // triggers from there
        await expectTrue(old);
      } finally {
        await old.close();
      }
    }, 60_000);
  });
}
