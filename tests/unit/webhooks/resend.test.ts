/**
 * Resend must not steal the lease of a delivery that is being
 * sent right now (a second sender would take it at once: double send, and the
 * first attempt's record would be refused, so it went unlogged).
 */
import { expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { openDatabase } from "#db/client";
import { webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents } from "#db/schema";
import { claimDeliveries, recordAttempt } from "~/domain/webhooks/delivery.server";
import { resendDelivery } from "~/domain/webhooks/webhooks.server";
import { manualClock } from "~/lib/clock";
import { createUser } from "../../support/fixtures";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const policy = { timeoutMs: 5_000, schedule: [60_000, 300_000], disableAfterMs: 86_400_000, allowPrivate: false };

test("resend of a delivery in flight keeps the lease: no second claim, the first attempt is logged", async () => {
  const db = openDatabase(":memory:");
  const clock = manualClock(T0);
  const userId = randomUUID();
  await createUser(db, { id: userId, at: T0 });
  await db.run(
    db
      .insert(webhookEndpoints)
      .values({ id: "wh_1", userId, url: "https://example.test/hook", events: "[]", secret: "whsec_x", createdAt: T0 }),
  );
  await db.run(
    db
      .insert(webhookEvents)
      .values({ id: "msg_1", userId, type: "generation.completed", genId: "g1", payload: "{}", createdAt: T0 }),
  );
  await db.run(
    db
      .insert(webhookDeliveries)
      .values({ id: "dlv_1", eventId: "msg_1", endpointId: "wh_1", nextAttemptAt: T0, createdAt: T0 }),
  );

  const [claimed] = await claimDeliveries(db, { owner: "node-a", limit: 10, leaseMs: 60_000 }, clock);
  expect(claimed?.id).toBe("dlv_1");

  clock.advance(1_000); // node-a is sending; the user presses "resend"
  expect(await resendDelivery(db, userId, "dlv_1", clock)).toEqual({ delivery_id: "dlv_1", status: "pending" });
  expect(await claimDeliveries(db, { owner: "node-b", limit: 10, leaseMs: 60_000 }, clock)).toEqual([]);

  const outcome = { ok: true, statusCode: 200, error: null, durationMs: 5, at: clock.now() };
  expect(await recordAttempt(db, "node-a", claimed!, outcome, policy, clock)).toBe("delivered");
  expect((await db.many(db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, "dlv_1")))).length).toBe(
    1,
  );
});

test("resend after the lease expired (crashed sender) is claimed at once", async () => {
  const db = openDatabase(":memory:");
  const clock = manualClock(T0);
  const userId = randomUUID();
  await createUser(db, { id: userId, at: T0 });
  await db.run(
    db
      .insert(webhookEndpoints)
      .values({ id: "wh_1", userId, url: "https://example.test/hook", events: "[]", secret: "whsec_x", createdAt: T0 }),
  );
  await db.run(
    db
      .insert(webhookEvents)
      .values({ id: "msg_1", userId, type: "generation.completed", genId: "g1", payload: "{}", createdAt: T0 }),
  );
  await db.run(
    db
      .insert(webhookDeliveries)
      .values({ id: "dlv_1", eventId: "msg_1", endpointId: "wh_1", nextAttemptAt: T0, createdAt: T0 }),
  );
  await claimDeliveries(db, { owner: "node-a", limit: 10, leaseMs: 60_000 }, clock);
  clock.advance(61_000);
  await resendDelivery(db, userId, "dlv_1", clock);
  expect((await claimDeliveries(db, { owner: "node-b", limit: 10, leaseMs: 60_000 }, clock)).map((d) => d.id)).toEqual([
    "dlv_1",
  ]);
});
