/**
 * The retention sweep (app/domain/maintenance/retention.server.ts) on both
 * engines: what has done its job goes, what is still in use or is the record
 * stays. Each expectation is a row put there by the test at a known age.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { type Db, openDatabase, openPostgres } from "#db/client";
import {
  checkouts,
  creditGrants,
  idempotencyKeys,
  rateLimit,
  rateLimits,
  requestJoins,
  session,
  signInAttempts,
  verification,
  webhookDeliveries,
  webhookEndpoints,
  webhookEvents,
} from "#db/schema";
import { sweepRetention } from "~/domain/maintenance/retention.server";
import { DAY_MS, manualClock } from "~/lib/clock";
import { type Postgres, skipWithoutPostgres, startPostgres } from "../../support/postgres";
import { addUserRow } from "../../support/services";

const HOUR = 3_600_000;

function suite(open: () => Promise<{ db: Db; close(): Promise<void> }>) {
  let db: Db;
  let close: () => Promise<void>;
  const clock = manualClock();
  const now = clock.now();
  beforeAll(async () => {
    ({ db, close } = await open());
  }, 60_000);
  afterAll(() => close?.());

  const addUser = () => addUserRow(db, now);
  const ids = async <T extends { [k: string]: unknown }>(rows: Promise<T[]>, key: keyof T) =>
    (await rows).map((r) => r[key]).sort();

  test("one sweep deletes exactly the rows past their use and keeps the rest", async () => {
    const u = await addUser();
    // Idempotency keys: 24 h.
    const idem = (key: string, age: number) => ({
      userId: u,
      key,
      requestHash: "h",
      genId: `g-${key}`,
      createdAt: now - age,
    });
    await db.run(db.insert(idempotencyKeys).values([idem("old", DAY_MS + 1), idem("fresh", DAY_MS - 1000)]));
    // Request joins (ADR 158): kept as long as an Idempotency-Key, 24 h.
    const join = (key: string, age: number) => ({
      userId: u,
      scope: "/v1/images/generations k",
      key,
      requestHash: "h",
      genIds: "[]",
      createdAt: now - age,
      answeredAt: null,
    });
    await db.run(db.insert(requestJoins).values([join("key:old", DAY_MS + 1), join("key:fresh", DAY_MS - 1000)]));
    // Webhook events: 30 days unless a delivery is still pending.
    await db.run(
      db.insert(webhookEndpoints).values({
        id: "ep",
        userId: u,
        url: "https://hooks.example/x",
        events: "[]",
        secret: "whsec_x",
        createdAt: now - 90 * DAY_MS,
      }),
    );
    const ev = (id: string, ageDays: number) => ({
      id,
      userId: u,
      type: "generation.completed",
      genId: id,
      payload: "{}",
      createdAt: now - ageDays * DAY_MS,
    });
    await db.run(
      db.insert(webhookEvents).values([ev("ev-old-done", 31), ev("ev-old-pending", 31), ev("ev-recent", 29)]),
    );
    const del = (id: string, eventId: string, status: string) => ({
      id,
      eventId,
      endpointId: "ep",
      status,
      createdAt: now - 31 * DAY_MS,
    });
    await db.run(
      db
        .insert(webhookDeliveries)
        .values([
          del("d1", "ev-old-done", "delivered"),
          del("d2", "ev-old-pending", "pending"),
          del("d3", "ev-recent", "failed"),
        ]),
    );
    // Sessions and verification tokens: expired ones.
    const sess = (id: string, expiresAt: number) => ({
      id,
      token: `t-${id}`,
      userId: u,
      expiresAt: new Date(expiresAt),
      createdAt: new Date(now - DAY_MS),
      updatedAt: new Date(now - DAY_MS),
    });
    await db.run(db.insert(session).values([sess("s-expired", now - 1), sess("s-live", now + HOUR)]));
    const ver = (id: string, expiresAt: number) => ({
      id,
      identifier: "x",
      value: "v",
      expiresAt: new Date(expiresAt),
      createdAt: new Date(now - DAY_MS),
      updatedAt: new Date(now - DAY_MS),
    });
    await db.run(db.insert(verification).values([ver("v-expired", now - 1), ver("v-live", now + HOUR)]));
    // GCRA rows (tat in µs): past by more than a minute → same as no row.
    await db.run(
      db.insert(rateLimits).values([
        { bucket: "b-idle", tat: (now - 61_000) * 1000 },
        { bucket: "b-recent", tat: (now - 30_000) * 1000 },
        { bucket: "b-busy", tat: (now + 5_000) * 1000 },
      ]),
    );
    await db.run(
      db.insert(rateLimit).values([
        { id: "r1", key: "ip-idle", count: 3, lastRequest: now - HOUR - 1 },
        { id: "r2", key: "ip-recent", count: 3, lastRequest: now - 1000 },
      ]),
    );
    // Sign-in throttle: idle a day and not locked.
    await db.run(
      db.insert(signInAttempts).values([
        { emailHash: "idle", attempts: 2, windowStart: now - DAY_MS - 1, lockedUntil: null },
        { emailHash: "locked", attempts: 11, windowStart: now - DAY_MS - 1, lockedUntil: now + HOUR },
        { emailHash: "recent", attempts: 2, windowStart: now - HOUR, lockedUntil: null },
      ]),
    );
    // Checkouts: open for more than 24 h → expired; completed ones never change.
    const co = (id: string, status: string, age: number) => ({
      id,
      userId: u,
      productId: "pack-100",
      provider: "simulated",
      status,
      createdAt: new Date(now - age),
    });
    await db.run(
      db
        .insert(checkouts)
        .values([
          co("c-stale", "open", DAY_MS + 1),
          co("c-open", "open", HOUR),
          co("c-paid", "completed", 10 * DAY_MS),
        ]),
    );
    // The record is never swept.
    await db.run(
      db.insert(creditGrants).values({
        id: "grant",
        userId: u,
        amount: 5,
        remaining: 5,
        source: "admin",
        expiresAt: new Date(now - 400 * DAY_MS),
        createdAt: new Date(now - 500 * DAY_MS),
      }),
    );

    const swept = await sweepRetention(db, clock, { webhookRetentionDays: 30 });
    expect(swept).toEqual({
      idempotencyKeys: 1,
      requestJoins: 1,
      webhookEvents: 1,
      sessions: 1,
      verifications: 1,
      rateLimits: 1,
      authRateLimits: 1,
      signInAttempts: 1,
      checkoutsExpired: 1,
    });

    expect(await ids(db.many(db.select().from(idempotencyKeys)), "key")).toEqual(["fresh"]);
    expect(await ids(db.many(db.select().from(requestJoins)), "key")).toEqual(["key:fresh"]);
    expect(await ids(db.many(db.select().from(webhookEvents)), "id")).toEqual(["ev-old-pending", "ev-recent"]);
    // The deleted event's deliveries went with it (foreign key cascade).
    expect(await ids(db.many(db.select().from(webhookDeliveries)), "id")).toEqual(["d2", "d3"]);
    expect(await ids(db.many(db.select().from(session)), "id")).toEqual(["s-live"]);
    expect(await ids(db.many(db.select().from(verification)), "id")).toEqual(["v-live"]);
    expect(await ids(db.many(db.select().from(rateLimits)), "bucket")).toEqual(["b-busy", "b-recent"]);
    expect(await ids(db.many(db.select().from(rateLimit)), "key")).toEqual(["ip-recent"]);
    expect(await ids(db.many(db.select().from(signInAttempts)), "emailHash")).toEqual(["locked", "recent"]);
    const status = Object.fromEntries((await db.many(db.select().from(checkouts))).map((c) => [c.id, c.status]));
    expect(status).toEqual({ "c-stale": "expired", "c-open": "open", "c-paid": "completed" });
    expect(await db.one(db.select().from(creditGrants).where(eq(creditGrants.id, "grant")))).toBeDefined();

    // A second sweep finds nothing more.
    expect(Object.values(await sweepRetention(db, clock, { webhookRetentionDays: 30 })).every((n) => n === 0)).toBe(
      true,
    );
  });
}

describe("retention on SQLite", () => {
  suite(async () => {
    const db = openDatabase(":memory:");
    return { db, close: () => db.close() };
  });
});

describe.skipIf(skipWithoutPostgres())("retention on PostgreSQL", () => {
  let pg: Postgres;
  suite(async () => {
    pg = await startPostgres();
    const db = await openPostgres(pg.url);
    return {
      db,
      close: async () => {
        await db.close();
        await pg.stop();
      },
    };
  });
});
