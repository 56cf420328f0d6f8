/**
 * migrate-to-postgres's parts (app/server/migrate-to-postgres.server.ts): the
 * table list is the schema's, a table left out of the copy fails the
 * verification and rolls back, and each bad input has its own error. The
 * whole command as a process, on 10,000 tasks: tests/integration/db/migrate-to-postgres.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { openDatabase, openPostgres, rawMany } from "#db/client";
import { creditGrants, feedback } from "#db/schema";
import { grantCredits } from "~/domain/credits/ledger.server";
import { addFeedback } from "~/domain/feedback/feedback.server";
import { manualClock } from "~/lib/clock";
import { copyOrder, migrateToPostgres } from "~/server/migrate-to-postgres.server";
import { type Postgres, skipWithoutPostgres, startPostgres } from "../../support/postgres";
import { insertUser } from "../../support/services";

const names = () => copyOrder().map((t) => getTableConfig(t).name);

test("the copy list is every table the migrations create, each after the tables it references", async () => {
  const db = openDatabase(":memory:");
  const created = (
    db
      .sqlite!.query(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'",
      )
      .all() as { name: string }[]
  )
    .map((r) => r.name)
    .sort();
  await db.close();
  expect([...names()].sort()).toEqual(created);
  const order = names();
  for (const t of copyOrder()) {
    for (const fk of getTableConfig(t).foreignKeys) {
      const parent = getTableConfig(fk.reference().foreignTable).name;
      expect(order.indexOf(parent)).toBeLessThan(order.indexOf(getTableConfig(t).name));
    }
  }
  expect(order.indexOf("user")).toBe(0);
});

describe("errors before anything is written", () => {
  const dir = mkdtempSync(join(tmpdir(), "atelier-move-unit-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("missing --from file", async () => {
    await expect(migrateToPostgres({ from: join(dir, "nope.db"), to: "postgres://u@127.0.0.1:1/x" })).rejects.toThrow(
      /--from .*nope\.db: no such file/,
    );
  });
  test("a file that is not an Atelier database", async () => {
    writeFileSync(join(dir, "junk.db"), "not sqlite at all, just text ".repeat(200));
    await expect(migrateToPostgres({ from: join(dir, "junk.db"), to: "postgres://u@127.0.0.1:1/x" })).rejects.toThrow(
      /junk\.db: (cannot open as SQLite|not an Atelier database)/,
    );
  });
  test("bad URLs", async () => {
    const file = join(dir, "ok.db");
    (await openDatabase(file)).close();
    await expect(migrateToPostgres({ from: file, to: "" })).rejects.toThrow(/--to <postgres:\/\/…> is required/);
    await expect(migrateToPostgres({ from: file, to: "not a url" })).rejects.toThrow(/--to is not a URL/);
    await expect(migrateToPostgres({ from: file, to: "mysql://u@h/db" })).rejects.toThrow(
      /must be a postgres:\/\/ URL, not mysql:/,
    );
  });
  test("an unreachable server, named without its password", async () => {
    const file = join(dir, "ok2.db");
    (await openDatabase(file)).close();
    const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = s.port;
    s.stop(true);
    const err = await migrateToPostgres({ from: file, to: `postgres://u:hunter2@127.0.0.1:${port}/x` }).catch(
      (e: Error) => e,
    );
    expect(String(err)).toMatch(
      new RegExp(`cannot reach PostgreSQL at postgres://u:\\*\\*\\*@127\\.0\\.0\\.1:${port}/x`),
    );
    expect(String(err)).not.toContain("hunter2");
  });
});

describe.skipIf(skipWithoutPostgres())("copy and verification on PostgreSQL", () => {
  let pg: Postgres;
  let dir: string;
  let file: string;
  const clock = manualClock(Date.now());

  beforeAll(async () => {
    pg = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), "atelier-move-unit-"));
    file = join(dir, "atelier.db");
    const db = openDatabase(file);
    for (let i = 0; i < 3; i++) {
      const u = insertUser(db);
      await db.exec(grantCredits(db, { userId: u.id, amount: 10 + i, source: "admin" }, clock));
      await addFeedback(db, u.id, { content: `feedback ${i}`, rating: 4 }, clock);
    }
    await db.close();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a table left out of the copy fails the verification, and the transaction leaves the target empty", async () => {
    const url = await pg.createDatabase("missing_table");
    const tables = copyOrder().filter((t) => t !== feedback);
    const err = await migrateToPostgres({ from: file, to: url, tables }).catch((e: Error) => e);
    expect(String(err)).toContain("verification failed, nothing was written");
    expect(String(err)).toContain("feedback: 3 rows in SQLite, 0 in PostgreSQL");
    const target = await openPostgres(url, { migrate: false });
    const rows = (await target
      .raw<{ n: number }>(`SELECT (SELECT count(*) FROM "user") + (SELECT count(*) FROM credit_grants) AS n`)
      .one())!;
    await target.close();
    expect(Number(rows.n)).toBe(0);
  });

  test("a balance that differs fails the verification too (grants left out: every user's balance is named)", async () => {
    const url = await pg.createDatabase("missing_grants");
    const err = await migrateToPostgres({
      from: file,
      to: url,
      tables: copyOrder().filter((t) => t !== creditGrants),
    }).catch((e: Error) => e);
    expect(String(err)).toContain("credit_grants: 3 rows in SQLite, 0 in PostgreSQL");
    for (const n of [10, 11, 12])
      expect(String(err)).toMatch(
        new RegExp(`user [0-9a-f-]{36}: balance ${n} \\(held 0\\) in SQLite, 0 \\(held 0\\) in PostgreSQL`),
      );
  });

  test("a target another session holds a lock on is refused after the lock timeout, not waited on forever", async () => {
    const url = await pg.createDatabase("in_use");
    const other = await openPostgres(url);
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const held = other.tx(function* () {
      yield* rawMany({ sqlite: sql`select 1`, postgres: sql`lock table feedback in access exclusive mode` });
      locked();
      yield* rawMany({ sqlite: sql`select 1`, postgres: sql`select pg_sleep(3)` });
    });
    await isLocked;
    const err = await migrateToPostgres({ from: file, to: url, lockTimeoutMs: 500 }).catch((e: Error) => e);
    await held;
    await other.close();
    expect(String(err)).toContain("the target database is in use (no table lock within 0.5 s");
  }, 30_000);

  test("copies into an empty database (small batches), then refuses it once it has rows", async () => {
    const url = await pg.createDatabase("small_batches");
    const r = await migrateToPostgres({ from: file, to: url, batchRows: 2 });
    expect(r.users).toBe(3);
    expect(Object.fromEntries(r.tables.filter((s) => s.rows > 0).map((s) => [s.table, s.rows]))).toEqual({
      user: 3,
      credit_grants: 3,
      feedback: 3,
      rate_limits: 3,
      user_credit_stats: 3, // filled by the target's triggers as the grants arrive, not copied
    }); // each feedback takes a slot of its author's bucket
    const err = await migrateToPostgres({ from: file, to: url }).catch((e: Error) => e);
    expect(String(err)).toMatch(/target database is not empty \(rows in user, .*credit_grants.*feedback/);
  });
});
