/**
 * Hot statements built once. On this stack, building a drizzle query costs
 * ~100 µs and running it on SQLite a few µs: hot-path statements are built once
 * (with `sql.placeholder`s) and reused —
 *
 * - on SQLite per connection (the same statement serves the database and a
 *   transaction on it);
 * - on PostgreSQL per pool: built and rendered once as a named prepared
 *   statement (postgres.js parses it once per connection, then only binds and
 *   executes), and run on the handle's own connection — a transaction's
 *   statement must run on that transaction's connection, so each call gets a
 *   view of the one built statement with the handle's client.
 *
 *   const q = prepared(t, "users.byId", (t) => t.select().from(user).where(eq(user.id, sql.placeholder("id"))));
 *   const row = yield* one(q, { id });          // or: await db.one(q, { id })
 */
import { Database } from "bun:sqlite";
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Engine, Tx } from "./query";

const cache = new WeakMap<object, Map<string, unknown>>();

/** The bun:sqlite connection behind a database or transaction handle; undefined on PostgreSQL. */
function connectionOf(t: object): Database | undefined {
  const c = (t as { sqlite?: unknown }).sqlite ?? (t as { session?: { client?: unknown } }).session?.client;
  return c instanceof Database ? c : undefined;
}

/** The engine behind a database or transaction handle. */
export function engineOf(t: object): Engine {
  return connectionOf(t) ? "sqlite" : "postgres";
}

interface PgHandle {
  /** Shared by a drizzle instance and every transaction opened on it: one per pool. */
  dialect: object;
  session: { client: unknown };
}

/** The drizzle handle (database or transaction) behind a PostgreSQL handle: the data interface's Db has it as `drizzle`. */
function pgHandleOf(t: object): PgHandle | undefined {
  const h = ((t as { drizzle?: unknown }).drizzle ?? t) as Partial<PgHandle>;
  return h.dialect && h.session?.client ? (h as PgHandle) : undefined;
}

/** The statement `build` makes for `key`: prepared once per SQLite connection, or once per PostgreSQL pool. */
export function prepared<D extends Tx, B extends { prepare(): unknown }>(t: D, key: string, build: (t: D) => B): B {
  const conn = connectionOf(t);
  const pg = conn ? undefined : pgHandleOf(t);
  const owner = conn ?? pg?.dialect;
  if (!owner) return build(t);
  let m = cache.get(owner);
  if (!m) cache.set(owner, (m = new Map()));
  let st = m.get(key) as B | undefined;
  if (st === undefined) {
    // PostgreSQL's builders take the statement's name (drizzle then asks postgres.js for a prepared statement).
    const b = build(t);
    st = (conn ? b.prepare() : (b.prepare as (name: string) => unknown).call(b, key)) as B;
    m.set(key, st);
  }
  if (!pg) return st;
  const client = pg.session.client;
  return (st as { client?: unknown }).client === client
    ? st
    : (Object.create(st as object, { client: { value: client } }) as B);
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
