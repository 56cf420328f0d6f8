/** The PostgreSQL driver: postgres.js, imported only when DATABASE_URL names a PostgreSQL database. */
import type { SQL } from "drizzle-orm";
import { migratePg } from "./migrate";
import { builders, type Db, type Drizzle, driveAsync, type Op, type Query, type RawStatement, type Tx } from "./query";

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
/** Seconds postgres.js waits for a connection to be ready before it fails the queries waiting on it. */
export const PG_CONNECT_TIMEOUT_S = 10;

/**
 * Reconnect attempts wait 50 ms, 100 ms, … at most 1 s (postgres.js's default grows to 20 s after a few failed
 * attempts, so after a database restart every request would hang up to 20 s before it is even tried).
 */
export const pgReconnectBackoff = (retries: number) => Math.min(0.05 * 2 ** retries, 1);

export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Db> {
  const { default: postgres } = await import("postgres");
  const { drizzle: drizzlePg } = await import("drizzle-orm/postgres-js");
  const { pgSchema } = await import("./schema.pg");
  const max = opts.poolMax ?? 10;
  const asNumber = { to: 20, from: [20, 1700], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) };
  const client = postgres(url, {
    max,
    types: { int8: asNumber },
    onnotice: () => {},
    connect_timeout: PG_CONNECT_TIMEOUT_S,
    backoff: pgReconnectBackoff,
  });
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
