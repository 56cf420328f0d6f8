/**
 * The webhook dispatcher's domain (docs/design.md §10, docs/events.md "Delivery never loses an event"), in-process:
 * claims with leases, the signed request (Standard Webhooks, checked with the `standardwebhooks` package and by
 * hand per docs/events.md), attempt outcomes against a real local receiver, the retry schedule, disabling a
 * failing endpoint, resend, and the outbox rows. Every expected number and text comes from the docs, not from the
 * code under test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { type Db, openDatabase } from "#db/client";
import { webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents } from "#db/schema";
import { createWebhookDispatcher } from "#jobs/webhooks";
import type { GenerationRow } from "~/domain/generations/views.server";
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDeliveries,
  type DeliveryPolicy,
  perUserShare,
  recordAttempt,
  releaseDeliveries,
  sendDelivery,
  signatureHeaders,
} from "~/domain/webhooks/delivery.server";
import { enqueueGenerationEvent } from "~/domain/webhooks/outbox.server";
import { resendDelivery } from "~/domain/webhooks/webhooks.server";
import { manualClock } from "~/lib/clock";
import { addUserRow } from "../../support/services";
import { type Receiver, startReceiver } from "../../support/webhook-receiver";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** docs/events.md §4: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then failed. */
const SCHEDULE = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
/** docs/events.md §5: no 2xx for 3 days disables the endpoint. */
const DISABLE_AFTER = 3 * DAY;
const policy: DeliveryPolicy = {
  timeoutMs: 10_000,
  schedule: SCHEDULE,
  disableAfterMs: DISABLE_AFTER,
  allowPrivate: true,
};

// Two fixed Standard Webhooks secrets (whsec_ + base64 of 24 bytes).
const SECRET = `whsec_${Buffer.alloc(24, 7).toString("base64")}`;
const OLD_SECRET = `whsec_${Buffer.alloc(24, 9).toString("base64")}`;

const addUser = (db: Db) => addUserRow(db, T0);

async function addEndpoint(
  db: Db,
  userId: string,
  id: string,
  extra: Partial<typeof webhookEndpoints.$inferInsert> = {},
) {
  await db.run(
    db.insert(webhookEndpoints).values({
      id,
      userId,
      url: "https://example.test/hook",
      events: '["generation.completed","generation.failed"]',
      secret: SECRET,
      createdAt: T0,
      ...extra,
    }),
  );
}

let seq = 0;
async function addDelivery(
  db: Db,
  userId: string,
  endpointId: string,
  extra: Partial<typeof webhookDeliveries.$inferInsert> = {},
  payload = '{"n":1}',
) {
  const n = ++seq;
  const eventId = `msg_${n}`;
  await db.run(
    db
      .insert(webhookEvents)
      .values({ id: eventId, userId, type: "generation.completed", genId: `g${n}`, payload, createdAt: T0 }),
  );
  const id = extra.id ?? `dlv_${n}`;
  await db.run(
    db.insert(webhookDeliveries).values({ eventId, endpointId, nextAttemptAt: T0, createdAt: T0, ...extra, id }),
  );
  return { id, eventId };
}

const delivery = async (db: Db, id: string) =>
  (await db.one(db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id))))!;
const endpoint = async (db: Db, id: string) =>
  (await db.one(db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id))))!;
const attemptsOf = (db: Db, id: string) =>
  db.many(db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, id)));

const failure = (at: number, error = "HTTP 500", statusCode: number | null = 500): AttemptOutcome => ({
  ok: false,
  statusCode,
  error,
  durationMs: 12,
  at,
});
const success = (at: number): AttemptOutcome => ({ ok: true, statusCode: 204, error: null, durationMs: 7, at });

async function setup() {
  const db = openDatabase(":memory:");
  const clock = manualClock(T0);
  const userId = await addUser(db);
  await addEndpoint(db, userId, "wh_1");
  return { db, clock, userId };
}

