/**
 * A write transaction that finds SQLite's write lock taken by another
 * connection waits off the event loop (db/sqlite.ts, sqliteTransactions;
 * docs/data-layer.md "Waiting for the write lock"): timers and other requests
 * keep running meanwhile, the transaction runs once the lock is free, and a lock
 * held past the busy timeout still ends in SQLITE_BUSY (a 503 for a request).
 *
 * The lock is held by another process, as the checkpointer's RESTART or a
 * worker process holds it. Before, SQLite's busy handler slept the calling
 * thread — the serving event loop — until the lock was free.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { type Db, openDatabase, rawMany } from "#db/client";
import { isDatabaseBusy } from "~/lib/errors";

const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(busyTimeoutMs?: number): { db: Db; path: string } {
  const dir = mkdtempSync(join(tmpdir(), "atelier-wait-"));
  dirs.push(dir);
  const path = join(dir, "atelier.db");
  const db = openDatabase(path, { migrate: false, busyTimeoutMs });
  db.sqlite!.exec("CREATE TABLE t (x INTEGER)");
  dbs.push(db);
  return { db, path };
}

/** Another process takes the write lock (BEGIN IMMEDIATE), says so, and commits after `holdMs`. */
async function holdWriteLock(path: string, holdMs: number): Promise<{ exited: Promise<number> }> {
  const code = `const { Database } = require("bun:sqlite");
    const d = new Database(${JSON.stringify(path)});
    d.exec("BEGIN IMMEDIATE"); d.exec("INSERT INTO t VALUES (0)");
    console.log("held");
    setTimeout(() => { d.exec("COMMIT"); d.close(); }, ${holdMs});`;
  const proc = Bun.spawn(["bun", "-e", code], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  if (!first.includes("held")) throw new Error(`the lock holder said ${JSON.stringify(first)}`);
  return { exited: proc.exited };
}

/** The longest gap between ticks of a 5 ms interval while `work` runs: how long the event loop stood still. */
async function longestStall(
  work: () => Promise<unknown>,
): Promise<{ stallMs: number; result: PromiseSettledResult<unknown> }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 5);
  const [result] = await Promise.allSettled([work()]);
  clearInterval(timer);
  return { stallMs: Math.max(stallMs, performance.now() - last), result: result! };
}

const insert = (x: number) =>
  function* () {
    yield* rawMany({ sqlite: sql`INSERT INTO t VALUES (${x})`, postgres: sql`select 1` });
    return x;
  };

test("a transaction waiting for another process's write lock does not stop the event loop, and runs once the lock is free", async () => {
  const { db, path } = open();
  const holder = await holdWriteLock(path, 800);
  const started = performance.now();
  const { stallMs, result } = await longestStall(() => db.tx(insert(1)));
  const waited = performance.now() - started;
  expect(result).toEqual({ status: "fulfilled", value: 1 });
  // It ran after the holder's commit (≈ 800 ms), and the loop ticked all along (the busy handler stood ≈ 800 ms still).
  expect(waited).toBeGreaterThan(600);
  expect(stallMs).toBeLessThan(300);
  expect(await holder.exited).toBe(0);
  expect(db.sqlite!.query("SELECT x FROM t ORDER BY rowid").all()).toEqual([{ x: 0 }, { x: 1 }]);
});

test("transactions waiting together each run once, in full, after the lock is free", async () => {
  const { db } = open();
  const holder = await holdWriteLock(db.sqlite!.filename, 300);
  const results = await Promise.all([1, 2, 3, 4, 5].map((x) => db.tx(insert(x))));
  expect(results).toEqual([1, 2, 3, 4, 5]);
  await holder.exited;
  const rows = db.sqlite!.query("SELECT x FROM t WHERE x > 0 ORDER BY x").all();
  expect(rows).toEqual([{ x: 1 }, { x: 2 }, { x: 3 }, { x: 4 }, { x: 5 }]);
  // Nothing is left open on the connection: the next transaction starts at once.
  expect(db.sqlite!.inTransaction).toBe(false);
  expect(await db.tx(insert(6))).toBe(6);
});

test("a lock held past the busy timeout ends in SQLITE_BUSY (503), still without stopping the event loop", async () => {
  const { db } = open(400);
  const holder = await holdWriteLock(db.sqlite!.filename, 1500);
  const started = performance.now();
  const { stallMs, result } = await longestStall(() => db.tx(insert(1)));
  const waited = performance.now() - started;
  expect(result.status).toBe("rejected");
  expect(isDatabaseBusy((result as PromiseRejectedResult).reason)).toBe(true);
  expect(waited).toBeGreaterThan(350);
  expect(waited).toBeLessThan(1400);
  expect(stallMs).toBeLessThan(250);
  expect(db.sqlite!.inTransaction).toBe(false);
  await holder.exited;
  // The holder's row only: the refused transaction wrote nothing; the connection works again.
  expect(db.sqlite!.query("SELECT x FROM t").all()).toEqual([{ x: 0 }]);
  expect(await db.tx(insert(2))).toBe(2);
});

test("single writes outside a transaction (db.run, a plain INSERT/UPDATE) wait the same way; plain reads do not wait at all", async () => {
  const { db, path } = open();
  const holder = await holdWriteLock(path, 600);
  const reads: number[] = [];
  const { stallMs, result } = await longestStall(async () => {
    const pending = [
      db.raw("INSERT INTO t VALUES (?)").run(1),
      db.raw<{ x: number }>("UPDATE t SET x = x + 10 WHERE x = ? RETURNING x").one(1),
      db.run({ run: () => db.sqlite!.prepare("INSERT INTO t VALUES (3)").run(), all: () => [], get: () => undefined }),
    ];
    // Meanwhile reads answer at once, from the last committed state (the holder's row is not committed yet).
    reads.push(Number((await db.raw<{ n: number }>("SELECT count(*) AS n FROM t").one())!.n));
    return Promise.all(pending);
  });
  expect(result).toEqual({ status: "fulfilled", value: [1, { x: 11 }, 1] });
  expect(reads).toEqual([0]);
  expect(stallMs).toBeLessThan(300);
  await holder.exited;
  expect(db.sqlite!.query("SELECT x FROM t ORDER BY rowid").all()).toEqual([{ x: 0 }, { x: 11 }, { x: 3 }]);
});

test("a body that throws rolls back and gives the lock up", async () => {
  const { db } = open();
  const failing = db.tx(function* () {
    yield* rawMany({ sqlite: sql`INSERT INTO t VALUES (9)`, postgres: sql`select 1` });
    throw new Error("refused");
  });
  await expect(failing).rejects.toThrow("refused");
  expect(db.sqlite!.inTransaction).toBe(false);
  expect(db.sqlite!.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 0 });
  expect(await db.tx(insert(1))).toBe(1);
});
