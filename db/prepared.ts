/**
 * Hot statements built once. On this stack, building a drizzle query costs
 * ~100 µs and running it on SQLite a few µs: hot-path reads are built once
 * (with `sql.placeholder`s) and reused, per SQLite connection (the same
 * statement serves the database and a transaction on it). On PostgreSQL the
 * network dominates and a statement must run on the transaction's own
 * connection, so the builder is simply built on `t` each time.
 *
 *   const q = prepared(t, "users.byId", (t) => t.select().from(user).where(eq(user.id, sql.placeholder("id"))));
 *   const row = yield* one(q, { id });          // or: await db.one(q, { id })
 */
import { Database } from "bun:sqlite";
import type { Engine, Tx } from "./client";

const cache = new WeakMap<Database, Map<string, unknown>>();

/** The bun:sqlite connection behind a database or transaction handle; undefined on PostgreSQL. */
function connectionOf(t: object): Database | undefined {
  const c = (t as { sqlite?: unknown }).sqlite ?? (t as { session?: { client?: unknown } }).session?.client;
  return c instanceof Database ? c : undefined;
}

/** The engine behind a database or transaction handle. */
export function engineOf(t: object): Engine {
  return connectionOf(t) ? "sqlite" : "postgres";
}

/** The statement `build` makes for `key`, prepared once per SQLite connection. */
export function prepared<D extends Tx, B extends { prepare(): unknown }>(t: D, key: string, build: (t: D) => B): B {
  const conn = connectionOf(t);
  if (!conn) return build(t);
  let m = cache.get(conn);
  if (!m) cache.set(conn, (m = new Map()));
  let st = m.get(key) as B | undefined;
  if (st === undefined) m.set(key, (st = build(t).prepare() as B));
  return st;
}
