/**
 * The user row every authenticated request reads, as one plain statement (users.server.ts): the same row
 * drizzle's select gives, and for an API key the owner's premium flag in the same statement — the tier of the
 * key's rate limit, read at request time (docs/decisions/090-key-tier-read-with-owner.md, docs/performance.md
 * "Session 5: the shared key path"). On SQLite, and on PostgreSQL when its binaries are here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { type Db, openDatabase, openPostgres } from "#db/client";
import { type orders, user } from "#db/schema";
import { isPremium } from "~/domain/subscriptions/subscriptions.server";
import { findKeyOwner, findUserById } from "~/domain/users/users.server";
import { manualClock } from "~/lib/clock";
import { createOrder } from "../../support/fixtures";
import { type Postgres, skipWithoutPostgres, startPostgres } from "../../support/postgres";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");

function suite(open: () => Promise<Db>) {
  let db: Db;
  const clock = manualClock(T0);
  beforeAll(async () => {
    db = await open();
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  const addUser = async (v: Partial<typeof user.$inferInsert> = {}) => {
    const id = randomUUID();
    await db.run(
      db.insert(user).values({
        id,
        name: "Ada",
        email: `${id}@example.test`,
        createdAt: new Date(T0 - 86_400_000 + 123),
        updatedAt: new Date(T0 - 7),
        inviteCode: id.slice(0, 8).toUpperCase(),
        ...v,
      }),
    );
    return id;
  };
  const addOrder = (userId: string, o: Partial<typeof orders.$inferInsert>) => createOrder(db, userId, o);

  test("findUserById gives drizzle's row: every column, its type, key order; unknown id → undefined", async () => {
    const inviter = await addUser();
    const plain = await addUser();
    const full = await addUser({
      emailVerified: true,
      image: "https://img.example/a.png",
      invitedBy: inviter,
      isAffiliate: true,
      role: "admin",
      name: 'Grace "G" O\'Neil ☃',
    });
    for (const id of [plain, full]) {
      const drizzleRow = (await db.one(db.select().from(user).where(eq(user.id, id))))!;
      const row = (await findUserById(db, id))!;
      expect(row).toEqual(drizzleRow);
      expect(Object.keys(row)).toEqual(Object.keys(drizzleRow));
      expect(row.createdAt.getTime()).toBe(drizzleRow.createdAt.getTime());
      expect(row.updatedAt.getTime()).toBe(T0 - 7);
    }
    const f = (await findUserById(db, full))!;
    expect([f.emailVerified, f.isAffiliate, f.role, f.image, f.invitedBy]).toEqual([
      true,
      true,
      "admin",
      "https://img.example/a.png",
      inviter,
    ]);
    const p = (await findUserById(db, plain))!;
    expect([p.emailVerified, p.isAffiliate, p.role, p.image, p.invitedBy]).toEqual([false, false, "user", null, null]);
    expect(await findUserById(db, "no-such-user")).toBeUndefined();
    expect(await findKeyOwner(db, "no-such-user", clock.now())).toBeUndefined();
  });

  test("findKeyOwner: the same row, and premium exactly when a paid subscription's period has not ended", async () => {
    const cases: Array<[string, Partial<typeof orders.$inferInsert> | null, boolean]> = [
      ["no order", null, false],
      ["paid, no period end", { periodEnd: null }, true],
      ["paid, ends in 1 ms", { periodEnd: new Date(T0 + 1) }, true],
      ["paid, ends now (the boundary is no longer premium)", { periodEnd: new Date(T0) }, false],
      ["paid, ended", { periodEnd: new Date(T0 - 60_000) }, false],
      ["refunded", { status: "refunded", periodEnd: null }, false],
      ["canceled", { status: "canceled", periodEnd: new Date(T0 + 60_000) }, false],
      ["a paid pack is not a subscription", { kind: "pack", periodEnd: null }, false],
    ];
    for (const [name, order, premium] of cases) {
      const id = await addUser();
      if (order) await addOrder(id, order);
      const owner = (await findKeyOwner(db, id, T0))!;
      expect([name, owner.premium]).toEqual([name, premium]);
      expect([name, await isPremium(db, id, clock)]).toEqual([name, premium]);
      expect(owner.user).toEqual((await findUserById(db, id))!);
    }
    // Another user's subscription is not yours.
    const a = await addUser();
    const b = await addUser();
    await addOrder(a, { periodEnd: null });
    expect((await findKeyOwner(db, b, T0))!.premium).toBe(false);
    expect((await findKeyOwner(db, a, T0))!.premium).toBe(true);
  });

  test("a subscription recorded after a read shows on the next read (nothing remembered)", async () => {
    const id = await addUser();
    expect((await findKeyOwner(db, id, T0))!.premium).toBe(false);
    await addOrder(id, { periodEnd: new Date(T0 + 1000) });
    expect((await findKeyOwner(db, id, T0))!.premium).toBe(true);
    expect((await findKeyOwner(db, id, T0 + 1000))!.premium).toBe(false);
  });
}

describe("the caller's row on SQLite", () => suite(async () => openDatabase(":memory:")));

describe.skipIf(skipWithoutPostgres())("the caller's row on PostgreSQL", () => {
  let pg: Postgres;
  suite(async () => {
    pg = await startPostgres();
    return openPostgres(pg.url, { poolMax: 4 });
  });
  afterAll(async () => {
    await pg?.stop();
  });
});
