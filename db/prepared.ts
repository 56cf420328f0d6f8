/**
 * Prepared statements cached per SQLite connection. On this stack, building a
 * drizzle query costs ~100 µs, running it a few µs: hot-path reads are built
 * once (with `sql.placeholder`s) and reused. Works for the database and for a
 * transaction handle alike (both run on the same connection).
 */
import type { Database } from "bun:sqlite";

const cache = new WeakMap<Database, Map<string, unknown>>();

/** The bun:sqlite connection behind a drizzle database or transaction handle. */
function connectionOf(dbOrTx: object): Database {
  const c = (dbOrTx as { $client?: Database }).$client ?? (dbOrTx as { session?: { client?: Database } }).session?.client;
  if (!c) throw new Error("prepared: not a bun-sqlite drizzle handle");
  return c;
}

/** The statement `build` makes for `key`, built once per connection. */
export function prepared<D extends object, T>(dbOrTx: D, key: string, build: (db: D) => T): T {
  const conn = connectionOf(dbOrTx);
  let m = cache.get(conn);
  if (!m) cache.set(conn, (m = new Map()));
  let st = m.get(key) as T | undefined;
  if (st === undefined) m.set(key, (st = build(dbOrTx)));
  return st;
}
