/**
 * Both engines for tests of what database triggers keep (docs/data-layer.md): a migrated database on each, one
 * migrated only up to the migration that brings the thing under test (so its backfill can be checked on rows that
 * existed before it), and two handles on one database (two processes' connections). PostgreSQL is started once per
 * file, and only when ATELIER_TEST_PG is set.
 */
import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase, openPostgres } from "#db/client";
import { migrations } from "#db/migrations.gen";
import { pgMigrations } from "#db/migrations-pg.gen";
import { type Postgres, skipWithoutPostgres, startPostgres } from "./postgres";

export interface Engine {
  name: "SQLite" | "PostgreSQL";
  skip: boolean;
  open(): Promise<Db>;
  /** An empty database with the migrations before the first one whose SQL matches `migration`; `finish` applies the rest. */
  openBefore(migration: RegExp): Promise<{ db: Db; finish(): Promise<void> }>;
  /** Two handles on one new database. */
  openPair(): Promise<[Db, Db]>;
}

/** Where the migration whose SQL matches `migration` stands (found by content: its number moves as others land). */
export function migrationIndex(list: { sql: string[] }[], migration: RegExp): number {
  const i = list.findIndex((m) => m.sql.some((s) => migration.test(s)));
  if (i < 1) throw new Error(`no migration after the first matches ${migration}`);
  return i;
}

function migrateSome(db: Db, list: unknown[]): Promise<void> {
  const d = db.drizzle as any;
  return d.dialect.migrate(list, d.session, { migrationsFolder: "(embedded)" });
}

/** The two engines, named by `prefix` on PostgreSQL; registers the file's PostgreSQL start and stop. */
export function bothEngines(prefix: string, opts: { poolMax?: number } = {}) {
  let pg: Postgres | undefined;
  let n = 0;
  const database = () => pg!.createDatabase(`${prefix}_${++n}`);
  beforeAll(async () => {
    if (!skipWithoutPostgres()) pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });
  const engines: Engine[] = [
    {
      name: "SQLite",
      skip: false,
      open: async () => openDatabase(":memory:"),
      openBefore: async (migration) => {
        const db = openDatabase(":memory:", { migrate: false });
        await migrateSome(db, migrations.slice(0, migrationIndex(migrations, migration)));
        return { db, finish: () => migrateSome(db, migrations) };
      },
      openPair: async () => {
        const file = join(mkdtempSync(join(tmpdir(), `atelier-${prefix}-pair-`)), "atelier.db");
        return [openDatabase(file), openDatabase(file)];
      },
    },
    {
      name: "PostgreSQL",
      skip: skipWithoutPostgres(),
      open: async () => openPostgres(await database(), { poolMax: opts.poolMax ?? 4 }),
      openBefore: async (migration) => {
        const db = await openPostgres(await database(), { migrate: false, poolMax: 2 });
        await migrateSome(db, pgMigrations.slice(0, migrationIndex(pgMigrations, migration)));
        return { db, finish: () => migrateSome(db, pgMigrations) };
      },
      openPair: async () => {
        const url = await database();
        const a = await openPostgres(url, { poolMax: 2 });
        return [a, await openPostgres(url, { migrate: false, poolMax: 2 })];
      },
    },
  ];
  return { engines, postgres: () => pg! };
}
