/** The SQLite driver (bun:sqlite): the pragmas Atelier relies on, write transactions, the data interface over them. */
import { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { BACKSTOP_PAGES, type Checkpointer, type CheckpointerOptions, startCheckpointer } from "./checkpointer";
import { ownerOnly, privateFile } from "./file-modes";
import { applyMigrations, countApplied } from "./migrate";
import { builders, type Db, type Drizzle, driveSync, type Op, type RawStatement, type Tx } from "./query";
import * as schema from "./schema";

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

/** SQLite's page cache per connection, in KiB (64 MiB). */
export const SQLITE_CACHE_KIB = 65_536;

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
  // The page cache holds the working set (indexes of hot users, the stats rows): SQLite's 2 MiB default made a
  // heavy user's reads go to the OS for every page. Grown as used, per connection (docs/data-layer.md).
  sqlite.exec(`PRAGMA cache_size = -${SQLITE_CACHE_KIB}`);
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
