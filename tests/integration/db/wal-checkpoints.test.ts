/**
 * The server checkpoints its SQLite WAL on a worker thread (db/checkpointer.ts,
 * docs/decisions/078-wal-checkpoints-on-worker-thread.md): what requests write reaches the database file itself within a
 * moment, while the server keeps running (SQLite's own checkpoint would wait for
 * 1,000 pages of WAL), and a graceful shutdown leaves no WAL behind.
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, uniqueEmail } from "../../support/client";
import { sqliteOnly } from "../../support/engine";
import { startServer, type TestServer } from "../../support/server";

const test = sqliteOnly("WAL checkpoints are SQLite's; PostgreSQL has none to move");
let server: TestServer;
const scratch = mkdtempSync(join(tmpdir(), "atelier-wal-it-"));
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

/** The database file alone, copied without its WAL: only what a checkpoint has moved there. */
function fileAlone(n: number): Database {
  const copy = join(scratch, `copy-${n}.db`);
  copyFileSync(join(server.dataDir, "atelier.db"), copy);
  return new Database(copy, { readonly: true });
}

describe("WAL checkpoints on the server's own thread", () => {
  test("key requests' writes reach the database file while serving; SIGTERM leaves no WAL", async () => {
    const api = new Client(server.url);
    const { cookie, userId } = await api.signUp(uniqueEmail("wal"));
    const key = (await api.post("/api/keys/create", { name: "wal" }, { cookie })).body.data.key as string;
    for (let i = 0; i < 50; i++)
      expect((await api.post("/api/get-user-credits", undefined, { apiKey: key })).body.code).toBe(0);
    const wal = join(server.dataDir, "atelier.db-wal");
    expect(statSync(wal).size).toBeGreaterThan(0);
    // The user's rate-limit row (written by the key requests) is in the file itself within a few ticks.
    let tat: number | undefined;
    for (let i = 0; i < 60 && tat === undefined; i++) {
      await Bun.sleep(100);
      const db = fileAlone(i);
      tat = (db.query("SELECT tat FROM rate_limits WHERE bucket = ?").get(`user:${userId}`) as { tat: number } | null)
        ?.tat;
      db.close();
    }
    expect(tat).toBeGreaterThan(0);
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
  });
});
