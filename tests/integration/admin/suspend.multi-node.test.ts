/**
 * A suspension reaches every node (docs/operating.md "Suspending an account"): two server processes on one
 * PostgreSQL; the admin suspends on one, and the other — whose caches have just seen the key and the session —
 * refuses both within 1.5 s; lifting on the other node restores them on the first as fast. A task queued through
 * the second node is canceled uncharged.
 *
 * PostgreSQL only (the ATELIER_TEST_PG run).
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { Client, uniqueEmail } from "../../support/client";
import { countIn, queryServerDb } from "../../support/db";
import { createTestDatabase, dropTestDatabase, onPostgres, postgresOnly } from "../../support/engine";
import { signUpAdmin } from "../../support/fixtures";
import { startServer, type TestServer } from "../../support/server";

const test = postgresOnly("several nodes share one database only on PostgreSQL");

const ADMIN_EMAIL = "warden@nodes.test";
let databaseUrl: string;
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  if (!onPostgres) return;
  databaseUrl = await createTestDatabase("suspend");
  const env = { ADMIN_EMAILS: ADMIN_EMAIL, JOBS: "off", SIGNUP_CREDITS: "30" };
  [a, b] = await Promise.all([startServer({ databaseUrl, env }), startServer({ databaseUrl, env })]);
});
afterAll(async () => {
  await a?.dispose();
  await b?.dispose();
  if (databaseUrl) await dropTestDatabase(databaseUrl).catch(() => {});
});

async function until(withinMs: number, ok: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > withinMs) throw new Error(`not within ${withinMs} ms`);
    await Bun.sleep(20);
  }
  return Date.now() - t0;
}

describe("suspension across two nodes", () => {
  test("suspended on node A: node B refuses the key and the session within 1.5 s; lifted on B: A accepts them again", async () => {
    const nodeA = new Client(a.url);
    const nodeB = new Client(b.url);
    const admin = await signUpAdmin(a, ADMIN_EMAIL, { via: "mailbox" });
    const email = uniqueEmail("nodes-suspend");
    const { cookie, userId } = await nodeB.signUp(email);
    const key = (await nodeB.post("/api/keys/create", { name: "k" }, { cookie })).body.data.key as string;
    const task = await nodeB.post(
      "/api/generator/generate",
      { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "queued on b" },
      { apiKey: key },
    );
    expect(task.body.code).toBe(0);
    // Both caches of node B (and A) have seen the key and the session just now.
    for (const node of [nodeA, nodeB]) {
      expect((await node.post("/api/get-user-info", undefined, { apiKey: key })).status).toBe(200);
      expect((await node.post("/api/get-user-info", undefined, { cookie })).status).toBe(200);
    }

    const r = await nodeA.post("/api/admin/suspend-user", { email, suspended: true }, { cookie: admin.cookie });
    expect(r.body.data).toMatchObject({ suspended: true, canceled_tasks: 1 });
    const refused = { code: 1, message: "account suspended", data: null };
    await until(1500, async () => {
      const res = await nodeB.post("/api/get-user-info", undefined, { apiKey: key });
      return res.status === 403 && JSON.stringify(res.body) === JSON.stringify(refused);
    });
    await until(1500, async () => (await nodeB.post("/api/get-user-info", undefined, { cookie })).status === 403);
    const [row] = await queryServerDb<{ status: string }>(
      b.dataDir,
      "SELECT status FROM generations WHERE id = ?",
      task.body.data.gen_id,
    );
    expect(row?.status).toBe("failed");
    expect(await countIn(b.dataDir, "SELECT count(*) AS n FROM credit_debits WHERE user_id = ?", userId)).toBe(0);

    expect(
      (await nodeB.post("/api/admin/suspend-user", { user_uuid: userId, suspended: false }, { cookie: admin.cookie }))
        .body.data.suspended,
    ).toBe(false);
    await until(1500, async () => (await nodeA.post("/api/get-user-info", undefined, { apiKey: key })).status === 200);
    await until(1500, async () => (await nodeA.post("/api/get-user-info", undefined, { cookie })).status === 200);
    expect((await nodeA.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits).toBe(30);
  }, 60_000);
});