describe("claimDeliveries", () => {
  test("claims only pending deliveries that are due, oldest first, up to the limit, and leases them to the owner", async () => {
    const { db, clock, userId } = await setup();
    const a = await addDelivery(db, userId, "wh_1", { nextAttemptAt: T0 - 2 });
    const b = await addDelivery(db, userId, "wh_1", { nextAttemptAt: T0 }); // due exactly now
    const c = await addDelivery(db, userId, "wh_1", { nextAttemptAt: T0 - 1 });
    await addDelivery(db, userId, "wh_1", { nextAttemptAt: T0 + 1 }); // not yet due
    await addDelivery(db, userId, "wh_1", { status: "delivered", nextAttemptAt: T0 - 5 });
    await addDelivery(db, userId, "wh_1", { status: "failed", nextAttemptAt: T0 - 5 });

    expect(await claimDeliveries(db, { owner: "node-a", limit: 0, leaseMs: 15_000 }, clock)).toEqual([]);
    expect((await delivery(db, a.id)).leaseOwner).toBeNull();

    const first = await claimDeliveries(db, { owner: "node-a", limit: 2, leaseMs: 15_000 }, clock);
    expect(first.map((d) => d.id)).toEqual([a.id, c.id]);
    expect(await delivery(db, a.id)).toMatchObject({
      leaseOwner: "node-a",
      leaseUntil: T0 + 15_000,
      status: "pending",
    });

    const rest = await claimDeliveries(db, { owner: "node-b", limit: 10, leaseMs: 15_000 }, clock);
    expect(rest.map((d) => d.id)).toEqual([b.id]);
    expect((await delivery(db, b.id)).leaseOwner).toBe("node-b");
    expect(await claimDeliveries(db, { owner: "node-c", limit: 10, leaseMs: 15_000 }, clock)).toEqual([]);
  });

  test("a claimed delivery carries its event, payload, endpoint, url, attempts and current secret", async () => {
    const { db, clock, userId } = await setup();
    const payload = '{"type":"generation.completed","data":{"gen_id":"g"}}';
    const d = await addDelivery(db, userId, "wh_1", { attempts: 3 }, payload);
    const [claimed] = await claimDeliveries(db, { owner: "node-a", limit: 1, leaseMs: 15_000 }, clock);
    expect(claimed).toEqual({
      id: d.id,
      attempts: 3,
      eventId: d.eventId,
      payload,
      endpointId: "wh_1",
      url: "https://example.test/hook",
      secrets: [SECRET],
    });
  });

  test("a lease keeps others out until it lapses; then another process claims it", async () => {
    const { db, clock, userId } = await setup();
    const d = await addDelivery(db, userId, "wh_1");
    expect((await claimDeliveries(db, { owner: "node-a", limit: 5, leaseMs: 15_000 }, clock)).length).toBe(1);
    clock.advance(15_000 - 1);
    expect(await claimDeliveries(db, { owner: "node-b", limit: 5, leaseMs: 15_000 }, clock)).toEqual([]);
    clock.advance(1); // lease_until reached: the sender is presumed dead
    expect((await claimDeliveries(db, { owner: "node-b", limit: 5, leaseMs: 15_000 }, clock)).map((x) => x.id)).toEqual(
      [d.id],
    );
    expect(await delivery(db, d.id)).toMatchObject({ leaseOwner: "node-b", leaseUntil: T0 + 15_000 + 15_000 });
  });

  test("during a rotation both secrets sign, the previous one only until its overlap ends", async () => {
    const { db, clock, userId } = await setup();
    await addEndpoint(db, userId, "wh_rot", {
      secret: SECRET,
      previousSecret: OLD_SECRET,
      previousSecretUntil: T0 + 1,
    });
    await addEndpoint(db, userId, "wh_ended", { secret: SECRET, previousSecret: OLD_SECRET, previousSecretUntil: T0 });
    await addEndpoint(db, userId, "wh_nountil", {
      secret: SECRET,
      previousSecret: OLD_SECRET,
      previousSecretUntil: null,
    });
    await addDelivery(db, userId, "wh_rot", { id: "d_rot" });
    await addDelivery(db, userId, "wh_ended", { id: "d_ended" });
    await addDelivery(db, userId, "wh_nountil", { id: "d_nountil" });
    const claimed = await claimDeliveries(db, { owner: "node-a", limit: 10, leaseMs: 15_000 }, clock);
    const secrets = Object.fromEntries(claimed.map((d) => [d.id, d.secrets]));
    expect(secrets).toEqual({ d_rot: [SECRET, OLD_SECRET], d_ended: [SECRET], d_nountil: [SECRET] });
  });

  test("per-user share: a quarter of the senders, at least one", () => {
    expect([1, 3, 4, 7, 8, 16, 17].map(perUserShare)).toEqual([1, 1, 1, 1, 2, 4, 4]);
  });

  test("per-user bound counts every owner's live leases; expired leases and finished deliveries do not count", async () => {
    const { db, clock, userId } = await setup();
    const other = await addUser(db);
    await addEndpoint(db, other, "wh_other");
    // userId: one live lease (another node), one expired lease, one delivered row with a stale lease.
    await addDelivery(db, userId, "wh_1", {
      id: "live",
      leaseOwner: "node-x",
      leaseUntil: T0 + 1,
      nextAttemptAt: T0 - 100,
    });
    await addDelivery(db, userId, "wh_1", {
      id: "expired",
      leaseOwner: "node-x",
      leaseUntil: T0,
      nextAttemptAt: T0 - 50,
    });
    await addDelivery(db, userId, "wh_1", {
      id: "done",
      status: "delivered",
      leaseOwner: "node-x",
      leaseUntil: T0 + 10_000,
    });
    for (let i = 0; i < 4; i++) await addDelivery(db, userId, "wh_1", { id: `u${i}`, nextAttemptAt: T0 - 40 + i });
    await addDelivery(db, other, "wh_other", { id: "o0", nextAttemptAt: T0 });

    // Share 2: the live lease counts (1 held), so one more of userId's; the expired one is due again and oldest.
    const got = await claimDeliveries(db, { owner: "node-a", limit: 10, leaseMs: 15_000, perUser: 2 }, clock);
    expect(got.map((d) => d.id)).toEqual(["expired", "o0"]);
    // userId now holds 2: nothing more of theirs, whoever asks.
    expect(await claimDeliveries(db, { owner: "node-b", limit: 10, leaseMs: 15_000, perUser: 2 }, clock)).toEqual([]);
    // A larger share admits exactly the difference, oldest first.
    expect(
      (await claimDeliveries(db, { owner: "node-b", limit: 10, leaseMs: 15_000, perUser: 4 }, clock)).map((d) => d.id),
    ).toEqual(["u0", "u1"]);
  });

  test("per-user bound with a limit: the batch stops at the limit and skips users at their share", async () => {
    const { db, clock, userId } = await setup();
    const other = await addUser(db);
    await addEndpoint(db, other, "wh_other");
    for (let i = 0; i < 3; i++) await addDelivery(db, userId, "wh_1", { id: `u${i}`, nextAttemptAt: T0 - 10 + i });
    for (let i = 0; i < 3; i++) await addDelivery(db, other, "wh_other", { id: `o${i}`, nextAttemptAt: T0 - 5 + i });
    const got = await claimDeliveries(db, { owner: "node-a", limit: 3, leaseMs: 15_000, perUser: 2 }, clock);
    expect(got.map((d) => d.id).sort()).toEqual(["o0", "u0", "u1"]);
    const one = await claimDeliveries(db, { owner: "node-a", limit: 1, leaseMs: 15_000, perUser: 1 }, clock);
    expect(one).toEqual([]); // both users already hold at least one
  });

  test("a user at their share is left out of the query itself: a long backlog of theirs does not hide another user's delivery", async () => {
    const { db, clock, userId } = await setup();
    const other = await addUser(db);
    await addEndpoint(db, other, "wh_other");
    await addDelivery(db, userId, "wh_1", {
      id: "held",
      leaseOwner: "node-x",
      leaseUntil: T0 + 15_000,
      nextAttemptAt: T0 - 100,
    });
    for (let i = 0; i < 8; i++) await addDelivery(db, userId, "wh_1", { id: `u${i}`, nextAttemptAt: T0 - 50 + i }); // older than o0
    await addDelivery(db, other, "wh_other", { id: "o0", nextAttemptAt: T0 });
    const got = await claimDeliveries(db, { owner: "node-a", limit: 1, leaseMs: 15_000, perUser: 1 }, clock);
    expect(got.map((d) => d.id)).toEqual(["o0"]);
  });

  test("without a share, a user's backlog is claimed up to the limit", async () => {
    const { db, clock, userId } = await setup();
    for (let i = 0; i < 6; i++) await addDelivery(db, userId, "wh_1", { id: `u${i}`, nextAttemptAt: T0 - 10 + i });
    expect((await claimDeliveries(db, { owner: "node-a", limit: 5, leaseMs: 15_000 }, clock)).map((d) => d.id)).toEqual(
      ["u0", "u1", "u2", "u3", "u4"],
    );
  });

  test("releaseDeliveries hands back only this owner's unsent leases", async () => {
    const { db, clock, userId } = await setup();
    await addDelivery(db, userId, "wh_1", { id: "mine" });
    await addDelivery(db, userId, "wh_1", { id: "theirs", leaseOwner: "node-b", leaseUntil: T0 + 60_000 });
    await addDelivery(db, userId, "wh_1", {
      id: "done",
      status: "delivered",
      leaseOwner: "node-a",
      leaseUntil: T0 + 60_000,
    });
    await claimDeliveries(db, { owner: "node-a", limit: 10, leaseMs: 15_000 }, clock);
    expect(await releaseDeliveries(db, "node-a")).toBe(1);
    expect(await delivery(db, "mine")).toMatchObject({ leaseOwner: null, leaseUntil: null, status: "pending" });
    expect(await delivery(db, "theirs")).toMatchObject({ leaseOwner: "node-b", leaseUntil: T0 + 60_000 });
    expect(await delivery(db, "done")).toMatchObject({ leaseOwner: "node-a" });
    expect(
      (await claimDeliveries(db, { owner: "node-c", limit: 10, leaseMs: 15_000 }, clock)).map((d) => d.id),
    ).toEqual(["mine"]);
  });
});

