/**
 * Cancel at the domain (docs/design.md §10): pending or processing → failed with
 * `canceled`, never charged, one guarded write against the runner; the
 * upstream job is canceled where the provider can. Messages are docs/api.md §7 /
 * docs/events.md literals.
 */
import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { type Db, openDatabase } from "#db/client";
import { creditDebits, generations, webhookDeliveries, webhookEndpoints, webhookEvents } from "#db/schema";
import { findOffering } from "~/domain/catalog";
import { getCredits, grantCredits, reservedCredits } from "~/domain/credits/ledger.server";
import { cancelGeneration } from "~/domain/generations/cancel.server";
import { onGenerationChange, onOutbox } from "~/domain/generations/changes.server";
import { claimDue } from "~/domain/generations/claim.server";
import { createGeneration } from "~/domain/generations/create.server";
import { cancelUpstream } from "~/domain/generations/lifecycle.server";
import type { ProviderRegistry } from "~/domain/generations/registry.server";
import { completeGeneration, failGeneration } from "~/domain/generations/transitions.server";
import { manualClock } from "~/lib/clock";
import type { AsyncProvider, Provider, SyncProvider } from "~/providers/types";
import { createUser } from "../../support/fixtures";

const CONFIG = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
const flux = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!; // 3 credits (spec 8.1)

function asyncProvider(cancels: string[], opts: { fails?: boolean; noCancel?: boolean } = {}): AsyncProvider {
  return {
    name: "replicate",
    mode: "live",
    lifecycle: "async",
    submit: async () => ({ upstreamTaskId: "up-1" }),
    poll: async () => ({ state: "running" }),
    ...(opts.noCancel
      ? {}
      : {
          cancel: async (id: string) => {
            cancels.push(id);
            if (opts.fails) throw new Error("upstream 500");
          },
        }),
  };
}

const registry = (p: Provider): ProviderRegistry => ({ get: () => p, mode: () => p.mode, upstreamModel: (_p, m) => m });

async function setup() {
  const db = openDatabase(":memory:");
  const clock = manualClock();
  const addUser = async () => {
    const id = crypto.randomUUID();
    await createUser(db, { id, at: clock.now(), email: `${id}@x.test` });
    await db.exec(grantCredits(db, { userId: id, amount: 30, source: "admin" }, clock));
    return id;
  };
  const userId = await addUser();
  const create = (u = userId) =>
    createGeneration(
      db,
      { userId: u, input: { offering: flux, prompt: "a cat", options: {} }, mode: "live", config: CONFIG },
      clock,
    );
  const row = async (id: string) => (await db.one(db.select().from(generations).where(eq(generations.id, id))))!;
  return { db, clock, userId, addUser, create, row };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: Error) => e.message,
  );
const debitCount = async (db: Db) => (await db.many(db.select().from(creditDebits))).length;

