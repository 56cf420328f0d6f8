/**
 * The webhook senders are shared fairly (docs/decisions/060-fair-webhook-senders.md): at most `perUser` of one
 * user's deliveries are in flight at once (over every process's leases), so a
 * user whose endpoints never answer cannot hold every sender. Both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Db, openDatabase, openPostgres } from "#db/client";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "#db/schema";
import { claimDeliveries, perUserShare } from "~/domain/webhooks/delivery.server";
import { manualClock } from "~/lib/clock";
import { createUser } from "../../support/fixtures";
import { hasPostgres, type Postgres, startPostgres } from "../../support/postgres";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");

async function seed(db: Db, tag: string, deliveries: number, dueAt: number) {
  const userId = crypto.randomUUID();
  await createUser(db, { id: userId, at: T0, name: tag });
  await db.run(
    db.insert(webhookEndpoints).values({
      id: `wh_${tag}`,
      userId,
      url: "https://example.test/hook",
      events: "[]",
      secret: "whsec_x",
      createdAt: T0,
    }),
  );
  for (let i = 0; i < deliveries; i++) {
    await db.run(
      db.insert(webhookEvents).values({
        id: `msg_${tag}_${i}`,
        userId,
        type: "generation.completed",
        genId: `g${i}`,
        payload: "{}",
        createdAt: T0,
      }),
    );
    await db.run(
      db.insert(webhookDeliveries).values({
        id: `dlv_${tag}_${i}`,
        eventId: `msg_${tag}_${i}`,
        endpointId: `wh_${tag}`,
        nextAttemptAt: dueAt + i,
        createdAt: T0,
      }),
    );
  }
}

function cases(open: () => Promise<Db>) {
  test("one user's backlog takes at most its share; the next user's delivery is claimed in the same batch and later ticks", async () => {
    const db = await open();
    const clock = manualClock(T0 + 1_000);
    await seed(db, "hog", 20, T0); // due first
    await seed(db, "victim", 1, T0 + 500);
    const share = perUserShare(8); // 2 of 8 senders
    expect(share).toBe(2);
    const first = await claimDeliveries(db, { owner: "node-a", limit: 8, leaseMs: 60_000, perUser: share }, clock);
    expect(first.map((d) => d.id).sort()).toEqual(["dlv_hog_0", "dlv_hog_1", "dlv_victim_0"]);
    // Another process: the hog's two leases still count.
    expect(await claimDeliveries(db, { owner: "node-b", limit: 8, leaseMs: 60_000, perUser: share }, clock)).toEqual(
      [],
    );
    // Without a share (the default), oldest first as before.
    const all = await claimDeliveries(db, { owner: "node-c", limit: 3, leaseMs: 60_000 }, clock);
    expect(all.map((d) => d.id)).toEqual(["dlv_hog_2", "dlv_hog_3", "dlv_hog_4"]);
  });
}

describe("SQLite", () => {
  cases(async () => openDatabase(":memory:"));
});

describe.skipIf(!hasPostgres())("PostgreSQL", () => {
  let pg: Postgres;
  const dbs: Db[] = [];
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    for (const db of dbs) await db.close();
    await pg?.stop();
  });
  cases(async () => {
    const db = await openPostgres(pg.url, { poolMax: 4 });
    dbs.push(db);
    return db;
  });
});