describe("recordAttempt", () => {
  test("2xx: delivered, lease cleared, the attempt logged with status code, duration and no error", async () => {
    const { db, clock, userId } = await setup();
    const d = await addDelivery(db, userId, "wh_1");
    const [c] = await claimDeliveries(db, { owner: "node-a", limit: 1, leaseMs: 15_000 }, clock);
    clock.advance(40);
    expect(await recordAttempt(db, "node-a", c!, success(T0 + 10), policy, clock)).toBe("delivered");
    expect(await delivery(db, d.id)).toMatchObject({
      status: "delivered",
      attempts: 1,
      nextAttemptAt: null,
      leaseOwner: null,
      leaseUntil: null,
      lastStatusCode: 204,
      lastError: null,
      lastDurationMs: 7,
      lastAttemptAt: T0 + 10,
      deliveredAt: T0 + 40,
    });
    const log = await attemptsOf(db, d.id);
    expect(
      log.map(({ attemptedAt, statusCode, durationMs, error }) => ({ attemptedAt, statusCode, durationMs, error })),
    ).toEqual([{ attemptedAt: T0 + 10, statusCode: 204, durationMs: 7, error: null }]);
    expect(await claimDeliveries(db, { owner: "node-b", limit: 1, leaseMs: 15_000 }, clock)).toEqual([]);
  });

  test("failures follow the schedule exactly (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), then failed; every attempt logged", async () => {
    const { db, clock, userId } = await setup();
    const d = await addDelivery(db, userId, "wh_1");
    const outcomes: AttemptOutcome[] = [
      failure(0, "HTTP 500", 500),
      failure(0, "no answer within 10000 ms", null),
      failure(0, "could not connect: Connection refused", null),
      failure(0, "HTTP 404", 404),
      failure(0, "HTTP 302: redirects are not followed", 302),
      failure(0, "HTTP 503", 503),
      failure(0, "HTTP 500", 500),
    ];
    for (let i = 0; i < SCHEDULE.length; i++) {
      const [c] = await claimDeliveries(db, { owner: "node-a", limit: 1, leaseMs: 15_000 }, clock);
      expect(c?.attempts).toBe(i);
      const o = { ...outcomes[i]!, at: clock.now() };
      clock.advance(3); // the attempt took a moment; the wait counts from when it is recorded
      expect(await recordAttempt(db, "node-a", c!, o, policy, clock)).toBe("pending");
      const row = await delivery(db, d.id);
      expect(row).toMatchObject({
        status: "pending",
        attempts: i + 1,
        nextAttemptAt: clock.now() + SCHEDULE[i]!,
        leaseOwner: null,
        leaseUntil: null,
      });
      expect(row).toMatchObject({
        lastStatusCode: o.statusCode,
        lastError: o.error,
        lastDurationMs: 12,
        lastAttemptAt: o.at,
        deliveredAt: null,
      });
      clock.advance(SCHEDULE[i]! - 1);
      expect(await claimDeliveries(db, { owner: "node-b", limit: 1, leaseMs: 15_000 }, clock)).toEqual([]); // not due yet
      clock.advance(1);
    }
    // The 8th attempt, after the last wait, fails for good.
    const [last] = await claimDeliveries(db, { owner: "node-a", limit: 1, leaseMs: 15_000 }, clock);
    expect(last?.attempts).toBe(7);
    expect(await recordAttempt(db, "node-a", last!, failure(clock.now()), policy, clock)).toBe("failed");
    expect(await delivery(db, d.id)).toMatchObject({
      status: "failed",
      attempts: 8,
      nextAttemptAt: null,
      leaseOwner: null,
      lastError: "HTTP 500",
    });
    // ≈ 27.6 h of retries (docs/events.md §4): the 8 attempts span the sum of the waits (+3 ms per recorded attempt).
    expect(clock.now() - T0).toBe(99_305_000 + 7 * 3);
    const log = await attemptsOf(db, d.id);
    expect(log.length).toBe(8);
    expect(log.map((a) => a.statusCode).sort()).toEqual([302, 404, 500, 500, 500, 503, null, null].sort());
    expect(log.map((a) => a.error)).toContain("no answer within 10000 ms");
    expect(await claimDeliveries(db, { owner: "node-a", limit: 1, leaseMs: 15_000 }, clock)).toEqual([]);
  });

  test("a success after failures is delivered; a failure on the last retry of a one-step schedule fails", async () => {
    const { db, clock, userId } = await setup();
    const d = await addDelivery(db, userId, "wh_1");
    const short = { ...policy, schedule: [1_000] };
    let [c] = await claimDeliveries(db, { owner: "a", limit: 1, leaseMs: 15_000 }, clock);
    expect(await recordAttempt(db, "a", c!, failure(T0), short, clock)).toBe("pending");
    expect((await delivery(db, d.id)).nextAttemptAt).toBe(T0 + 1_000);
    clock.advance(1_000);
    [c] = await claimDeliveries(db, { owner: "a", limit: 1, leaseMs: 15_000 }, clock);
    expect(await recordAttempt(db, "a", c!, success(clock.now()), short, clock)).toBe("delivered");
    expect(await delivery(db, d.id)).toMatchObject({ status: "delivered", attempts: 2, deliveredAt: T0 + 1_000 });

    const e = await addDelivery(db, userId, "wh_1");
    [c] = await claimDeliveries(db, { owner: "a", limit: 1, leaseMs: 15_000 }, clock);
    await recordAttempt(db, "a", c!, failure(clock.now()), short, clock);
    clock.advance(1_000);
    [c] = await claimDeliveries(db, { owner: "a", limit: 1, leaseMs: 15_000 }, clock);
    expect(c?.id).toBe(e.id);
    expect(await recordAttempt(db, "a", c!, failure(clock.now()), short, clock)).toBe("failed");
  });

  test("only the lease holder records: another owner, a lost lease or a finished delivery get null and log nothing", async () => {
    const { db, clock, userId } = await setup();
    const d = await addDelivery(db, userId, "wh_1");
    const [c] = await claimDeliveries(db, { owner: "node-a", limit: 1, leaseMs: 15_000 }, clock);
    expect(await recordAttempt(db, "node-b", c!, success(T0), policy, clock)).toBeNull();
    expect(await recordAttempt(db, "node-b", c!, failure(T0), policy, clock)).toBeNull();
    expect(await attemptsOf(db, d.id)).toEqual([]);
    expect(await delivery(db, d.id)).toMatchObject({ status: "pending", attempts: 0, leaseOwner: "node-a" });
    expect((await endpoint(db, "wh_1")).failingSince).toBeNull();

    expect(await recordAttempt(db, "node-a", c!, success(T0), policy, clock)).toBe("delivered");
    expect(await recordAttempt(db, "node-a", c!, success(T0), policy, clock)).toBeNull(); // already delivered
    expect((await attemptsOf(db, d.id)).length).toBe(1);
  });

  test("failing_since: set by the first failure, kept by later ones, cleared by a success", async () => {
    const { db, clock, userId } = await setup();
    const one = async (o: (at: number) => AttemptOutcome) => {
      await addDelivery(db, userId, "wh_1");
      const [c] = await claimDeliveries(db, { owner: "a", limit: 1, leaseMs: 15_000 }, clock);
      return recordAttempt(db, "a", c!, o(clock.now()), policy, clock);
    };
    await one(failure);
    expect((await endpoint(db, "wh_1")).failingSince).toBe(T0);
    clock.advance(HOUR);
    await one(failure);
    expect((await endpoint(db, "wh_1")).failingSince).toBe(T0);
    clock.advance(HOUR);
    await one(success);
    expect((await endpoint(db, "wh_1")).failingSince).toBeNull();
    clock.advance(HOUR);
    await one(failure);
    expect((await endpoint(db, "wh_1")).failingSince).toBe(T0 + 3 * HOUR);
    expect((await endpoint(db, "wh_1")).status).toBe("active");
  });

  test("no 2xx for 3 days disables the endpoint with the reason; its queued deliveries fail, others are untouched", async () => {
    const { db, clock, userId } = await setup();
    await addEndpoint(db, userId, "wh_other");
    const first = await addDelivery(db, userId, "wh_1");
    let [c] = await claimDeliveries(db, { owner: "a", limit: 1, leaseMs: 15_000 }, clock);
    await recordAttempt(db, "a", c!, failure(T0), policy, clock);
    expect((await endpoint(db, "wh_1")).failingSince).toBe(T0);

    // It keeps failing; one millisecond short of 3 days: still active.
    clock.set(T0 + DISABLE_AFTER - 1);
    [c] = await claimDeliveries(db, { owner: "a", limit: 1, leaseMs: 15_000 }, clock);
    expect(c?.id).toBe(first.id);
    expect(await recordAttempt(db, "a", c!, failure(clock.now()), policy, clock)).toBe("pending");
    expect((await endpoint(db, "wh_1")).status).toBe("active");

    clock.set(T0 + DISABLE_AFTER);
    await addDelivery(db, userId, "wh_1", { id: "now", nextAttemptAt: clock.now() });
    await addDelivery(db, userId, "wh_1", { id: "queued", nextAttemptAt: clock.now() + HOUR });
    await addDelivery(db, userId, "wh_1", {
      id: "inflight",
      nextAttemptAt: clock.now() + HOUR,
      leaseOwner: "b",
      leaseUntil: clock.now() + 15_000,
    });
    await addDelivery(db, userId, "wh_1", { id: "sent", status: "delivered", nextAttemptAt: null });
    await addDelivery(db, userId, "wh_other", { id: "elsewhere", nextAttemptAt: clock.now() + HOUR });
    [c] = await claimDeliveries(db, { owner: "a", limit: 1, leaseMs: 15_000 }, clock);
    expect(c?.id).toBe("now");
    clock.advance(250);
    await recordAttempt(db, "a", c!, failure(clock.now() - 250, "no answer within 10000 ms", null), policy, clock);

    expect(await endpoint(db, "wh_1")).toMatchObject({
      status: "disabled",
      disabledReason:
        "disabled 2026-11-25T10:00:00.250Z: no successful delivery since 2026-11-22T10:00:00.000Z (last error: no answer within 10000 ms)",
    });
    expect(await delivery(db, "queued")).toMatchObject({
      status: "failed",
      nextAttemptAt: null,
      lastError: "endpoint disabled",
    });
    expect(await delivery(db, first.id)).toMatchObject({
      status: "failed",
      attempts: 2,
      nextAttemptAt: null,
      lastError: "endpoint disabled",
    });
    // The attempt that disabled it is logged, and its delivery (no longer leased) fails with the rest;
    // the one in flight elsewhere keeps its lease.
    expect(await delivery(db, "now")).toMatchObject({
      status: "failed",
      attempts: 1,
      nextAttemptAt: null,
      lastError: "endpoint disabled",
      lastStatusCode: null,
    });
    expect((await attemptsOf(db, "now")).map((a) => a.error)).toEqual(["no answer within 10000 ms"]);
    expect(await delivery(db, "inflight")).toMatchObject({ status: "pending", leaseOwner: "b" });
    expect(await delivery(db, "sent")).toMatchObject({ status: "delivered", lastError: null });
    expect(await delivery(db, "elsewhere")).toMatchObject({ status: "pending", lastError: null });
    expect(await endpoint(db, "wh_other")).toMatchObject({ status: "active", disabledReason: null });
  });

  test("an attempt without an error text disables with 'unknown'; an already disabled endpoint keeps its first reason", async () => {
    const { db, clock, userId } = await setup();
    await db.run(
      db
        .update(webhookEndpoints)
        .set({ failingSince: T0 - DISABLE_AFTER })
        .where(eq(webhookEndpoints.id, "wh_1")),
    );
    await addDelivery(db, userId, "wh_1", { id: "x" });
    await addDelivery(db, userId, "wh_1", { id: "y" });
    const [x, y] = await claimDeliveries(db, { owner: "a", limit: 2, leaseMs: 15_000 }, clock);
    await recordAttempt(db, "a", x!, { ok: false, statusCode: 500, error: null, durationMs: 1, at: T0 }, policy, clock);
    const reason =
      "disabled 2026-11-22T10:00:00.000Z: no successful delivery since 2026-11-19T10:00:00.000Z (last error: unknown)";
    expect(await endpoint(db, "wh_1")).toMatchObject({ status: "disabled", disabledReason: reason });
    clock.advance(MINUTE);
    await recordAttempt(db, "a", y!, failure(clock.now()), policy, clock);
    expect(await endpoint(db, "wh_1")).toMatchObject({ status: "disabled", disabledReason: reason });
  });
});

