/**
 * The query style every module writes (docs/data-layer.md): one domain code serves two engines.
 *
 * - single statements outside a transaction: `await db.one(q)`, `db.many(q)`,
 *   `db.run(q)` (rows changed);
 * - transactions: `await db.tx(function* (t) { const r = yield* one(t.select()…); … })`.
 *   The body is a generator: on SQLite it is driven synchronously inside
 *   `BEGIN IMMEDIATE … COMMIT` (nothing else can run on the connection while
 *   the transaction is open, db/sqlite.ts); on PostgreSQL the same body is driven inside an
 *   async transaction, awaiting each statement (db/postgres.ts).
 *
 * Queries are built with drizzle's SQLite builder over the tables of
 * db/schema.ts; on PostgreSQL the same calls build PostgreSQL queries over the
 * same tables (db/schema.pg.ts derives the PostgreSQL DDL from them).
 */
import type { Database } from "bun:sqlite";
import type { SQL } from "drizzle-orm";
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { Checkpointer } from "./checkpointer";
import type * as schema from "./schema";

/** The drizzle builder domain code writes queries with (SQLite-typed on both engines). */
export type Drizzle = BunSQLiteDatabase<typeof schema>;
/** What a transaction body (and a reusable query generator) builds its statements on. */
export type Tx = Pick<Drizzle, "select" | "selectDistinct" | "insert" | "update" | "delete">;

export type Engine = "sqlite" | "postgres";

/** A statement to run: a drizzle builder or a prepared statement (db/prepared.ts). */
export interface Query<R = unknown> {
  all(params?: Record<string, unknown>): R[] | unknown;
  get(params?: Record<string, unknown>): R | undefined | unknown;
  run(params?: Record<string, unknown>): unknown;
}
/** The row type a select (or `…returning()`) produces. */
export type RowOf<Q> = Q extends { all(...a: any[]): infer A } ? (A extends readonly (infer E)[] ? E : never) : never;

/** One step of a transaction body: what the runner executes and passes back. */
export type Op =
  | { k: "one" | "many" | "run"; q: Query; p?: Record<string, unknown> }
  | { k: "lock"; table: string; id: string }
  | { k: "sql"; mode: "many" | "run"; sqlite?: SQL; postgres?: SQL };

/** A transaction body or a reusable sequence of statements. */
export type Steps<T> = Generator<Op, T, any>;

// ---------------------------------------------------------------- statement helpers (yield* them)

/** The first row, or undefined. */
export function* one<Q extends Query>(q: Q, p?: Record<string, unknown>): Steps<RowOf<Q> | undefined> {
  return yield { k: "one", q, p };
}
/** Every row. */
export function* many<Q extends Query>(q: Q, p?: Record<string, unknown>): Steps<RowOf<Q>[]> {
  return yield { k: "many", q, p };
}
/** Runs a write; the number of rows it changed. */
export function* run(q: Query, p?: Record<string, unknown>): Steps<number> {
  return yield { k: "run", q, p };
}
/**
 * Locks one row until the transaction ends (`SELECT … FOR NO KEY UPDATE` on
 * PostgreSQL: see lockQuery). On SQLite the immediate transaction already holds the database
 * write lock, so this is a no-op.
 */
export function* lockRow(table: "user", id: string): Steps<void> {
  yield { k: "lock", table, id };
}
/**
 * A select that locks each row it returns until its statement or transaction ends, skipping rows another
 * transaction holds: PostgreSQL's `FOR UPDATE SKIP LOCKED`, so nodes claiming work at once take disjoint rows
 * without waiting on each other (the job claim's CTEs). SQLite has no row locks (its write transaction already
 * excludes every other writer): the select unchanged.
 */
export function skipLocked<Q extends Query>(q: Q): Q {
  const pg = q as unknown as { for?: (strength: string, config: object) => Q };
  return typeof pg.for === "function" ? pg.for("update", { skipLocked: true }) : q;
}

/** Dialect-specific SQL (the db layer's escape hatch): rows as plain objects. */
export function* rawMany<R>(byEngine: { sqlite: SQL; postgres: SQL }): Steps<R[]> {
  return yield { k: "sql", mode: "many", ...byEngine };
}

