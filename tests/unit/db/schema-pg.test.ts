/**
 * The PostgreSQL schema is derived from db/schema.ts (db/schema.pg.ts) and its
 * migrations are generated from it: these fail the moment the two dialects
 * drift — a table, column, nullability or index missing on one side, or a
 * schema change without its PostgreSQL migration.
 */
import { describe, expect, test } from "bun:test";
import { is } from "drizzle-orm";
import { getTableConfig as pgConfig } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/postgres-js";
import { SQLiteTable, getTableConfig as sqliteConfig } from "drizzle-orm/sqlite-core";
import postgres from "postgres";
import { pgMigrations } from "#db/migrations-pg.gen";
import * as sqlite from "#db/schema";
import { pgSchema } from "#db/schema.pg";
import { pendingPgMigration } from "../../../scripts/generate-pg-migrations";
import { skipWithoutPostgres, startPostgres } from "../../support/postgres";

const sqliteTables = (Object.values(sqlite) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable));

describe("one schema, two dialects", () => {
  test("every table, column, nullability and index exists on both", () => {
    const pgByName = new Map(Object.values(pgSchema).map((t) => [pgConfig(t).name, pgConfig(t)]));
    expect(sqliteTables.length).toBeGreaterThan(10);
    for (const t of sqliteTables) {
      const s = sqliteConfig(t);
      const p = pgByName.get(s.name);
      expect({ table: s.name, twin: p !== undefined }).toEqual({ table: s.name, twin: true });
      const cols = (cs: { name: string; notNull: boolean; primary: boolean }[]) =>
        cs.map((c) => [c.name, c.notNull || c.primary]).sort();
      expect({ table: s.name, columns: cols(p!.columns) }).toEqual({ table: s.name, columns: cols(s.columns) });
      const ix = (list: { config: unknown }[]) =>
        list
          .map((i) => {
            const c = i.config as { name: string; unique?: boolean };
            return [c.name, Boolean(c.unique)];
          })
          .sort();
      expect({ table: s.name, indexes: ix(p!.indexes) }).toEqual({ table: s.name, indexes: ix(s.indexes) });
      expect({ table: s.name, fks: p!.foreignKeys.length, pks: p!.primaryKeys.length }).toEqual({
        table: s.name,
        fks: s.foreignKeys.length,
        pks: s.primaryKeys.length,
      });
    }
  });

  test("db/migrations-pg holds a migration for the current schema (run `bun run db:generate`)", async () => {
    const { statements } = await pendingPgMigration();
    expect(statements).toEqual([]);
    expect(pgMigrations.length).toBeGreaterThan(0);
  });

  test.skipIf(skipWithoutPostgres())(
    "the PostgreSQL migrations apply to an empty database",
    async () => {
      const pg = await startPostgres();
      const client = postgres(pg.url, { onnotice: () => {} });
      try {
        const d = drizzle({ client }) as any;
        await d.dialect.migrate(pgMigrations, d.session, { migrationsFolder: "(embedded)" });
        const rows = await client`select table_name from information_schema.tables where table_schema = 'public'`;
        const names = new Set(rows.map((r) => r.table_name as string));
        for (const t of sqliteTables) expect(names.has(sqliteConfig(t).name)).toBe(true);
      } finally {
        await client.end();
        await pg.stop();
      }
    },
    60_000,
  );
});