describe("cancelGeneration", () => {
  test("a pending task: failed with 'canceled', its reservation released, nothing charged, no upstream call", async () => {
    const { db, clock, userId, create, row } = await setup();
    const g = await create();
    expect(await db.exec(reservedCredits(db, userId))).toBe(3);
    const cancels: string[] = [];
    clock.advance(5_000);
    const after = await cancelGeneration({ db, clock, providers: registry(asyncProvider(cancels)) }, userId, g.id);
    expect(after).toMatchObject({ id: g.id, status: "failed", errorMessage: "canceled" });
    const canceled = (await row(g.id))!;
    expect(canceled).toMatchObject({
      status: "failed",
      errorMessage: "canceled",
      leaseOwner: null,
      leaseUntil: null,
      nextPollAt: null,
    });
    // Compared as milliseconds: Bun's toMatchObject treats any two Dates as equal.
    expect(canceled.completedAt?.getTime()).toBe(clock.now());
    expect(await db.exec(reservedCredits(db, userId))).toBe(0);
    expect(await db.exec(getCredits(db, userId, clock))).toEqual({ left_credits: 30, total_credits: 30 });
    expect(cancels).toEqual([]);
    expect(await debitCount(db)).toBe(0);
  });

  test("a processing task with an upstream job: the lease is cleared, the upstream job canceled, and the runner's late completion changes nothing", async () => {
    const { db, clock, userId, create, row } = await setup();
    const g = await create();
    await claimDue(db, { owner: "runner", limit: 1, leaseMs: 60_000 }, clock);
    await db.run(
      db
        .update(generations)
        .set({ upstreamTaskId: "up-77", nextPollAt: clock.now() + 1000 })
        .where(eq(generations.id, g.id)),
    );
    const cancels: string[] = [];
    await cancelGeneration({ db, clock, providers: registry(asyncProvider(cancels)) }, userId, g.id);
    expect(cancels).toEqual(["up-77"]);
    expect(await row(g.id)).toMatchObject({
      status: "failed",
      errorMessage: "canceled",
      leaseOwner: null,
      leaseUntil: null,
      nextPollAt: null,
    });
    expect(
      await completeGeneration(db, { id: g.id, owner: "runner", resultUrls: ["https://media.example/x.png"] }, clock),
    ).toBe(false);
    expect(await failGeneration(db, { id: g.id, owner: "runner", message: "late" }, clock)).toBe(false);
    expect(await row(g.id)).toMatchObject({ status: "failed", errorMessage: "canceled", resultUrls: null });
    expect(await debitCount(db)).toBe(0);
  });

  test("a processing task still submitting (no upstream id yet) is canceled without an upstream call", async () => {
    const { db, clock, userId, create, row } = await setup();
    const g = await create();
    await claimDue(db, { owner: "runner", limit: 1, leaseMs: 60_000 }, clock);
    const cancels: string[] = [];
    await cancelGeneration({ db, clock, providers: registry(asyncProvider(cancels)) }, userId, g.id);
    expect(cancels).toEqual([]);
    expect((await row(g.id)).status).toBe("failed");
  });

  test("a failing upstream cancel does not undo the cancel", async () => {
    const { db, clock, userId, create, row } = await setup();
    const g = await create();
    await claimDue(db, { owner: "runner", limit: 1, leaseMs: 60_000 }, clock);
    await db.run(db.update(generations).set({ upstreamTaskId: "up-9" }).where(eq(generations.id, g.id)));
    const cancels: string[] = [];
    expect(
      (
        await cancelGeneration(
          { db, clock, providers: registry(asyncProvider(cancels, { fails: true })) },
          userId,
          g.id,
        )
      ).status,
    ).toBe("failed");
    expect(cancels).toEqual(["up-9"]);
    expect((await row(g.id)).errorMessage).toBe("canceled");
  });

  test("another user's task and an unknown id: 'generation not found', nothing changes", async () => {
    const { db, clock, userId, addUser, create, row } = await setup();
    const g = await create();
    const other = await addUser();
    const deps = { db, clock, providers: registry(asyncProvider([])) };
    expect(await failure(cancelGeneration(deps, other, g.id))).toBe("generation not found");
    expect(await failure(cancelGeneration(deps, userId, crypto.randomUUID()))).toBe("generation not found");
    expect((await row(g.id)).status).toBe("pending");
  });

  test("a finished task: 'generation already finished' (completed stays charged once, failed keeps its message)", async () => {
    const { db, clock, userId, create, row } = await setup();
    const done = await create();
    const failed = await create();
    await claimDue(db, { owner: "runner", limit: 10, leaseMs: 60_000 }, clock);
    await completeGeneration(db, { id: done.id, owner: "runner", resultUrls: ["https://media.example/a.png"] }, clock);
    await failGeneration(db, { id: failed.id, owner: "runner", message: "boom" }, clock);
    const deps = { db, clock, providers: registry(asyncProvider([])) };
    expect(await failure(cancelGeneration(deps, userId, done.id))).toBe("generation already finished");
    expect(await failure(cancelGeneration(deps, userId, failed.id))).toBe("generation already finished");
    expect(await row(done.id)).toMatchObject({ status: "completed" });
    expect(await row(failed.id)).toMatchObject({ status: "failed", errorMessage: "boom" });
    expect(await debitCount(db)).toBe(1);
    // A second cancel of a canceled task is refused the same way.
    const g = await create();
    await cancelGeneration(deps, userId, g.id);
    expect(await failure(cancelGeneration(deps, userId, g.id))).toBe("generation already finished");
  });

  test("wakes the task's streams, and the dispatcher only when an event was queued (in the same transaction)", async () => {
    const { db, clock, userId, create } = await setup();
    const deps = { db, clock, providers: registry(asyncProvider([])) };
    let outbox = 0;
    const offOutbox = onOutbox(() => outbox++);
    const quiet = await create();
    let woke = 0;
    const off = onGenerationChange(quiet.id, () => woke++);
    await cancelGeneration(deps, userId, quiet.id);
    expect({ woke, outbox }).toEqual({ woke: 1, outbox: 0 });
    off();
    await db.run(
      db.insert(webhookEndpoints).values({
        id: "wh_1",
        userId,
        url: "https://example.test/hook",
        events: JSON.stringify(["generation.failed"]),
        secret: "whsec_x",
        createdAt: clock.now(),
      }),
    );
    const g = await create();
    await cancelGeneration(deps, userId, g.id);
    expect(outbox).toBe(1);
    const events = await db.many(db.select().from(webhookEvents).where(eq(webhookEvents.genId, g.id)));
    expect(
      events.map((e) => [e.type, JSON.parse(e.payload).data.status, JSON.parse(e.payload).data.error_message]),
    ).toEqual([["generation.failed", "failed", "canceled"]]);
    expect(
      (await db.many(db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, events[0]!.id)))).length,
    ).toBe(1);
    offOutbox();
  });
});

describe("cancelUpstream", () => {
  test("only async providers with a cancel call are asked; a failure is reported as false, not thrown", async () => {
    const cancels: string[] = [];
    const sync: SyncProvider = { name: "openai", mode: "live", lifecycle: "sync", generate: async () => [] };
    expect(await cancelUpstream(sync, "up-1", "g")).toBe(false);
    expect(await cancelUpstream(asyncProvider(cancels, { noCancel: true }), "up-2", "g")).toBe(false);
    expect(await cancelUpstream(asyncProvider(cancels), "up-3", "g")).toBe(true);
    expect(await cancelUpstream(asyncProvider(cancels, { fails: true }), "up-4", "g")).toBe(false);
    expect(cancels).toEqual(["up-3", "up-4"]);
  });

  test("the provider gets a signal that is not aborted yet (a 10 s timeout)", async () => {
    let seen: AbortSignal | undefined;
    const p: AsyncProvider = { ...asyncProvider([]), cancel: async (_id, signal) => void (seen = signal) };
    expect(await cancelUpstream(p, "up-1", "g")).toBe(true);
    expect(seen?.aborted).toBe(false);
  });
});