describe("resend (docs/events.md §6)", () => {
  test("a failed delivery is queued now with attempts 0 and the same event; a disabled endpoint is re-enabled", async () => {
    const { db, clock, userId } = await setup();
    await db.run(
      db
        .update(webhookEndpoints)
        .set({ status: "disabled", disabledReason: "disabled …", failingSince: T0 - DISABLE_AFTER })
        .where(eq(webhookEndpoints.id, "wh_1")),
    );
    const d = await addDelivery(db, userId, "wh_1", {
      status: "failed",
      attempts: 8,
      nextAttemptAt: null,
      lastError: "endpoint disabled",
    });
    clock.advance(HOUR);
    expect(await resendDelivery(db, userId, d.id, clock)).toEqual({ delivery_id: d.id, status: "pending" });
    expect(await delivery(db, d.id)).toMatchObject({
      status: "pending",
      attempts: 0,
      nextAttemptAt: T0 + HOUR,
      eventId: d.eventId,
    });
    expect(await endpoint(db, "wh_1")).toMatchObject({ status: "active", disabledReason: null, failingSince: null });
    const [c] = await claimDeliveries(db, { owner: "a", limit: 1, leaseMs: 15_000 }, clock);
    expect(c).toMatchObject({ id: d.id, eventId: d.eventId, attempts: 0 });
    // The schedule restarts: a failure waits the first step again.
    expect(await recordAttempt(db, "a", c!, failure(clock.now()), policy, clock)).toBe("pending");
    expect(await delivery(db, d.id)).toMatchObject({ attempts: 1, nextAttemptAt: T0 + HOUR + SCHEDULE[0]! });
  });

  test("another user's delivery is not found", async () => {
    const { db, clock, userId } = await setup();
    const d = await addDelivery(db, userId, "wh_1", { status: "failed" });
    const stranger = await addUser(db);
    await expect(resendDelivery(db, stranger, d.id, clock)).rejects.toMatchObject({ code: "DELIVERY_NOT_FOUND" });
    await expect(resendDelivery(db, userId, "dlv_nope", clock)).rejects.toMatchObject({ code: "DELIVERY_NOT_FOUND" });
    expect((await delivery(db, d.id)).status).toBe("failed");
  });

  test("resend while an attempt is in flight: nobody else claims it; the attempt is logged and decides the next state", async () => {
    const { db, clock, userId } = await setup();
    const d = await addDelivery(db, userId, "wh_1", { attempts: 2 });
    const [c] = await claimDeliveries(db, { owner: "a", limit: 1, leaseMs: 15_000 }, clock);
    clock.advance(SECOND);
    await resendDelivery(db, userId, d.id, clock);
    expect(await delivery(db, d.id)).toMatchObject({
      status: "pending",
      attempts: 0,
      nextAttemptAt: T0 + SECOND,
      leaseOwner: "a",
      leaseUntil: T0 + 15_000,
    });
    expect(await claimDeliveries(db, { owner: "b", limit: 1, leaseMs: 15_000 }, clock)).toEqual([]);
    expect(await recordAttempt(db, "a", c!, failure(T0), policy, clock)).toBe("pending");
    expect((await attemptsOf(db, d.id)).length).toBe(1);
    // The resend restarted the schedule: this failure is attempt 1, retried after the first wait.
    expect(await delivery(db, d.id)).toMatchObject({
      status: "pending",
      leaseOwner: null,
      attempts: 1,
      nextAttemptAt: T0 + SECOND + SCHEDULE[0]!,
    });
  });

  test("resend during the last scheduled attempt: that attempt failing does not end the delivery", async () => {
    const { db, clock, userId } = await setup();
    const d = await addDelivery(db, userId, "wh_1", { attempts: SCHEDULE.length });
    const [c] = await claimDeliveries(db, { owner: "a", limit: 1, leaseMs: 15_000 }, clock);
    await resendDelivery(db, userId, d.id, clock);
    expect(await recordAttempt(db, "a", c!, failure(T0), policy, clock)).toBe("pending");
    expect(await delivery(db, d.id)).toMatchObject({
      status: "pending",
      attempts: 1,
      nextAttemptAt: T0 + SCHEDULE[0]!,
    });
  });
});

