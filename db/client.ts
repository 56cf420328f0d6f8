/**
 * The data interface every module uses (docs/data-layer.md). One domain code
 * serves two engines:
 *
 * - single statements outside a transaction: `await db.one(q)`, `db.many(q)`,
 *   `db.run(q)` (rows changed);
 * - transactions: `await db.tx(function* (t) { const r = yield* one(t.select()…); … })`.
 *   The body is a generator: on SQLite it is driven synchronously inside
 *   `BEGIN IMMEDIATE … COMMIT` (nothing else can run on the connection while
 *   the transaction is open); on PostgreSQL the same body is driven inside an
 *   async transaction, awaiting each statement.
 *
 * Queries are built with drizzle's SQLite builder over the tables of
 * db/schema.ts; on PostgreSQL the same calls build PostgreSQL queries over the
 * same tables (db/schema.pg.ts derives the PostgreSQL DDL from them).
 */
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import { BACKSTOP_PAGES, type Checkpointer, type CheckpointerOptions, startCheckpointer } from "./checkpointer";
import { migrations } from "./migrations.gen";
import { engineOf } from "./prepared";
import * as schema from "./schema";

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

/**
 * `column IN (the elements of a JSON array parameter)`: one statement text for
 * any number of ids, so it can be prepared once (SQLite `json_each`,
 * PostgreSQL `json_array_elements_text`).
 */
