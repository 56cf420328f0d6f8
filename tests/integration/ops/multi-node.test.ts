/**
 * Two nodes, one PostgreSQL (docs/design.md §8): two server processes
 * with their own DATA_DIR (no shared disk), one database, results in S3 (the
 * s3rver fake behind its SigV4-checking proxy), one BETTER_AUTH_SECRET.
 *
 * - a session and an API key made on one node work on the other;
 * - 20 concurrent check-ins spread over both add exactly one credit;
 * - 30 concurrent creates spread over both against a balance for 25 accept exactly 25;
 * - every accepted task completes once and is charged once, whichever node's runner claims it;
 * - one key's rate limit is shared by both nodes;
 * - a node killed with SIGKILL mid-processing: the other reclaims its tasks when the lease expires and completes them.
 *
 * PostgreSQL only (the ATELIER_TEST_PG run; run alone with `ATELIER_TEST_PG=1 bun test --timeout 60000 tests/integration/ops/multi-node.test.ts`).
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type S3Fake, startS3Fake } from "../../fakes/s3";
import { Client, uniqueEmail } from "../../support/client";
import { countIn, serverSql } from "../../support/db";
import { createTestDatabase, dropTestDatabase, onPostgres, postgresOnly } from "../../support/engine";
import { startServer, type TestServer } from "../../support/server";
import { expectLedgerBalanced, waitUntil } from "../faults/support";

const test = postgresOnly("several nodes share one database only on PostgreSQL");

const ASYNC = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" } as const; // 3 credits
const SYNC = { ai_type: "image", provider: "openai", model: "dall-e-3" } as const; // 5 credits, the runner holds the lease during the call
const KEY_LIMIT = 20;

let s3: S3Fake;
let databaseUrl: string;
let a: TestServer;
let b: TestServer;
let nodes: [Client, Client];

beforeAll(async () => {
  if (!onPostgres) return;
  s3 = await startS3Fake();
  databaseUrl = await createTestDatabase("nodes");
  const env = {
    ...s3.env,
    SIGNUP_CREDITS: "75",
    SIMULATOR_DELAY_MS: "300",
    JOB_CONCURRENCY: "4",
    JOB_LEASE_MS: "1500",
    RATE_LIMIT_STANDARD: String(KEY_LIMIT),
    LOG_LEVEL: "debug",
  };
  // Started together: both run the migrations at once (an advisory lock makes them migrate once).
  [a, b] = await Promise.all([startServer({ databaseUrl, env }), startServer({ databaseUrl, env })]);
  nodes = [new Client(a.url), new Client(b.url)];
});

afterAll(async () => {
  await a?.dispose();
  await b?.dispose();
  await s3?.stop();
  if (databaseUrl) await dropTestDatabase(databaseUrl).catch(() => {});
});

const credits = async (c: Client, cookie: string) =>
  (await c.post("/api/get-user-credits", undefined, { cookie })).body.data as {
    left_credits: number;
    total_credits: number;
  };

/** The ids of the tasks each node's runner logged as completed (one line per completion, by the process that did it). */
const completedBy = (s: TestServer) =>
  s
    .logs()
    .split("\n")
    .filter((l) => l.includes('"msg":"generation completed"'))
    .map((l) => JSON.parse(l).gen_id as string);