describe("a delivery in flight when another sender disables its endpoint", () => {
  test("fails with the endpoint's queue instead of going on to a disabled endpoint; the disabling attempt reports failed", async () => {
    const { db, clock, userId } = await setup();
    await db.run(
      db
        .update(webhookEndpoints)
        .set({ failingSince: T0 - DISABLE_AFTER })
        .where(eq(webhookEndpoints.id, "wh_1")),
    );
    await addDelivery(db, userId, "wh_1", { id: "x" });
    await addDelivery(db, userId, "wh_1", { id: "y" });
    const [x] = await claimDeliveries(db, { owner: "node-a", limit: 1, leaseMs: 15_000 }, clock);
    const [y] = await claimDeliveries(db, { owner: "node-b", limit: 1, leaseMs: 15_000 }, clock);
    // node-a's failure disables the endpoint; its own delivery fails with the queue.
    expect(await recordAttempt(db, "node-a", x!, failure(T0), policy, clock)).toBe("failed");
    expect((await endpoint(db, "wh_1")).status).toBe("disabled");
    expect(await delivery(db, "y")).toMatchObject({ status: "pending", leaseOwner: "node-b" });
    // node-b's attempt was in flight: it is logged, and the delivery fails instead of being retried.
    clock.advance(SECOND);
    expect(await recordAttempt(db, "node-b", y!, failure(clock.now()), policy, clock)).toBe("failed");
    expect(await delivery(db, "y")).toMatchObject({
      status: "failed",
      nextAttemptAt: null,
      lastError: "endpoint disabled",
      leaseOwner: null,
    });
    expect((await attemptsOf(db, "y")).length).toBe(1);
    clock.advance(HOUR);
    expect(await claimDeliveries(db, { owner: "node-c", limit: 5, leaseMs: 15_000 }, clock)).toEqual([]);
  });
});

