/**
 * The PostgreSQL twin of db/schema.ts, derived from it: db/schema.ts stays the
 * one source of truth, and a table added there exists here without another
 * line. drizzle-kit generates the PostgreSQL migrations from this file
 * (drizzle.pg.config.ts); tests/unit/db/schema-pg.test.ts fails if the two drift.
 *
 * Column types keep the SQLite representation, so the same parameters and the
 * same raw SQL work on both engines:
 * - text → text;
 * - integer, and `timestamp_ms` times → bigint (times stay milliseconds since the epoch, not timestamptz);
 * - integer booleans → integer 0/1 (PostgreSQL's boolean refuses the integer parameters the shared query
 *   builder sends).
 * The driver reads bigint and numeric as JavaScript numbers (db/postgres.ts).
 */
import { getTableColumns, is, SQL, sql } from "drizzle-orm";
import {
  bigint,
  customType,
  foreignKey,
  index,
  type PgColumnBuilderBase,
  type PgTableWithColumns,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as sqlite from "./schema";

/** Milliseconds since the epoch in a bigint, a Date in JavaScript (better-auth writes Dates through these tables). */
const msDate = customType<{ data: Date; driverData: number | string }>({
  dataType: () => "bigint",
  toDriver: (d) => (d instanceof Date ? d.getTime() : Number(d)),
  fromDriver: (v) => new Date(Number(v)),
});

/** A boolean stored as integer 0/1, as on SQLite. */
const intBool = customType<{ data: boolean; driverData: number }>({
  dataType: () => "integer",
  toDriver: (b) => (b ? 1 : 0),
  fromDriver: (v) => Number(v) === 1,
});

/** SQLite default expressions and their PostgreSQL forms. */
const DEFAULT_SQL: Record<string, string> = {
  "(unixepoch('subsec') * 1000)": "(floor(extract(epoch from clock_timestamp()) * 1000))::bigint",
};

function sqlText(s: SQL): string {
  return s.queryChunks
    .map((c) => (typeof c === "object" && c && "value" in c ? (c as { value: string[] }).value.join("") : String(c)))
    .join("");
}

function pgColumn(col: ReturnType<typeof getTableConfig>["columns"][number]): PgColumnBuilderBase {
  const t = col.columnType;
  let b: any;
  if (t === "SQLiteText") b = text(col.name);
  else if (t === "SQLiteBoolean") b = intBool(col.name);
  else if (t === "SQLiteTimestamp") b = msDate(col.name);
  else if (t === "SQLiteInteger") b = bigint(col.name, { mode: "number" });
  else throw new Error(`schema.pg: no PostgreSQL form for ${col.name} (${t}); extend db/schema.pg.ts`);
  if (col.primary) b = b.primaryKey();
  if (col.notNull && !col.primary) b = b.notNull();
  if (col.isUnique) b = b.unique(col.uniqueName);
  if (col.hasDefault && col.default !== undefined) {
    if (is(col.default, SQL)) {
      const text = sqlText(col.default);
      const pg = DEFAULT_SQL[text];
      if (!pg) throw new Error(`schema.pg: no PostgreSQL form for the default ${text} of ${col.name}`);
      b = b.default(sql.raw(pg));
    } else {
      b = b.default(typeof col.default === "boolean" ? sql.raw(col.default ? "1" : "0") : col.default);
    }
  }
  return b;
}

/** Rewrites an SQLite partial-index condition for PostgreSQL (plain column names: the same text). */
const whereOf = (w: SQL | undefined) => (w ? sql.raw(sqlText(w)) : undefined);

const twins = new Map<SQLiteTable, PgTableWithColumns<any>>();

function derive(table: SQLiteTable): PgTableWithColumns<any> {
  const existing = twins.get(table);
  if (existing) return existing;
  const cfg = getTableConfig(table);
  const keyOf = new Map(Object.entries(getTableColumns(table)).map(([k, c]) => [c.name, k]));
  const columns: Record<string, PgColumnBuilderBase> = {};
  for (const c of cfg.columns) columns[keyOf.get(c.name)!] = pgColumn(c);
  const pg = pgTable(cfg.name, columns, (t: any) => {
    const col = (name: string) => t[keyOf.get(name)!];
    const extras: any[] = [];
    for (const pk of cfg.primaryKeys)
      extras.push(primaryKey({ columns: pk.columns.map((c) => col(c.name)) as [any, ...any[]] }));
    for (const ix of cfg.indexes) {
      const c = ix.config;
      const on = c.columns.map((x) => col((x as { name: string }).name));
      let built = (c.unique ? uniqueIndex(c.name) : index(c.name)).on(...(on as [any, ...any[]]));
      const where = whereOf(c.where);
      if (where) built = built.where(where);
      extras.push(built);
    }
    for (const fk of cfg.foreignKeys) {
      const ref = fk.reference();
      const target = derive(ref.foreignTable);
      const targetKey = new Map(Object.entries(getTableColumns(ref.foreignTable)).map(([k, c]) => [c.name, k]));
      let built = foreignKey({
        name: fk.getName(),
        columns: ref.columns.map((c) => col(c.name)) as [any, ...any[]],
        foreignColumns: ref.foreignColumns.map((c) => (target as any)[targetKey.get(c.name)!]) as [any, ...any[]],
      });
      if (fk.onDelete) built = built.onDelete(fk.onDelete);
      if (fk.onUpdate) built = built.onUpdate(fk.onUpdate);
      extras.push(built);
    }
    return extras;
  });
  twins.set(table, pg);
  return pg;
}

const tables = Object.fromEntries(
  Object.entries(sqlite)
    .filter(([, v]) => is(v, SQLiteTable))
    .map(([k, v]) => [k, derive(v as SQLiteTable)]),
) as { [K in keyof typeof sqlite as (typeof sqlite)[K] extends SQLiteTable ? K : never]: PgTableWithColumns<any> };

export const pgSchema = tables;