/** A unique or primary-key constraint refused a write (either engine; the driver error may be wrapped). */
export function isUniqueViolation(e: unknown): boolean {
  for (
    let c = e as { code?: unknown; cause?: unknown } | null | undefined, i = 0;
    c && i < 4;
    c = c.cause as typeof c, i++
  ) {
    const code = String(c.code ?? "");
    if (
      code.startsWith("SQLITE_CONSTRAINT_PRIMARYKEY") ||
      code.startsWith("SQLITE_CONSTRAINT_UNIQUE") ||
      code === "23505"
    )
      return true;
    if ((c as { errno?: unknown }).errno === "23505") return true;
  }
  return false;
}

// ---------------------------------------------------------------- the database

export interface DbInfo {
  engine: Engine;
  /**
   * Connection pool figures on PostgreSQL: `max` connections this process may
   * open (DATABASE_POOL_MAX); `in_flight` statements and transactions it is
   * waiting on right now (beyond `max` they queue for a connection).
   */
  pool?: { max: number; in_flight: number };
}

/**
 * A plain-SQL statement with `?` parameters, prepared once per connection
 * (hot paths where even drizzle's row mapping shows: session lookup, limiter).
 * Write SQL both engines accept.
 */
export interface RawStatement<R> {
  one(...params: unknown[]): Promise<R | undefined>;
  many(...params: unknown[]): Promise<R[]>;
  /** Rows changed. */
  run(...params: unknown[]): Promise<number>;
}

export interface Db extends Tx {
  readonly engine: Engine;
  /** The drizzle instance (better-auth's adapter, migrations). */
  readonly drizzle: Drizzle;
  /** The tables the drizzle instance was built with (db/schema.ts, or their PostgreSQL twins): better-auth's adapter. */
  readonly tables: Record<
    "user" | "session" | "account" | "verification" | "rateLimit" | "twoFactor" | "passkey",
    object
  >;
  /** The bun:sqlite connection on SQLite (backup, fault tests); undefined on PostgreSQL. */
  readonly sqlite: Database | undefined;
  /** The WAL checkpointing thread of an SQLite file opened with `checkpointer` (db/checkpointer.ts). */
  readonly checkpointer: Checkpointer | undefined;
  one<Q extends Query>(q: Q, p?: Record<string, unknown>): Promise<RowOf<Q> | undefined>;
  many<Q extends Query>(q: Q, p?: Record<string, unknown>): Promise<RowOf<Q>[]>;
  run(q: Query, p?: Record<string, unknown>): Promise<number>;
  /** Runs `body` in one write transaction (SQLite: BEGIN IMMEDIATE, driven synchronously). */
  tx<T>(body: (t: Tx) => Steps<T>): Promise<T>;
  /** Runs a statement sequence outside a transaction (each statement on its own). */
  exec<T>(steps: Steps<T>): Promise<T>;
  /** A portable plain-SQL statement (cached: call it with a constant string). */
  raw<R = Record<string, unknown>>(text: string): RawStatement<R>;
  /** `SELECT 1`: is the database reachable? */
  ping(): Promise<void>;
  info(): DbInfo;
  close(): Promise<void>;
}

/** Drives a statement sequence to its end synchronously (SQLite). */
export function driveSync<T>(steps: Steps<T>, exec: (op: Op) => unknown): T {
  let r = steps.next();
  while (!r.done) {
    let value: unknown;
    try {
      value = exec(r.value);
    } catch (error) {
      r = steps.throw(error);
      continue;
    }
    r = steps.next(value);
  }
  return r.value;
}

/** Drives a statement sequence, awaiting each step (PostgreSQL). */
export async function driveAsync<T>(steps: Steps<T>, exec: (op: Op) => Promise<unknown>): Promise<T> {
  let r = steps.next();
  while (!r.done) {
    let value: unknown;
    try {
      value = await exec(r.value);
    } catch (error) {
      r = steps.throw(error);
      continue;
    }
    r = steps.next(value);
  }
  return r.value;
}

/** The query builders of a drizzle instance, bound to it (what `Db` and a transaction body build on). */
export function builders(d: Drizzle): Tx {
  return {
    select: d.select.bind(d),
    selectDistinct: d.selectDistinct.bind(d),
    insert: d.insert.bind(d),
    update: d.update.bind(d),
    delete: d.delete.bind(d),
  } as Tx;
}