describe("the signed request", () => {
  test("headers per Standard Webhooks: webhook-id, Unix-seconds timestamp, v1 HMAC-SHA256 of id.timestamp.body per secret", () => {
    const at = new Date("2026-11-22T10:00:00.999Z");
    const body = '{"type":"generation.completed","timestamp":"2026-11-22T10:00:00.000Z","data":{"gen_id":"g"}}';
    const headers = signatureHeaders("msg_abc", body, [SECRET, OLD_SECRET], at);
    const ts = "1795341600"; // 2026-11-22T10:00:00Z in Unix seconds (the milliseconds dropped)
    // By hand, per docs/events.md: key = base64-decode of the secret after whsec_.
    const sig = (secret: string) =>
      createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
        .update(`msg_abc.${ts}.${body}`)
        .digest("base64");
    expect(headers).toEqual({
      "webhook-id": "msg_abc",
      "webhook-timestamp": ts,
      "webhook-signature": `v1,${sig(SECRET)} v1,${sig(OLD_SECRET)}`,
    });
    expect(signatureHeaders("msg_abc", body, [SECRET], at)["webhook-signature"]).toBe(`v1,${sig(SECRET)}`);
  });
});

describe("sendDelivery against a real receiver", () => {
  let receiver: Receiver;
  let raw: ReturnType<typeof Bun.serve>;
  let rawSeen: { method: string; path: string; headers: Record<string, string>; body: string }[] = [];
  let rawAnswer: () => Response = () => new Response("ok");
  beforeAll(() => {
    receiver = startReceiver();
    raw = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        rawSeen.push({
          method: req.method,
          path: new URL(req.url).pathname,
          headers: Object.fromEntries(req.headers),
          body: await req.text(),
        });
        return rawAnswer();
      },
    });
  });
  afterAll(async () => {
    await receiver.stop();
    await raw.stop(true);
  });
  const rawUrl = (path = "/hook") => `http://127.0.0.1:${raw.port}${path}`;

  const claimedFor = (
    url: string,
    payload: string,
    secrets = [SECRET],
    eventId = `msg_${randomUUID()}`,
  ): ClaimedDelivery => ({
    id: "dlv_x",
    attempts: 0,
    eventId,
    payload,
    endpointId: "wh_1",
    url,
    secrets,
  });

  test("2xx: POSTs the stored JSON byte for byte with verifiable signatures (current and previous secret)", async () => {
    const clock = manualClock(Date.now()); // the receiver's verification checks the timestamp against real time
    receiver.received.length = 0;
    receiver.script = [{ status: 204 }];
    const payload =
      '{"type":"generation.completed","timestamp":"2026-11-22T10:00:00.000Z","data":{"gen_id":"g1","status":"completed","prompt":"ü 🎨 \\"q\\""}}';
    const d = claimedFor(receiver.url, payload, [SECRET, OLD_SECRET]);
    const o = await sendDelivery(d, policy, clock);
    expect(o).toMatchObject({ ok: true, statusCode: 204, error: null, at: clock.now() });
    expect(o.durationMs).toBeGreaterThanOrEqual(0);
    const [r] = receiver.received;
    expect(r!.body).toBe(payload);
    expect(r!.id).toBe(d.eventId);
    expect(r!.timestamp).toBe(String(Math.floor(clock.now() / 1000)));
    expect(r!.signature.split(" ").length).toBe(2);
    expect(receiver.verify(r!, SECRET)).toEqual(JSON.parse(payload));
    expect(receiver.verify(r!, OLD_SECRET)).toEqual(JSON.parse(payload));
    expect(() => receiver.verify(r!, `whsec_${Buffer.alloc(24, 1).toString("base64")}`)).toThrow();
  });

  test("the request is a JSON POST to the endpoint's path", async () => {
    const clock = manualClock(Date.now());
    rawSeen = [];
    rawAnswer = () => new Response("ok", { status: 200 });
    const o = await sendDelivery(claimedFor(rawUrl("/in/hook?x=1"), '{"a":1}'), policy, clock);
    expect(o.ok).toBe(true);
    expect(rawSeen.length).toBe(1);
    expect(rawSeen[0]).toMatchObject({ method: "POST", body: '{"a":1}' });
    expect(rawSeen[0]!.headers["content-type"]).toBe("application/json");
    expect(rawSeen[0]!.headers["user-agent"]).toBe("Atelier-Webhooks/1");
  });

  test("webhook-id is the same on a retry; the timestamp and signature are the attempt's own", async () => {
    const clock = manualClock(Date.now());
    receiver.received.length = 0;
    receiver.script = [{ status: 500 }, { status: 200 }];
    const d = claimedFor(receiver.url, '{"n":2}');
    const first = await sendDelivery(d, policy, clock);
    expect(first).toMatchObject({ ok: false, statusCode: 500, error: "HTTP 500" });
    clock.advance(5 * SECOND);
    const second = await sendDelivery({ ...d, attempts: 1 }, policy, clock);
    expect(second).toMatchObject({ ok: true, statusCode: 200, error: null });
    const [a, b] = receiver.received;
    expect([a!.id, b!.id]).toEqual([d.eventId, d.eventId]);
    expect(Number(b!.timestamp) - Number(a!.timestamp)).toBe(5);
    expect(receiver.verify(b!, SECRET)).toEqual({ n: 2 });
  });

  test("status codes: 2xx delivered; 3xx (redirect not followed) and 4xx/5xx failed with the code", async () => {
    const clock = manualClock(Date.now());
    const cases: [number, boolean, string | null][] = [
      [200, true, null],
      [299, true, null],
      [300, false, "HTTP 300: redirects are not followed"],
      [399, false, "HTTP 399: redirects are not followed"],
      [400, false, "HTTP 400"],
      [410, false, "HTTP 410"],
      [599, false, "HTTP 599"],
    ];
    for (const [status, ok, error] of cases) {
      rawAnswer = () => new Response("x", { status });
      expect(await sendDelivery(claimedFor(rawUrl(), "{}"), policy, clock)).toMatchObject({
        ok,
        statusCode: status,
        error,
      });
    }
  });

  test("redirects are not followed: a 302 to another receiver is a failure and the target gets nothing", async () => {
    const clock = manualClock(Date.now());
    receiver.received.length = 0;
    rawSeen = [];
    rawAnswer = () => new Response(null, { status: 302, headers: { location: receiver.url } });
    const o = await sendDelivery(claimedFor(rawUrl("/moved"), '{"r":1}'), policy, clock);
    expect(o).toMatchObject({ ok: false, statusCode: 302, error: "HTTP 302: redirects are not followed" });
    expect(rawSeen.length).toBe(1);
    await Bun.sleep(50);
    expect(receiver.received).toEqual([]);
  });

  test("no answer within the timeout: no status, the timeout in the error", async () => {
    const clock = manualClock(Date.now());
    receiver.script = ["hang"];
    const o = await sendDelivery(claimedFor(receiver.url, "{}"), { ...policy, timeoutMs: 150 }, clock);
    receiver.releaseHung();
    expect(o).toMatchObject({ ok: false, statusCode: null, error: "no answer within 150 ms" });
    expect(o.durationMs).toBeGreaterThanOrEqual(100);
  });

  test("the receiver's delay shows in the duration", async () => {
    const clock = manualClock(Date.now());
    receiver.script = [{ status: 200, delayMs: 200 }];
    const t0 = performance.now();
    const o = await sendDelivery(claimedFor(receiver.url, "{}"), policy, clock);
    const elapsed = performance.now() - t0;
    expect(o.ok).toBe(true);
    expect(o.durationMs).toBeGreaterThanOrEqual(190);
    expect(o.durationMs).toBeLessThanOrEqual(Math.ceil(elapsed));
  });

  test("a network error is 'could not connect'; a private address without allowPrivate is refused before connecting", async () => {
    const clock = manualClock(Date.now());
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const port = closed.port;
    await closed.stop(true);
    const o = await sendDelivery(claimedFor(`http://127.0.0.1:${port}/hook`, "{}"), policy, clock);
    expect(o.ok).toBe(false);
    expect(o.statusCode).toBeNull();
    expect(o.error).toStartWith("could not connect: ");
    expect(o.error!.length).toBeGreaterThan("could not connect: ".length);
    expect(o.error!.length).toBeLessThanOrEqual(300);

    receiver.received.length = 0;
    const refused = await sendDelivery(claimedFor(receiver.url, "{}"), { ...policy, allowPrivate: false }, clock);
    expect(refused).toMatchObject({
      ok: false,
      statusCode: null,
      error: "destination refused: 127.0.0.1 is not a public internet address",
    });
    expect(receiver.received).toEqual([]);
  });

  test("the error text is capped at 300 characters; a non-Error failure is reported as text", async () => {
    const clock = manualClock(Date.now());
    const long = new AbortController();
    long.abort(new Error("x".repeat(500)));
    const o = await sendDelivery(claimedFor(receiver.url, "{}"), policy, clock, long.signal);
    expect(o).toMatchObject({ ok: false, statusCode: null });
    expect(o.error).toBe(`could not connect: ${"x".repeat(300 - "could not connect: ".length)}`);
    const text = new AbortController();
    text.abort("shutting down");
    expect((await sendDelivery(claimedFor(receiver.url, "{}"), policy, clock, text.signal)).error).toBe(
      "could not connect: shutting down",
    );
    const nothing = new AbortController();
    nothing.abort(null);
    expect((await sendDelivery(claimedFor(receiver.url, "{}"), policy, clock, nothing.signal)).error).toBe(
      "could not connect: null",
    );
  });

  test("a shutdown abort is not reported as a timeout", async () => {
    const clock = manualClock(Date.now());
    receiver.script = ["hang"];
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    const o = await sendDelivery(claimedFor(receiver.url, "{}"), policy, clock, stop.signal);
    receiver.releaseHung();
    expect(o.ok).toBe(false);
    expect(o.error).toStartWith("could not connect: ");
  });
});

