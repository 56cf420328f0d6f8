/**
 * The database locked by another process (a child holding `BEGIN EXCLUSIVE`):
 * for less than busy_timeout (5 s) requests wait and succeed; for longer,
 * writes fail with a clean envelope (HTTP 503 `service busy, please try
 * again`, Retry-After) and nothing is written; the server never crashes, a
 * task in flight still ends completed, and everything works after.
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { join } from "node:path";
import { Client, uniqueEmail } from "../../support/client";
import { onPostgres, sqliteOnly } from "../../support/engine";
import { startServer, type TestServer } from "../../support/server";
import { count, expectHealthy, expectLedgerBalanced, finalState, waitUntil } from "./support";

let server: TestServer;
let c: Client;
let cookie: string;
const IMAGE = {
  ai_type: "image",
  provider: "replicate",
  model: "black-forest-labs/flux-schnell",
  prompt: "while locked",
} as const;

/** Holds an exclusive write lock on the server's database for `ms`; resolves once the lock is taken. */
async function lockDatabase(dataDir: string, ms: number) {
  const script = `
    import { Database } from "bun:sqlite";
    const db = new Database(${JSON.stringify(join(dataDir, "atelier.db"))});
    db.exec("PRAGMA busy_timeout = 10000");
    db.exec("BEGIN EXCLUSIVE");
    console.log("locked");
    await Bun.sleep(${ms});
    db.exec("COMMIT");
    console.log("released");
  `;
  const proc = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "inherit" });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toContain("locked");
  return { proc, released: proc.exited };
}

// PostgreSQL has no file lock: its faults are the restart test (postgres-restart.test.ts).
const test = sqliteOnly("the SQLite file's write lock and busy_timeout");

beforeAll(async () => {
  if (onPostgres) return;
  server = await startServer({ env: { SIMULATOR_DELAY_MS: "300", JOB_LEASE_MS: "1500", SIGNUP_CREDITS: "100" } });
  c = new Client(server.url);
  ({ cookie } = await c.signUp(uniqueEmail("locked")));
});
afterAll(() => server?.dispose());

describe("database locked by another process", () => {
  test("locked for 2.5 s (< busy_timeout): reads answer, writes wait and succeed, no 5xx", async () => {
    const lock = await lockDatabase(server.dataDir, 2500);
    const t0 = Date.now();
    const timed = async <T>(p: Promise<T>) => {
      const v = await p;
      return { v, ms: Date.now() - t0 };
    };
    const [credits, history, generate, ping, feedback] = await Promise.all([
      timed(c.post("/api/get-user-credits", undefined, { cookie })),
      timed(c.post("/api/generator/history", {}, { cookie })),
      timed(c.post("/api/generator/generate", IMAGE, { cookie })),
      timed(c.post("/api/ping", {}, { cookie })),
      timed(c.post("/api/add-feedback", { content: "locked out?", rating: 4 }, { cookie })),
    ]);
    await lock.released;
    for (const r of [credits, history, generate, ping, feedback]) {
      expect(r.v.status).toBe(200);
      expect(r.v.body.code).toBe(0);
    }
    // WAL: readers are not blocked by a writer; the writes waited for the lock.
    expect(credits.ms).toBeLessThan(2000);
    expect(generate.ms).toBeGreaterThanOrEqual(1500);
    expect(ping.ms).toBeGreaterThanOrEqual(1500);
    expect((await finalState(c, { cookie }, generate.v.body.data.gen_id)).status).toBe("completed");
  }, 30_000);

  test("locked for 6.5 s (> busy_timeout): a write fails with a 503 envelope and writes nothing; a task in flight still completes", async () => {
    // A task whose completion will run into the lock.
    const inflight = (
      await c.post("/api/generator/generate", { ...IMAGE, prompt: "completes into the lock" }, { cookie })
    ).body.data.gen_id as string;
    await waitUntil(
      async () =>
        (await count(
          server.dataDir,
          "SELECT count(*) AS n FROM generations WHERE id = ? AND status = 'processing'",
          inflight,
        )) === 1,
      5000,
      "task processing",
    );
    const tasksBefore = await count(server.dataDir, "SELECT count(*) AS n FROM generations");
    const feedbackBefore = await count(server.dataDir, "SELECT count(*) AS n FROM feedback");
    const lock = await lockDatabase(server.dataDir, 6500);
    // bun:sqlite waits for a lock synchronously: the first write to wait holds the whole process for up
    // to busy_timeout (docs/reliability.md). One write at a time, so each outcome is known.
    const generate = await c.post("/api/generator/generate", { ...IMAGE, prompt: "refused" }, { cookie });
    expect(generate.status).toBe(503);
    expect(generate.body).toEqual({ code: 1, message: "service busy, please try again", data: null });
    expect(generate.headers.get("retry-after")).toBe("1");
    expect(server.proc.exitCode).toBeNull();
    await lock.released;
    expect(await count(server.dataDir, "SELECT count(*) AS n FROM generations")).toBe(tasksBefore);
    const feedback = await c.post("/api/add-feedback", { content: "after the lock", rating: 2 }, { cookie });
    expect(feedback.body.code).toBe(0);
    expect(await count(server.dataDir, "SELECT count(*) AS n FROM feedback")).toBe(feedbackBefore + 1);

    // After the lock: the task in flight completes; new work succeeds.
    expect((await finalState(c, { cookie }, inflight, 20_000)).status).toBe("completed");
    const again = await c.post("/api/generator/generate", { ...IMAGE, prompt: "after the lock" }, { cookie });
    expect(again.body.code).toBe(0);
    expect((await finalState(c, { cookie }, again.body.data.gen_id)).status).toBe("completed");
    await expectHealthy(server.url);
    await expectLedgerBalanced(server.dataDir);
    expect(server.logs()).not.toContain("unhandled error");
  }, 40_000);
});