describe("two nodes on one PostgreSQL", () => {
  test("a session made on one node works on the other; a key made on one node works on the other", async () => {
    const email = uniqueEmail("nodes-session");
    const { cookie } = await nodes[0].signUp(email);
    const info = await nodes[1].post("/api/get-user-info", undefined, { cookie });
    expect(info.status).toBe(200);
    expect(info.body.data.email).toBe(email);

    const created = await nodes[1].post("/api/keys/create", { name: "made on b" }, { cookie });
    expect(created.body.code).toBe(0);
    const viaKey = await nodes[0].post("/api/get-user-info", undefined, { apiKey: created.body.data.key });
    expect(viaKey.status).toBe(200);
    expect(viaKey.body.data.email).toBe(email);
    // Signed in again on the other node: also a session of the same account.
    const again = await nodes[1].signIn(email);
    expect((await nodes[0].post("/api/get-user-info", undefined, { cookie: again })).body.data.email).toBe(email);
  });

  test("20 concurrent check-ins spread over both nodes add exactly one credit", async () => {
    const { cookie } = await nodes[0].signUp(uniqueEmail("nodes-ping"));
    const before = await credits(nodes[1], cookie);
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => nodes[i % 2]!.post("/api/ping", undefined, { cookie })),
    );
    for (const r of rs) expect(r.status).toBe(200);
    const after = await credits(nodes[0], cookie);
    expect(after.left_credits - before.left_credits).toBe(1);
    expect(after.total_credits - before.total_credits).toBe(1);
  });

  test("30 concurrent creates spread over both against a balance for 25 accept exactly 25; each completes once, is charged once, results in S3", async () => {
    const { cookie, userId } = await nodes[1].signUp(uniqueEmail("nodes-create")); // 75 credits = 25 × 3
    const rs = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        nodes[i % 2]!.post("/api/generator/generate", { ...ASYNC, prompt: `spread ${i}` }, { cookie }),
      ),
    );
    for (const r of rs) expect(r.status).toBe(200);
    const accepted = rs.filter((r) => r.body.code === 0).map((r) => r.body.data.gen_id as string);
    const refused = rs.filter((r) => r.body.code !== 0);
    expect(accepted.length).toBe(25);
    for (const r of refused) expect(r.body.message).toMatch(/^insufficient credits: need 3, have \d+$/);

    await waitUntil(
      async () =>
        (await countIn(
          a.dataDir,
          "SELECT count(*) AS n FROM generations WHERE user_id = ? AND status = 'completed'",
          userId,
        )) === 25,
      60_000,
      "25 tasks completed",
    );
    expect(await credits(nodes[0], cookie)).toEqual({ left_credits: 0, total_credits: 75 });
    const sql = await serverSql(b.dataDir);
    try {
      const debits = await sql.all<{ gen_id: string; n: number; amount: number }>(
        "SELECT gen_id, count(*) AS n, sum(amount) AS amount FROM credit_debits WHERE user_id = ? GROUP BY gen_id",
        userId,
      );
      expect(debits.map((d) => d.gen_id).sort()).toEqual([...accepted].sort());
      for (const d of debits)
        expect({ gen_id: d.gen_id, n: d.n, amount: d.amount }).toEqual({ gen_id: d.gen_id, n: 1, amount: 3 });
    } finally {
      await sql.close();
    }

    // Completed once: one completion log line per task across both processes; both runners took part.
    await waitUntil(
      () => accepted.every((id) => completedBy(a).includes(id) || completedBy(b).includes(id)),
      10_000,
      "completion log lines",
    );
    await Bun.sleep(200); // a duplicate line, if any, would arrive now
    const byA = completedBy(a).filter((id) => accepted.includes(id));
    const byB = completedBy(b).filter((id) => accepted.includes(id));
    expect(byA.length + byB.length).toBe(25);
    expect(new Set([...byA, ...byB]).size).toBe(25);
    expect(byA.length).toBeGreaterThan(0);
    expect(byB.length).toBeGreaterThan(0);

    // Results live in S3, readable from either node's answer; neither node wrote them to its own disk.
    const q = await nodes[0].post("/api/generator/query", { gen_id: byB[0] }, { cookie });
    expect(q.body.data.result_urls[0]).toStartWith(`${s3.endpoint}/${s3.bucket}/`);
    expect((await fetch(q.body.data.result_urls[0])).status).toBe(200);
    for (const s of [a, b]) {
      const media = join(s.dataDir, "media");
      expect(existsSync(media) ? readdirSync(media) : []).toEqual([]);
    }
  }, 90_000);

  test("one key's rate limit is shared by both nodes", async () => {
    const { cookie } = await nodes[0].signUp(uniqueEmail("nodes-limit"));
    const key = (await nodes[0].post("/api/keys/create", { name: "limited" }, { cookie })).body.data.key as string;
    const t0 = Date.now();
    const rs = await Promise.all(
      Array.from({ length: 3 * KEY_LIMIT }, (_, i) =>
        nodes[i % 2]!.post("/api/get-user-info", undefined, { apiKey: key }),
      ),
    );
    const elapsed = Date.now() - t0;
    const ok = rs.filter((r) => r.status === 200);
    const limited = rs.filter((r) => r.status === 429);
    expect(ok.length + limited.length).toBe(rs.length);
    // A burst of the limit, then one request per window/limit (3 s): never the limit per node.
    expect(ok.length).toBeGreaterThanOrEqual(KEY_LIMIT);
    expect(ok.length).toBeLessThanOrEqual(KEY_LIMIT + Math.floor((elapsed * KEY_LIMIT) / 60_000));
    // Both nodes refused some: each alone would have let 20 through.
    expect(rs.filter((r, i) => i % 2 === 0 && r.status === 429).length).toBeGreaterThan(0);
    expect(rs.filter((r, i) => i % 2 === 1 && r.status === 429).length).toBeGreaterThan(0);
  });

  test("SIGKILL one node mid-processing: the other reclaims its tasks after the lease expires and completes them, charged once", async () => {
    const { cookie, userId } = await nodes[1].signUp(uniqueEmail("nodes-kill")); // 75 credits: 8 × 5 fit
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      // [simulate:slow]: 10 × 300 ms, a provider call far longer than the 1.5 s lease (renewed while it runs).
      const r = await nodes[i % 2]!.post(
        "/api/generator/generate",
        { ...SYNC, prompt: `slow ${i} [simulate:slow]` },
        { cookie },
      );
      expect(r.body.code).toBe(0);
      ids.push(r.body.data.gen_id);
    }
    const heldByA = `SELECT id FROM generations WHERE user_id = ? AND status = 'processing' AND lease_owner LIKE ?`;
    const ownerA = `%:${a.proc.pid}:%`;
    await waitUntil(
      async () => (await countIn(b.dataDir, heldByA.replace("SELECT id", "SELECT count(*) AS n"), userId, ownerA)) >= 1,
      15_000,
      "node a processing some tasks",
    );
    expect(await a.stop("SIGKILL")).not.toBe(0);
    const sql = await serverSql(b.dataDir);
    try {
      const orphans = (await sql.all<{ id: string }>(heldByA, userId, ownerA)).map((r) => r.id);
      expect(orphans.length).toBeGreaterThan(0);

      await waitUntil(
        async () =>
          (await countIn(
            b.dataDir,
            "SELECT count(*) AS n FROM generations WHERE user_id = ? AND status = 'completed'",
            userId,
          )) === ids.length,
        60_000,
        "every task completed by the surviving node",
      );
      // The dead node's tasks were completed by b, after their leases expired.
      await waitUntil(
        () => orphans.every((id) => completedBy(b).includes(id)),
        10_000,
        "b logged the orphans' completions",
      );
      const debits = await sql.all<{ gen_id: string; n: number; amount: number }>(
        "SELECT gen_id, count(*) AS n, sum(amount) AS amount FROM credit_debits WHERE user_id = ? GROUP BY gen_id",
        userId,
      );
      expect(debits.map((d) => d.gen_id).sort()).toEqual([...ids].sort());
      for (const d of debits)
        expect({ gen_id: d.gen_id, n: d.n, amount: d.amount }).toEqual({ gen_id: d.gen_id, n: 1, amount: 5 });
    } finally {
      await sql.close();
    }
    expect(await credits(nodes[1], cookie)).toEqual({ left_credits: 75 - 8 * 5, total_credits: 75 });
    expect((await fetch(`${b.url}/api/health`)).status).toBe(200);
    await expectLedgerBalanced(b.dataDir);
  }, 120_000);
});
