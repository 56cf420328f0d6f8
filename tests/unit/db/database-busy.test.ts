/**
 * A database that cannot answer right now is `503 service busy, please try
 * again` (with Retry-After), on both engines: SQLite's lock timeouts, and
 * PostgreSQL restarting or unreachable — checked with the errors the real
 * driver (postgres.js, wrapped by drizzle) raises against a throwaway cluster.
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { type Db, openPostgres, rawMany } from "#db/client";
import { user } from "#db/schema";
import { errorResponse } from "~/http/api.server";
import { isDatabaseBusy } from "~/lib/errors";
import { hasPostgres, type Postgres, startPostgres } from "../../support/postgres";

async function caught(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

/** A statement that runs for 5 s on PostgreSQL. */
const rawSleep = () => rawMany({ sqlite: sql`select 1`, postgres: sql`select pg_sleep(5)` });

async function expect503(error: unknown) {
  const res = errorResponse(error);
  expect(res.status).toBe(503);
  expect(res.headers.get("retry-after")).toBe("1");
  expect(await res.json()).toEqual({ code: 1, message: "service busy, please try again", data: null });
}

test("SQLite: a lock held by another connection beyond busy_timeout is busy", async () => {
  const file = `/tmp/atelier-busy-${crypto.randomUUID()}.db`;
  const a = new Database(file);
  const b = new Database(file);
  a.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)");
  b.exec("PRAGMA busy_timeout = 1");
  const error = await caught(async () => b.exec("BEGIN IMMEDIATE"));
  a.exec("ROLLBACK");
  a.close();
  b.close();
  expect(isDatabaseBusy(error)).toBe(true);
  await expect503(error);
});

test("other errors are not busy: a plain Error, a unique violation, undefined", () => {
  expect(isDatabaseBusy(new Error("boom"))).toBe(false);
  expect(isDatabaseBusy(Object.assign(new Error("dup"), { code: "23505" }))).toBe(false);
  expect(isDatabaseBusy(Object.assign(new Error("x"), { code: "SQLITE_CONSTRAINT_UNIQUE" }))).toBe(false);
  expect(isDatabaseBusy(undefined)).toBe(false);
  expect(errorResponse(new Error("boom")).status).toBe(500);
});

describe.skipIf(!hasPostgres())("PostgreSQL", () => {
  let pg: Postgres;
  let db: Db;

  beforeAll(async () => {
    pg = await startPostgres();
    db = await openPostgres(pg.url, { poolMax: 4 });
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await pg?.stop();
  });

  test("connection refused (nothing listens) is busy", async () => {
    const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = s.port;
    s.stop(true);
    const { default: postgres } = await import("postgres");
    const client = postgres(`postgres://postgres@127.0.0.1:${port}/atelier`, {
      max: 1,
      connect_timeout: 2,
      onnotice: () => {},
    });
    const error = await caught(() => client`select 1`);
    await client.end({ timeout: 1 });
    expect((error as { code?: string }).code).toBe("ECONNREFUSED");
    expect(isDatabaseBusy(error)).toBe(true);
    await expect503(error);
  });

  test("a connection the server terminates (57P01 admin_shutdown, as in a fast shutdown) is busy; the pool carries on", async () => {
    const client = (db.drizzle as unknown as { $client: import("postgres").Sql }).$client;
    const running = caught(() => db.exec(rawSleep()));
    await Bun.sleep(300);
    const other = await openPostgres(pg.url, { poolMax: 1, migrate: false });
    await other.exec(
      rawMany({
        sqlite: sql`select 1`,
        postgres: sql`select pg_terminate_backend(pid) from pg_stat_activity where query like 'select pg_sleep%' and pid <> pg_backend_pid()`,
      }),
    );
    await other.close();
    const error = await running;
    // postgres.js reports the server's 57P01, or the closed connection when the socket closes first.
    expect(["57P01", "CONNECTION_CLOSED"]).toContain(
      String((error as { code?: string; cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code),
    );
    expect(isDatabaseBusy(error)).toBe(true);
    await expect503(error);
    expect([...(await client`select 1 as one`)]).toEqual([{ one: 1 }]);
  });

  test("PostgreSQL's own codes for a server starting or stopping are busy", async () => {
    const { default: postgres } = await import("postgres");
    for (const code of ["57P01", "57P02", "57P03", "08006", "53300"]) {
      const error = new postgres.PostgresError({ code, message: code } as never);
      expect(isDatabaseBusy(new Error("Failed query: select 1", { cause: error }))).toBe(true);
    }
    expect(isDatabaseBusy(new postgres.PostgresError({ code: "23505", message: "duplicate" } as never))).toBe(false);
  });

  test("PostgreSQL stopped: the query error drizzle raises is busy; after the restart the same pool works again", async () => {
    await pg.stopServer();
    let error: unknown;
    try {
      error = await caught(() => db.many(db.select().from(user)));
    } finally {
      await pg.startServer();
    }
    expect(isDatabaseBusy(error)).toBe(true);
    await expect503(error);
    expect(await db.many(db.select().from(user))).toEqual([]);
  });
});
