/**
 * WAL checkpoints on a worker thread (db/checkpointer.ts, docs/decisions/078-wal-checkpoints-on-worker-thread.md): the WAL of
 * a file database stays bounded under sustained writes, what was written ends
 * up in the database file itself and is readable by another process, the
 * thread never keeps a process alive and ends with close(), and the serving
 * connection's own checkpoint takes over when the thread is gone.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "#db/client";
import { rateLimits } from "#db/schema";
import { take } from "~/domain/rate-limits/limiter.server";

const MiB = 1024 * 1024;
const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function file(): string {
  const dir = mkdtempSync(join(tmpdir(), "atelier-ckpt-"));
  dirs.push(dir);
  return join(dir, "atelier.db");
}
const walBytes = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
async function open(path: string, opts: Parameters<typeof openDatabase>[1] = {}): Promise<Db> {
  const db = openDatabase(path, opts);
  dbs.push(db);
  if (db.checkpointer)
    await Promise.race([
      db.checkpointer.started,
      Bun.sleep(5000).then(() => Promise.reject(new Error("the checkpointer did not start"))),
    ]);
  return db;
}
/** A bun subprocess running `code` (bun:sqlite and the repo's imports available); its stdout. */
async function inChild(code: string, timeoutMs = 15_000): Promise<{ out: string; code: number | null }> {
  const proc = Bun.spawn(["bun", "-e", code], {
    cwd: join(import.meta.dir, "../../.."),
    stdout: "pipe",
    stderr: "inherit",
  });
  const killer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  clearTimeout(killer);
  return { out: out.trim(), code: proc.signalCode ? null : proc.exitCode };
}

describe("the checkpointer thread", () => {
  test("keeps the WAL bounded under sustained writes (a PASSIVE checkpoint alone never catches up; the RESTART does)", async () => {
    const path = file();
    const db = await open(path, { checkpointer: { tickMs: 20, restartPages: 500 } });
    // The serving connection checkpoints only as a backstop (10,000 pages), not at SQLite's 1,000.
    expect(db.sqlite!.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: 10_000 });
    const policy = { limit: 1e9, windowMs: 1000 };
    let maxWal = 0;
    // 40,000 limiter writes (the statement every key request runs; ~1.3 pages each), paced like a busy server:
    // unchecked, the WAL would grow to ~200 MiB (this statement's commits never trigger SQLite's own checkpoint).
    for (let i = 0; i < 40_000; i++) {
      await take(db, `user:u${i % 20}`, policy, 1_000_000 + i);
      if (i % 50 === 49) {
        await Bun.sleep(1);
        maxWal = Math.max(maxWal, walBytes(path));
      }
    }
    expect(maxWal).toBeGreaterThan(0);
    // With the RESTART: 6.5 MiB here (restarts at 500 pages, 2 MiB); without it (PASSIVE only) 65.8 MiB.
    expect(maxWal).toBeLessThan(24 * MiB);
  });

  test("copies what was written into the database file (readable by another process) and truncates the WAL when idle", async () => {
    const path = file();
    const db = await open(path, { checkpointer: { tickMs: 20 } });
    for (let i = 0; i < 500; i++) await db.run(db.insert(rateLimits).values({ bucket: `b${i}`, tat: i }));
    expect(walBytes(path)).toBeGreaterThan(0);
    // 25 idle ticks, then a TRUNCATE: the WAL file is empty while the database is still open.
    const deadline = Date.now() + 10_000;
    while (walBytes(path) > 0 && Date.now() < deadline) await Bun.sleep(20);
    expect(walBytes(path)).toBe(0);
    // The database file alone (no WAL beside it) holds every row…
    const copy = join(mkdtempSync(join(tmpdir(), "atelier-ckpt-copy-")), "copy.db");
    dirs.push(join(copy, ".."));
    copyFileSync(path, copy);
    const child = (p: string) =>
      `const { Database } = require("bun:sqlite"); const d = new Database(${JSON.stringify(p)}, { readonly: true }); console.log(d.query("SELECT count(*) AS n, sum(tat) AS s FROM rate_limits").get().n + " " + d.query("SELECT sum(tat) AS s FROM rate_limits").get().s);`;
    expect(await inChild(child(copy))).toEqual({ out: "500 124750", code: 0 });
    // …and another process reads them from the live file.
    expect(await inChild(child(path))).toEqual({ out: "500 124750", code: 0 });
  });

  test("never keeps a process alive, and close() ends it with the WAL checkpointed away", async () => {
    const script = (close: boolean, path: string) => `
      const { openDatabase } = await import("#db/client");
      const db = openDatabase(${JSON.stringify(path)}, { checkpointer: { tickMs: 20 } });
      await db.checkpointer.started;
      for (let i = 0; i < 200; i++) db.sqlite.query("INSERT INTO rate_limits (bucket, tat) VALUES (?, ?)").run("b" + i, i);
      await Bun.sleep(100);
      ${close ? "await db.close();" : ""}
      console.log("done");`;
    const withClose = file();
    const started = Date.now();
    expect(await inChild(script(true, withClose))).toEqual({ out: "done", code: 0 });
    expect(walBytes(withClose)).toBe(0);
    const withoutClose = file();
    expect(await inChild(script(false, withoutClose))).toEqual({ out: "done", code: 0 });
    // Each child ends by itself (a thread kept alive would hold it until the 15 s kill).
    expect(Date.now() - started).toBeLessThan(14_000);
    // What the unclosed one wrote is there all the same.
    const db = await open(withoutClose, { migrate: false });
    expect((await db.raw<{ n: number }>("SELECT count(*) AS n FROM rate_limits").one())!.n).toBe(200);
  });

  test("the serving connection's backstop checkpoint bounds the WAL once the thread is gone", async () => {
    const path = file();
    const db = await open(path, { checkpointer: {} });
    await db.checkpointer!.stop();
    // 30,000 single-page commits: over 100 MiB of WAL without any checkpoint; the backstop restarts it at 10,000 pages.
    const st = db.sqlite!.prepare(
      "INSERT INTO rate_limits (bucket, tat) VALUES ('one', ?) ON CONFLICT (bucket) DO UPDATE SET tat = excluded.tat",
    );
    let maxWal = 0;
    for (let i = 0; i < 30_000; i++) {
      st.run(i);
      if (i % 1000 === 999) maxWal = Math.max(maxWal, walBytes(path));
    }
    expect(maxWal).toBeGreaterThan(20 * MiB);
    expect(maxWal).toBeLessThan(48 * MiB);
  });

  test("an in-memory database has no thread", async () => {
    const db = await open(":memory:", { checkpointer: {} });
    expect(db.checkpointer).toBeUndefined();
  });
});