export function inJsonArray(t: Tx, column: SQLWrapper, param: SQLWrapper): SQL {
  return engineOf(t) === "postgres"
    ? sql`${column} in (select value from json_array_elements_text(${param}::json))`
    : sql`${column} in (select value from json_each(${param}))`;
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
  readonly tables: Record<"user" | "session" | "account" | "verification" | "rateLimit", object>;
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

export interface OpenOptions {
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  /** Told how many migrations the open applied, and how many the database had before (the services log an upgrade). */
  onMigrated?: (applied: number, before: number) => void;
  /** How long a writer waits for a lock held by another process (ms). */
  busyTimeoutMs?: number;
  /**
   * Checkpoint the WAL on a worker thread instead of inside a committing
   * statement (db/checkpointer.ts): the services' connection (serve, worker,
   * dev server, admin). Other CLI commands and tests keep SQLite's automatic
   * checkpoint. Ignored for `:memory:`.
   */
  checkpointer?: CheckpointerOptions;
}

/** Executes one step on SQLite, synchronously. */
function sqliteStep(d: Drizzle, op: Op): unknown {
  switch (op.k) {
    case "one":
      return op.q.get(op.p);
    case "many":
      return op.q.all(op.p);
    case "run":
      return (op.q.run(op.p) as { changes: number }).changes;
    case "lock":
      return undefined;
    case "sql":
      if (!op.sqlite) throw new Error("db: no SQLite form for this statement");
      return op.mode === "many" ? d.all(op.sqlite) : (d.run(op.sqlite) as unknown as { changes: number }).changes;
  }
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

function builders(d: Drizzle): Tx {
  return {
    select: d.select.bind(d),
    selectDistinct: d.selectDistinct.bind(d),
    insert: d.insert.bind(d),
    update: d.update.bind(d),
    delete: d.delete.bind(d),
  } as Tx;
}

/**
 * SQLite write transactions that wait for the write lock without stopping the
 * event loop (docs/data-layer.md "Waiting for the write lock").
 *
 * SQLite's own busy handler sleeps the calling thread, in steps of 1, 2, 5, 10,
 * 15, 20, 25… ms, until the lock is free: on the serving connection that is the
 * event loop, so one lock held for 5 ms by another connection (the
 * checkpointer's RESTART, another process's commit) stopped every request, reads
 * included, for 8–55 ms. Here BEGIN IMMEDIATE is tried with no wait; when the
 * lock is taken, the transaction waits on a timer (1 ms, then longer) while
 * other requests run, and tries again. A lock still held once the connection's
 * busy timeout has passed ends as it always did: SQLITE_BUSY ("database is
 * locked"), which a request answers with 503.
 *
 * From BEGIN to COMMIT the body runs synchronously, so no other transaction can
 * start on this connection in between.
 */
function sqliteTransactions(client: Database, busyTimeoutMs: number) {
  const begin = client.prepare("BEGIN IMMEDIATE");
  const commit = client.prepare("COMMIT");
  const rollback = client.prepare("ROLLBACK");
  /** BEGIN IMMEDIATE without the busy handler: false when the lock is taken (or throws it, on the last try). */
  const tryBegin = (last: boolean): boolean => {
    // PRAGMA busy_timeout takes effect when it is prepared, so it is run afresh each time (≈ 1 µs).
    client.run("PRAGMA busy_timeout = 0");
    try {
      begin.run();
      return true;
    } catch (error) {
      if (!last && (error as { code?: string }).code?.startsWith("SQLITE_BUSY")) return false;
      throw error;
    } finally {
      client.run(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    }
  };
  const committed = <T>(body: () => T): T => {
    try {
      const result = body();
      commit.run();
      return result;
    } catch (error) {
      if (client.inTransaction) rollback.run();
      throw error;
    }
  };
  return async function tx<T>(body: () => T): Promise<T> {
    if (tryBegin(false)) return committed(body);
    const deadline = performance.now() + busyTimeoutMs;
    for (let attempt = 1; performance.now() < deadline; attempt++) {
      await Bun.sleep(attempt <= 10 ? 1 : 5);
      if (tryBegin(false)) return committed(body);
    }
    tryBegin(true); // still taken: SQLITE_BUSY, as the busy handler would have ended (a 503 for a request)
    return committed(body);
  };
}

/** Runs `f` now; its result or error as a promise. */
function runNow<T>(f: () => T): Promise<T> {
  try {
    return Promise.resolve(f());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A plain statement that writes (`db.raw`): it waits for the write lock off the event loop, as `db.tx` does. */
const WRITE_SQL = /^\s*(insert|update|delete|replace)\b/i;

/** An SQLite database behind the data interface (`checkpointer` stopped before the connection closes). */
export function sqliteDb(client: Database, checkpointer?: Checkpointer, busyTimeoutMs = 5000): Db {
  const d = drizzle({ client, schema }) as Drizzle;
  const step = (op: Op) => sqliteStep(d, op);
  const transaction = sqliteTransactions(client, busyTimeoutMs);
  // A write outside a transaction is one (SQLite's autocommit): it waits for the lock the same way. Inside one
  // opened by hand (migrations, tests) it just runs.
  const write = <T>(f: () => T): Promise<T> => (client.inTransaction ? runNow(f) : transaction(f));
  const raws = new Map<string, RawStatement<any>>();
  return {
    ...builders(d),
    engine: "sqlite",
    drizzle: d,
    tables: schema,
    sqlite: client,
    checkpointer,
    one: async (q, p) => q.get(p) as any,
    many: async (q, p) => q.all(p) as any,
    run: async (q, p) => write(() => (q.run(p) as { changes: number }).changes),
    // The body builds on the connection's own drizzle handle: on one connection that is the transaction's.
    tx: (body) => transaction(() => driveSync(body(d as unknown as Tx), step)),
    exec: async (steps) => driveSync(steps, step),
    raw(text) {
      let r = raws.get(text);
      if (!r) {
        const st = client.prepare(text);
        const as = WRITE_SQL.test(text) ? write : runNow;
        r = {
          one: (...p: any[]) => as(() => (st.get(...p) as any) ?? undefined),
          many: (...p: any[]) => as(() => st.all(...p) as any[]),
          run: (...p: any[]) => as(() => st.run(...p).changes),
        };
        raws.set(text, r);
      }
      return r;
    },
    ping: async () => {
      client.query("SELECT 1").get();
    },
    info: () => ({ engine: "sqlite" }),
    close: async () => {
      await checkpointer?.stop();
      client.close();
    },
  };
}

/**
 * Opens (creating if needed) the SQLite file, sets the pragmas Atelier relies
 * on and applies the embedded migrations. `:memory:` works for unit tests.
 */
export function openDatabase(path: string, opts: OpenOptions = {}): Db {
  if (path !== ":memory:") privateFile(path);
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  // SQLite gives the -wal and -shm files the database file's mode; older installs may have made them 0644.
  if (path !== ":memory:") for (const f of [`${path}-wal`, `${path}-shm`]) ownerOnly(f);
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  const busyTimeoutMs = opts.busyTimeoutMs ?? 5000;
  sqlite.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  let checkpointer: Checkpointer | undefined;
  if (opts.checkpointer && path !== ":memory:") {
    sqlite.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    checkpointer = startCheckpointer(path, opts.checkpointer);
  }
  const db = sqliteDb(sqlite, checkpointer, busyTimeoutMs);
  if (opts.migrate !== false) {
    try {
      const before = countApplied(db);
      const applied = applyMigrations(db); // not inside `onMigrated?.(…)`: that would skip it when no one listens
      opts.onMigrated?.(applied, before);
    } catch (error) {
      void checkpointer?.stop();
      sqlite.close();
      throw error;
    }
  }
  return db;
}

/** The database file (and its folder, 0700 when new) readable by this user only: it holds sessions and key hashes. */
function privateFile(path: string): void {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (existsSync(path)) ownerOnly(path);
  else writeFileSync(path, "", { mode: 0o600, flag: "a" });
}

/** chmod 0600 when the file exists and is ours (another user's file is left alone). */
function ownerOnly(file: string): void {
  try {
    chmodSync(file, 0o600);
  } catch {}
}

/**
 * The database was last migrated by a newer Atelier than this executable (a rollback to the old binary, or an old
 * node started after a newer one migrated): its schema may hold what this version cannot read or keep right, so
 * nothing starts on it. Printed as one line by the CLI (exit status 1).
 */
export class NewerDatabaseError extends Error {}

/** Refuses a database whose newest applied migration is newer than every migration this executable embeds. */
export function refuseNewerDatabase(
  appliedNewest: number | null,
  embedded: readonly { folderMillis: number }[],
  where: string,
): void {
  const ours = Math.max(...embedded.map((m) => m.folderMillis));
  if (appliedNewest === null || !(appliedNewest > ours)) return;
  const day = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
  throw new NewerDatabaseError(
    `${where} was migrated by a newer version of Atelier (its newest migration is from ${day(appliedNewest)}, this executable's from ${day(ours)}): ` +
      "run that newer version, or restore the backup taken before the upgrade (docs/self-hosting.md §7)",
  );
}

export function applyMigrations(db: Db): number {
  const d = db.drizzle as any;
  refuseNewerDatabase(newestApplied(db), migrations, `database ${db.sqlite!.filename}`);
  const before = countApplied(db);
  // drizzle's dialect runs the pending ones inside one transaction.
  d.dialect.migrate(migrations, d.session, { migrationsFolder: "(embedded)" });
  return countApplied(db) - before;
}

function newestApplied(db: Db): number | null {
  try {
    const row = db.sqlite!.query("SELECT max(created_at) AS t FROM __drizzle_migrations").get() as {
      t: number | null;
    } | null;
    return row?.t == null ? null : Number(row.t);
  } catch {
    return null; // a new database: no migrations table yet
  }
}

function countApplied(db: Db): number {
  try {
    const row = db.sqlite!.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number } | null;
    return row?.n ?? 0;
  } catch {
    return 0;
  }
}

export { schema };

// ---------------------------------------------------------------- PostgreSQL

export interface PostgresOptions {
  /** Connections in the pool (default 10). */
  poolMax?: number;
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  /** Told how many migrations the open applied, and how many the database had before. */
  onMigrated?: (applied: number, before: number) => void;
}

/** `?` parameters (the portable raw-SQL form) → `$1…$n`; leaves `?` inside quotes alone. */
export function toDollarParams(text: string): string {
  let n = 0;
  let quote: string | null = null;
  let out = "";
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === "?") out += `$${++n}`;
    else out += ch;
  }
  return out;
}

/**
 * PostgreSQL behind the same interface (DATABASE_URL). The driver is postgres.js
 * (docs/decisions/053-postgresql-driver.md): bigint and numeric come back as JavaScript numbers, as
 * SQLite's integers do, so the shared query builder's row mapping holds.
 */
export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Db> {
  const { default: postgres } = await import("postgres");
  const { drizzle: drizzlePg } = await import("drizzle-orm/postgres-js");
  const { pgSchema } = await import("./schema.pg");
  const max = opts.poolMax ?? 10;
  const asNumber = { to: 20, from: [20, 1700], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) };
  // Reconnect attempts wait 50 ms, 100 ms, … at most 1 s (postgres.js's default grows to 20 s after a few failed
  // attempts, so after a database restart every request would hang up to 20 s before it is even tried).
  const backoff = (retries: number) => Math.min(0.05 * 2 ** retries, 1);
  const client = postgres(url, { max, types: { int8: asNumber }, onnotice: () => {}, connect_timeout: 10, backoff });
  const d = drizzlePg({ client, schema: pgSchema }) as unknown as Drizzle & { execute(q: SQL): Promise<any> };
  const exec = (q: Query, p?: Record<string, unknown>) =>
    (q as unknown as { execute(p?: Record<string, unknown>): Promise<any> }).execute(p);
  const step = async (t: any, op: Op): Promise<unknown> => {
    switch (op.k) {
      case "one":
        return (await exec(op.q, op.p))[0];
      case "many":
        return [...(await exec(op.q, op.p))];
      case "run":
        return (await exec(op.q, op.p)).count as number;
      case "lock":
        await lockQuery(t, op);
        return undefined;
      case "sql": {
        if (!op.postgres) throw new Error("db: no PostgreSQL form for this statement");
        const res = await t.execute(op.postgres);
        return op.mode === "many" ? [...res] : res.count;
      }
    }
  };
  const raws = new Map<string, RawStatement<any>>();
  let inFlight = 0;
  const counted = async <T>(work: Promise<T>): Promise<T> => {
    inFlight++;
    try {
      return await work;
    } finally {
      inFlight--;
    }
  };
  const db: Db = {
    ...builders(d),
    engine: "postgres",
    drizzle: d,
    tables: pgSchema,
    sqlite: undefined,
    checkpointer: undefined,
    one: async (q, p) => (await counted(exec(q, p)))[0],
    many: async (q, p) => [...(await counted(exec(q, p)))],
    run: async (q, p) => (await counted(exec(q, p))).count,
    tx: (body) =>
      counted(
        (d as any).transaction(async (t: any) => {
          const locks = pipelineLocks(t, (op) => step(t, op));
          const value = await driveAsync(body(t as Tx), locks.step);
          await locks.settle(); // a lock the body ended on: held (or its error thrown) before COMMIT
          return value;
        }),
      ),
    exec: (steps) => counted(driveAsync(steps, (op) => step(d, op))),
    raw(text) {
      let r = raws.get(text);
      if (!r) {
        const pgText = toDollarParams(text);
        const q = (params: unknown[]) => counted(client.unsafe(pgText, params as any[], { prepare: true }));
        r = {
          one: async (...p: unknown[]) => (await q(p))[0],
          many: async (...p: unknown[]) => [...(await q(p))],
          run: async (...p: unknown[]) => (await q(p)).count,
        };
        raws.set(text, r);
      }
      return r;
    },
    ping: async () => {
      await client`select 1`;
    },
    info: () => ({ engine: "postgres", pool: { max, in_flight: inFlight } }),
    close: () => client.end({ timeout: 5 }),
  };
  if (opts.migrate !== false) {
    try {
      const { applied, before } = await migratePg(db);
      opts.onMigrated?.(applied, before);
    } catch (error) {
      await client.end({ timeout: 1 }).catch(() => {});
      throw error;
    }
  }
  return db;
}

/**
 * `SELECT … FOR NO KEY UPDATE` of one row, as a prepared statement on the handle's own connection (one round trip,
 * not two). Two such locks on one row exclude each other (what serialises a user's balance checks), but neither
 * blocks the `FOR KEY SHARE` that PostgreSQL's foreign-key checks take on the row: with `FOR UPDATE`, a task's
 * completion (its status change updates the user's generation stats row by trigger, then its debit row checks its
 * key to the user) and a create of the same user (user locked, then the insert's trigger on the stats row) waited
 * on each other — "deadlock detected", HTTP 500 (generation-runners.test on PostgreSQL).
 */
function lockQuery(t: { session: { client: any } }, op: Extract<Op, { k: "lock" }>): Promise<unknown> {
  if (!/^[a-z_]+$/.test(op.table)) throw new Error(`db: cannot lock rows of ${op.table}`);
  return t.session.client.unsafe(`select 1 from "${op.table}" where id = $1 for no key update`, [op.id], {
    prepare: true,
  });
}

/**
 * A transaction's steps with each row lock sent together with the statement after it (pipelined: one round trip
 * for both). PostgreSQL runs them in order on the transaction's connection, and in READ COMMITTED the next
 * statement takes its snapshot when it starts, after the lock is held: it reads what the lock's previous holder
 * committed, exactly as when the lock is awaited first.
 */
function pipelineLocks(t: { session: { client: any } }, exec: (op: Op) => Promise<unknown>) {
  let lock: Promise<unknown> | undefined;
  const settle = async () => {
    const held = lock;
    lock = undefined;
    await held;
  };
  const step = async (op: Op): Promise<unknown> => {
    if (op.k === "lock") {
      await settle();
      lock = lockQuery(t, op);
      lock.catch(() => {}); // its failure is the next statement's too (the transaction is aborted): thrown there
      return undefined;
    }
    if (!lock) return exec(op);
    const held = lock;
    lock = undefined;
    const [, value] = await Promise.all([held, exec(op)]);
    return value;
  };
  return { step, settle };
}

/**
 * Applies the embedded PostgreSQL migrations in one transaction, on one reserved
 * connection holding an advisory lock, so nodes starting together migrate once.
 */
export async function applyPgMigrations(db: Db): Promise<number> {
  return (await migratePg(db)).applied;
}

async function migratePg(db: Db): Promise<{ applied: number; before: number }> {
  const { pgMigrations } = await import("./migrations-pg.gen");
  const client = (db.drizzle as unknown as { $client: { reserve(): Promise<any> } }).$client;
  const conn = await client.reserve();
  const applied = async () => {
    const [row] = await conn`select count(*)::int as n from drizzle.__drizzle_migrations`.catch(() => [{ n: 0 }]);
    return Number(row?.n ?? 0);
  };
  try {
    await conn`select pg_advisory_lock(7230114)`;
    const [newest] = await conn`select max(created_at)::text as t from drizzle.__drizzle_migrations`.catch(() => [
      { t: null },
    ]);
    refuseNewerDatabase(newest?.t == null ? null : Number(newest.t), pgMigrations, "the PostgreSQL database");
    const before = await applied();
    const d = db.drizzle as any;
    await d.dialect.migrate(pgMigrations, d.session, { migrationsFolder: "(embedded)" });
    return { applied: (await applied()) - before, before };
  } finally {
    await conn`select pg_advisory_unlock(7230114)`.catch(() => {});
    conn.release();
  }
}
