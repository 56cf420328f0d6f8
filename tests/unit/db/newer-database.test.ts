/**
 * An older executable never runs on a database a newer one migrated (docs/decisions/107-newer-database-refused.md): a binary
 * rolled back after an upgrade, or an old node restarted after a new one migrated PostgreSQL, would otherwise serve
 * requests on a schema it does not know. Every open that applies migrations — serve, worker, the CLI,
 * migrate-to-postgres' snapshot — refuses with one line saying what to do, and changes nothing. The same database
 * at this executable's own newest migration opens as before; an open that applies migrations reports how many (the
 * server logs it).
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NewerDatabaseError, openDatabase, openPostgres } from "#db/client";
import { migrations } from "#db/migrations.gen";
import { pgMigrations } from "#db/migrations-pg.gen";
import { type Postgres, skipWithoutPostgres, startPostgres } from "../../support/postgres";

const MESSAGE =
  /was migrated by a newer version of Atelier \(its newest migration is from .*, this executable's from .*\): run that newer version, or restore the backup taken before the upgrade \(docs\/self-hosting\.md §7\)$/;
const newest = (ms: { folderMillis: number }[]) => Math.max(...ms.map((m) => m.folderMillis));

describe("SQLite", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "atelier-newer-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("a fresh file: every embedded migration applied, and the open says how many", async () => {
    const applied: number[][] = [];
    const db = openDatabase(join(dir, "fresh.db"), { onMigrated: (n, before) => applied.push([n, before]) });
    await db.close();
    expect(applied).toEqual([[migrations.length, 0]]);
    const again: number[][] = [];
    await openDatabase(join(dir, "fresh.db"), { onMigrated: (n, before) => again.push([n, before]) }).close();
    expect(again).toEqual([[0, migrations.length]]);
  });

  test("a file a newer version migrated: refused with one line naming the file, nothing changed", async () => {
    const file = join(dir, "newer.db");
    await openDatabase(file).close();
    const raw = new Database(file);
    raw.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-newer-atelier', ?)", [
      newest(migrations) + 60_000,
    ]);
    const rows = (raw.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
    raw.close();

    let error: unknown;
    try {
      openDatabase(file);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NewerDatabaseError);
    expect((error as Error).message).toStartWith(`database ${file} was migrated by a newer version of Atelier`);
    expect((error as Error).message).toMatch(MESSAGE);
    const after = new Database(file);
    expect((after.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n).toBe(rows);
    after.close();
  });
});

describe.skipIf(skipWithoutPostgres())("PostgreSQL", () => {
  let pg: Postgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });

  test("a database a newer version migrated: refused (every node, the worker and the CLI open it this way)", async () => {
    const applied: number[][] = [];
    const db = await openPostgres(pg.url, { poolMax: 2, onMigrated: (n, before) => applied.push([n, before]) });
    expect(applied).toEqual([[pgMigrations.length, 0]]);
    await db
      .raw("INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ('from-a-newer-atelier', ?)")
      .run(newest(pgMigrations) + 60_000);
    await db.close();

    const opened = openPostgres(pg.url, { poolMax: 2 });
    await expect(opened).rejects.toBeInstanceOf(NewerDatabaseError);
    await expect(openPostgres(pg.url, { poolMax: 2 })).rejects.toThrow(
      /^the PostgreSQL database was migrated by a newer version of Atelier/,
    );
    // Without the newer row it opens again, nothing to apply.
    const plain = await openPostgres(pg.url, { poolMax: 2, migrate: false });
    await plain.raw("DELETE FROM drizzle.__drizzle_migrations WHERE hash = 'from-a-newer-atelier'").run();
    await plain.close();
    const again: number[][] = [];
    await (await openPostgres(pg.url, { poolMax: 2, onMigrated: (n, before) => again.push([n, before]) })).close();
    expect(again).toEqual([[0, pgMigrations.length]]);
  }, 60_000);
});
