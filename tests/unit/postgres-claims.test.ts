/**
 * Job claims on PostgreSQL (issue 14): nodes claim with `FOR UPDATE SKIP LOCKED`
 * (db/client.ts manySkipLocked), so two claimers at once take disjoint tasks
 * without waiting on each other, and a dead node's expired lease is reclaimed.
 * Two `openPostgres` pools stand for two nodes. Skipped, saying so, without
 * PostgreSQL's binaries.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { openPostgres, type Db } from "#db/client";
import { generations, user } from "#db/schema";
import { findOffering } from "~/domain/catalog";
import { grantCredits } from "~/domain/credits/ledger.server";
import { createGeneration } from "~/domain/generations/generations.server";
import { claimDue, completeGeneration } from "~/domain/generations/lifecycle.server";
import { manualClock } from "~/lib/clock";
import { hasPostgres, startPostgres, type Postgres } from "../support/postgres";

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
    await nodeA.run(nodeA.insert(user).values({ id, name: "u", email: `${id}@x.test`, createdAt: now, updatedAt: now, inviteCode: id.slice(0, 8) }));
    await nodeA.exec(grantCredits(nodeA, { userId: id, amount: 3 * n, source: "admin" }, clock));
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      clock.advance(1);
      ids.push((await createGeneration(nodeA, { userId: id, input: { offering: flux, prompt: `t${i}`, options: {} }, mode: "simulated", config: CONFIG }, clock)).id);
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
    const rows = await nodeA.many(nodeA.select({ owner: generations.leaseOwner, attempts: generations.attempts }).from(generations));
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
});