describe("the outbox", () => {
  const row = (userId: string, status: "completed" | "failed"): GenerationRow =>
    ({
      id: `gen_${status}`,
      userId,
      aiType: "image",
      provider: "replicate",
      model: "m",
      prompt: "p",
      options: "{}",
      status,
      resultUrls: status === "completed" ? '["https://cdn.example/a.png"]' : null,
      errorMessage: status === "failed" ? "canceled" : null,
      creditsCost: 5,
      mode: "simulated",
      upstreamTaskId: null,
      leaseOwner: null,
      leaseUntil: null,
      nextPollAt: null,
      pollCount: 0,
      attempts: 0,
      deadlineAt: T0 + HOUR,
      createdAt: new Date(T0 - MINUTE),
      startedAt: new Date(T0 - 30 * SECOND),
      completedAt: new Date(T0),
      hiddenAt: null,
    }) as GenerationRow;

  test("a final transition queues one event and a due delivery per active subscribed endpoint; the payload is {type, timestamp, data}", async () => {
    const { db, clock, userId } = await setup(); // wh_1: both events
    await addEndpoint(db, userId, "wh_failed_only", { events: '["generation.failed"]' });
    await addEndpoint(db, userId, "wh_disabled", { status: "disabled" });
    const other = await addUser(db);
    await addEndpoint(db, other, "wh_other");

    const n = await db.tx(function* (t) {
      return yield* enqueueGenerationEvent(t, row(userId, "completed"), T0);
    });
    expect(n).toBe(1);
    const [event] = await db.many(db.select().from(webhookEvents));
    expect(event!.id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(event).toMatchObject({ userId, type: "generation.completed", genId: "gen_completed", createdAt: T0 });
    expect(JSON.parse(event!.payload)).toEqual({
      type: "generation.completed",
      timestamp: "2026-11-22T10:00:00.000Z",
      data: {
        gen_id: "gen_completed",
        status: "completed",
        created_at: "2026-11-22T09:59:00.000Z",
        started_at: "2026-11-22T09:59:30.000Z",
        result_urls: ["https://cdn.example/a.png"],
        completed_at: "2026-11-22T10:00:00.000Z",
        // The task's links (docs/events.md "Task links"); no PUBLIC_URL in unit tests: relative.
        urls: {
          get: "/api/generator/query?gen_id=gen_completed",
          cancel: "/api/generator/cancel?gen_id=gen_completed",
          stream: "/api/generator/stream?gen_id=gen_completed",
          web: "/studio/gen_completed",
        },
      },
    });
    const deliveries = await db.many(db.select().from(webhookDeliveries));
    expect(deliveries.length).toBe(1);
    expect(deliveries[0]!.id).toMatch(/^dlv_[A-Za-z0-9_-]{16}$/);
    expect(deliveries[0]).toMatchObject({
      eventId: event!.id,
      endpointId: "wh_1",
      status: "pending",
      attempts: 0,
      nextAttemptAt: T0,
      createdAt: T0,
    });

    // It is due at once: the dispatcher claims it with the stored payload.
    const [c] = await claimDeliveries(db, { owner: "a", limit: 5, leaseMs: 15_000 }, clock);
    expect(c).toMatchObject({ eventId: event!.id, payload: event!.payload, url: "https://example.test/hook" });
  });

  test("a failed task is generation.failed for the endpoints subscribed to it; no subscriber writes nothing", async () => {
    const { db, userId } = await setup();
    await addEndpoint(db, userId, "wh_failed_only", { events: '["generation.failed"]' });
    const n = await db.tx(function* (t) {
      return yield* enqueueGenerationEvent(t, row(userId, "failed"), T0);
    });
    expect(n).toBe(2);
    const [event] = await db.many(db.select().from(webhookEvents));
    expect(event!.type).toBe("generation.failed");
    expect(JSON.parse(event!.payload)).toMatchObject({
      type: "generation.failed",
      data: { status: "failed", error_message: "canceled" },
    });
    expect((await db.many(db.select().from(webhookDeliveries))).map((d) => d.endpointId).sort()).toEqual([
      "wh_1",
      "wh_failed_only",
    ]);

    const lonely = await addUser(db);
    await addEndpoint(db, lonely, "wh_completed_only", { events: '["generation.completed"]' });
    const none = await db.tx(function* (t) {
      return yield* enqueueGenerationEvent(t, row(lonely, "failed"), T0);
    });
    expect(none).toBe(0);
    expect((await db.many(db.select().from(webhookEvents))).length).toBe(1);
  });
});

describe("the dispatcher's stop", () => {
  test("a claim under way when stop() begins: its deliveries are sent and recorded before stop() resolves", async () => {
    const receiver = startReceiver();
    try {
      receiver.script = [{ status: 204 }];
      const db = openDatabase(":memory:");
      const clock = manualClock(Date.now());
      const userId = await addUser(db);
      await addEndpoint(db, userId, "wh_1", { url: receiver.url });
      const d = await addDelivery(db, userId, "wh_1", { nextAttemptAt: clock.now() });
      const config = {
        JOB_TICK_MS: 60_000,
        WEBHOOK_ALLOW_PRIVATE: true,
        WEBHOOK_TIMEOUT_MS: 5_000,
        WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
        WEBHOOK_DISABLE_AFTER_MS: DISABLE_AFTER,
        WEBHOOK_CONCURRENCY: 4,
      };
      const dispatcher = createWebhookDispatcher({ db, clock, config, owner: "S" });
      void dispatcher.tick(); // the claim has not returned yet when stop() begins
      await dispatcher.stop(5_000);
      expect(dispatcher.inFlight()).toBe(0);
      expect(await delivery(db, d.id)).toMatchObject({ status: "delivered", leaseOwner: null });
      expect(receiver.received.length).toBe(1);
      await db.close();
    } finally {
      await receiver.stop();
    }
  });
});
