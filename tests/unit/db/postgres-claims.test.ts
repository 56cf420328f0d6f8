/**
 * Job claims on PostgreSQL (docs/decisions/061-engine-chosen-at-start.md, docs/decisions/079-postgresql-job-claim.md): nodes claim with `FOR UPDATE SKIP LOCKED`
 * (db/query.ts skipLocked), so two claimers at once take disjoint tasks
 * without waiting on each other, and a dead node's expired lease is reclaimed.
 * A claim is one statement, and reads new tasks in index order (no sort). A runner stopped with a
 * claim under way waits for its steps, so nothing queries the pool after stop().
 * Two `openPostgres` pools stand for two nodes. Skipped, saying so, without
 * PostgreSQL's binaries.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { type Db, openPostgres } from "#db/client";
import { generations } from "#db/schema";
import { createRunner } from "#jobs/runner";
import { findOffering } from "~/domain/catalog";
import { grantCredits } from "~/domain/credits/ledger.server";
import { claimDue, pgClaim } from "~/domain/generations/claim.server";
import { createGeneration } from "~/domain/generations/create.server";
import { createRegistry } from "~/domain/generations/registry.server";
import { completeGeneration } from "~/domain/generations/transitions.server";
import { manualClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { LocalStorage } from "~/storage/local.server";
import { createUser } from "../../support/fixtures";
import { hasPostgres, type Postgres, startPostgres } from "../../support/postgres";

describe.skipIf(!hasPostgres())("job claims on PostgreSQL", () => {
  let pg: Postgres;
  let nodeA: Db;
  let nodeB: Db;
  const clock = manualClock();
  const CONFIG = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
  const flux = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!; // 3 credits

  beforeAll(async () => {
    pg = await startPostgres();
    nodeA = await openPostgres(pg.url, { poolMax: 10 });
    nodeB = await openPostgres(pg.url, { poolMax: 10 });
  }, 60_000);
  afterAll(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await pg?.stop();
  });

  /** A fresh user with `n` pending tasks (one millisecond apart: insertion order is (created_at, id)); the rest of the table emptied. */
  async function pending(n: number): Promise<string[]> {
    await nodeA.run(nodeA.delete(generations));
    const id = crypto.randomUUID();
    const now = new Date(clock.now());
    await createUser(nodeA, { id, at: now.getTime(), email: `${id}@x.test` });
    await nodeA.exec(grantCredits(nodeA, { userId: id, amount: 3 * n, source: "admin" }, clock));
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      clock.advance(1);
      ids.push(
        (
          await createGeneration(
            nodeA,
            { userId: id, input: { offering: flux, prompt: `t${i}`, options: {} }, mode: "simulated", config: CONFIG },
            clock,
          )
        ).id,
      );
    }
    return ids;
  }

  test("a claim skips the tasks another node is claiming instead of waiting for them", async () => {
    const ids = await pending(10);
    const client = (nodeA.drizzle as unknown as { $client: import("postgres").Sql }).$client;
    // Another node is in the middle of claiming the five oldest: their rows are locked until it commits.
    const held = await client.begin(async (tx) => {
      const locked = await tx`select id from generations where id in ${tx(ids.slice(0, 5))} for update`;
      const got = await Promise.race([
        claimDue(nodeB, { owner: "B", limit: 5, leaseMs: 60_000 }, clock),
        Bun.sleep(5000).then(() => "blocked" as const),
      ]);
      return { locked: locked.length, got };
    });
    expect(held.locked).toBe(5);
    expect(held.got).not.toBe("blocked");
    expect((held.got as Awaited<ReturnType<typeof claimDue>>).map((t) => t.row.id).sort()).toEqual(ids.slice(5).sort());
  });

  test("claimers on two nodes at once never claim the same task, and together take all of them", async () => {
    const ids = await pending(60);
    // Four open connections in each pool first: a claim is one round trip, so a node still connecting (slow on a
    // loaded machine) could find the other node's claimers had already taken everything.
    await Promise.all([0, 1, 2, 3].flatMap(() => [nodeA.ping(), nodeB.ping()]));
    const claimedBy = new Map<string, string[]>();
    const claimer = async (db: Db, owner: string) => {
      for (let round = 0; round < 30; round++) {
        const got = await claimDue(db, { owner, limit: 3, leaseMs: 60_000, probe: false }, clock);
        for (const t of got) claimedBy.set(t.row.id, [...(claimedBy.get(t.row.id) ?? []), owner]);
        if (got.length === 0 && claimedBy.size === ids.length) return;
      }
    };
    await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((i) => claimer(i % 2 ? nodeB : nodeA, `${i % 2 ? "B" : "A"}${i}`)));
    expect([...claimedBy.keys()].sort()).toEqual([...ids].sort());
    expect([...claimedBy.values()].filter((owners) => owners.length !== 1)).toEqual([]);
    const rows = await nodeA.many(
      nodeA.select({ owner: generations.leaseOwner, attempts: generations.attempts }).from(generations),
    );
    expect(rows.every((r) => r.attempts === 1 && claimedBy.size === 60)).toBe(true);
    expect(new Set(rows.map((r) => r.owner!.slice(0, 1)))).toEqual(new Set(["A", "B"]));
  });

  test("a dead node's expired lease is reclaimed by the other node; the dead one's late completion changes nothing", async () => {
    const [id] = await pending(1);
    const a = await claimDue(nodeA, { owner: "A", limit: 10, leaseMs: 1000 }, clock);
    expect(a.map((t) => [t.row.id, t.reclaimed])).toEqual([[id, false]]);
    expect(await claimDue(nodeB, { owner: "B", limit: 10, leaseMs: 1000 }, clock)).toEqual([]);
    clock.advance(1000);
    const b = await claimDue(nodeB, { owner: "B", limit: 10, leaseMs: 1000 }, clock);
    expect(b.map((t) => [t.row.id, t.reclaimed, t.row.leaseOwner, t.row.attempts])).toEqual([[id, true, "B", 2]]);
    expect(await completeGeneration(nodeA, { id: id!, owner: "A", resultUrls: ["u"] }, clock)).toBe(false);
    expect(await completeGeneration(nodeB, { id: id!, owner: "B", resultUrls: ["u"] }, clock)).toBe(true);
    const row = await nodeA.one(nodeA.select().from(generations).where(eq(generations.id, id!)));
    expect(row).toMatchObject({ status: "completed", leaseOwner: null });
  });

  test("a claim is one statement: no probe, no transaction, one round trip", async () => {
    const ids = await pending(4);
    const calls: string[] = [];
    const counting = new Proxy(nodeB, {
      get(target, key, receiver) {
        const v = Reflect.get(target, key, receiver);
        if (typeof key === "string" && ["one", "many", "run", "tx", "exec", "raw"].includes(key))
          return (...a: unknown[]) => (calls.push(key), v.apply(target, a));
        return v;
      },
    });
    const got = await claimDue(counting, { owner: "B", limit: 3, leaseMs: 60_000 }, clock);
    // The three oldest (in any order: RETURNING keeps none), as full rows (times mapped to Dates as by any query).
    expect(
      got.map((t) => [t.row.id, t.reclaimed, t.row.status, t.row.leaseOwner, t.row.createdAt instanceof Date]).sort(),
    ).toEqual(
      ids
        .slice(0, 3)
        .map((id) => [id, false, "processing", "B", true])
        .sort(),
    );
    expect(calls).toEqual(["many"]);
    expect(
      await claimDue(counting, { owner: "B", limit: 3, leaseMs: 60_000 }, clock).then((t) => t.map((x) => x.row.id)),
    ).toEqual([ids[3]]);
    expect(await claimDue(counting, { owner: "B", limit: 3, leaseMs: 60_000 }, clock)).toEqual([]);
    expect(calls).toEqual(["many", "many", "many"]);
  });

  test("the claim reads every kind of candidate through an index in the order it takes them: no sort, no table scan", async () => {
    await pending(3);
    const client = (nodeA.drizzle as unknown as { $client: import("postgres").Sql }).$client;
    const { sql: text, params } = (
      pgClaim(nodeA.drizzle) as unknown as { toSQL(): { sql: string; params: unknown[] } }
    ).toSQL();
    const values = params.map((p) =>
      p && typeof p === "object" && "name" in p
        ? { owner: "X", leaseUntil: 1, now: 1, limit: 8 }[(p as { name: string }).name]
        : p,
    );
    // A tiny table would be scanned and sorted whatever the indexes: forbid both, and see whether the plan still needs them.
    const plan = await client.begin(async (tx) => {
      await tx.unsafe("set local enable_seqscan = off");
      await tx.unsafe("set local enable_sort = off");
      await tx.unsafe("set local enable_bitmapscan = off");
      const [row] = await tx.unsafe(`explain (format json) ${text}`, values as never[]);
      return JSON.stringify(row);
    });
    expect(plan).toContain("generations_claim_idx");
    expect(plan).not.toContain('"Sort"');
    expect(plan).not.toContain("Seq Scan");
  });

  test("a runner stopped while its claim is under way waits for the claimed steps; then closing the pool disturbs nothing", async () => {
    const ids = await pending(6);
    const dir = mkdtempSync(join(tmpdir(), "atelier-stop-"));
    const node = await openPostgres(pg.url, { poolMax: 4, migrate: false });
    const config = parseConfig({ DATA_DIR: dir, SIMULATOR_DELAY_MS: "0", JOB_CONCURRENCY: "8" });
    const runner = createRunner({
      db: node,
      clock,
      config,
      providers: createRegistry(config, clock),
      storage: new LocalStorage(dir, "http://pub/media"),
      owner: "S",
    });
    const logged: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const level = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = "warn"; // warnings and errors (a step meeting the closed pool) go to stderr
    process.stderr.write = ((chunk: string) => (logged.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const claim = runner.tick(); // a round trip: still under way when stop() begins
      await runner.stop(5000);
      expect(runner.inFlight()).toBe(0);
      await claim;
      await node.close();
      await Bun.sleep(200); // anything still running would meet the closed pool now
    } finally {
      process.stderr.write = write;
      process.env.LOG_LEVEL = level;
      rmSync(dir, { recursive: true, force: true });
    }
    expect(logged).toEqual([]);
    // The six claimed by the stopped runner finished: the simulator's submit persisted, its lease released for the next node.
    const rows = await nodeA.many(
      nodeA
        .select({ id: generations.id, owner: generations.leaseOwner, up: generations.upstreamTaskId })
        .from(generations),
    );
    expect(rows.map((r) => [r.owner, r.up !== null]).sort()).toEqual(ids.map(() => [null, true]));
  });
});
