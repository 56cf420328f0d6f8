import { describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { openDatabase } from "#db/client";
import { orders } from "#db/schema";
import {
  adminListUsers,
  CreateSubscriptionSchema,
  GrantCreditsSchema,
  ListUsersSchema,
} from "~/domain/admin/admin.server";
import { grantCredits } from "~/domain/credits/ledger.server";
import {
  addMonthsUtc,
  createSubscription,
  getActiveSubscription,
  isPremium,
  toSubscriptionInfo,
} from "~/domain/subscriptions/subscriptions.server";
import { manualClock } from "~/lib/clock";
import { createUserSync } from "../../support/fixtures";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");

function setup() {
  const db = openDatabase(":memory:");
  const clock = manualClock(T0);
  const addUser = (email = `${randomUUID()}@example.test`, emailVerified = false) => {
    const id = randomUUID();
    createUserSync(db, { id, at: clock.now(), name: "n", email, emailVerified });
    return id;
  };
  return { db, clock, addUser };
}

describe("subscriptions and tiers", () => {
  test("premium = a paid order whose period has not ended; the boundary instant is no longer premium", async () => {
    const { db, clock, addUser } = setup();
    const u = addUser();
    expect(await isPremium(db, u, clock)).toBe(false);
    const o = await db.exec(
      createSubscription(
        db,
        { userId: u, productId: "pro", productName: "Pro", interval: "month", amount: 990 },
        clock,
      ),
    );
    expect(o.periodEnd!.toISOString()).toBe("2026-12-22T10:00:00.000Z");
    expect(await isPremium(db, u, clock)).toBe(true);
    clock.set(o.periodEnd!.getTime() - 1);
    expect(await isPremium(db, u, clock)).toBe(true);
    clock.set(o.periodEnd!.getTime());
    expect(await isPremium(db, u, clock)).toBe(false);
    expect(await getActiveSubscription(db, u, clock)).toBeUndefined();
  });

  test("only paid orders count; one-time orders have no end; another user's order is not yours", async () => {
    const { db, clock, addUser } = setup();
    const u = addUser();
    const other = addUser();
    db.insert(orders)
      .values({
        orderNo: "O-1",
        userId: u,
        productId: "p",
        productName: "P",
        interval: "month",
        amount: 1,
        status: "canceled",
        subId: "s",
        periodEnd: new Date(T0 + 1e9),
        createdAt: new Date(T0),
      })
      .run();
    expect(await isPremium(db, u, clock)).toBe(false);
    const life = await db.exec(
      createSubscription(
        db,
        {
          userId: other,
          productId: "life",
          productName: "Lifetime",
          interval: "one-time",
          amount: 9900,
          subId: "sub_x",
        },
        clock,
      ),
    );
    expect(life.periodEnd).toBeNull();
    expect(await isPremium(db, u, clock)).toBe(false);
    clock.advance(10 * 365 * 86_400_000);
    expect(await isPremium(db, other, clock)).toBe(true);
    const info = toSubscriptionInfo((await getActiveSubscription(db, other, clock))!);
    expect(Object.keys(info).sort()).toEqual([
      "amount",
      "created_at",
      "interval",
      "order_no",
      "product_id",
      "product_name",
      "status",
      "sub_id",
    ]);
    expect(info).toMatchObject({
      product_id: "life",
      status: "paid",
      sub_id: "sub_x",
      amount: 9900,
      interval: "one-time",
      created_at: "2026-11-22T10:00:00.000Z",
    });
    expect(info.order_no).toMatch(/^ORD-20261122-[0-9A-F]{12}$/);
  });

  test("the latest current paid order is the subscription", async () => {
    const { db, clock, addUser } = setup();
    const u = addUser();
    await db.exec(
      createSubscription(
        db,
        { userId: u, productId: "basic", productName: "Basic", interval: "year", amount: 100 },
        clock,
      ),
    );
    clock.advance(1000);
    await db.exec(
      createSubscription(
        db,
        { userId: u, productId: "pro", productName: "Pro", interval: "month", amount: 200 },
        clock,
      ),
    );
    expect((await getActiveSubscription(db, u, clock))!.productId).toBe("pro");
  });

  test("calendar months in UTC", async () => {
    expect(new Date(addMonthsUtc(Date.parse("2026-01-31T12:00:00Z"), 1)).toISOString()).toBe(
      "2026-02-28T12:00:00.000Z",
    );
    expect(new Date(addMonthsUtc(Date.parse("2028-02-29T00:00:00Z"), 12)).toISOString()).toBe(
      "2029-02-28T00:00:00.000Z",
    );
    expect(new Date(addMonthsUtc(Date.parse("2026-12-15T00:00:00Z"), 1)).toISOString()).toBe(
      "2027-01-15T00:00:00.000Z",
    );
  });
});

describe("admin inputs and listing", () => {
  const reason = (r: { success: boolean; error?: { issues: { message: string }[] } }) => r.error?.issues[0]?.message;

  test("grant-credits needs exactly one of email / user_uuid and a positive integer", async () => {
    expect(GrantCreditsSchema.safeParse({ email: "A@B.test", credits: 5 }).data).toEqual({
      email: "a@b.test",
      credits: 5,
    });
    expect(reason(GrantCreditsSchema.safeParse({ credits: 5 }))).toBe("give either email or user_uuid");
    expect(reason(GrantCreditsSchema.safeParse({ email: "a@b.test", user_uuid: "x", credits: 5 }))).toBe(
      "give either email or user_uuid",
    );
    for (const credits of [0, -3, 2.5, "5", null, 1_000_001]) {
      expect(reason(GrantCreditsSchema.safeParse({ email: "a@b.test", credits }))).toBe(
        "credits must be an integer from 1 to 1000000",
      );
    }
    expect(reason(GrantCreditsSchema.safeParse({ email: "a@b.test", credits: 1, expires_in_days: 0 }))).toBe(
      "expires_in_days must be an integer from 1 to 36500",
    );
  });

  test("create-subscription validates interval, amount and period_end", async () => {
    const base = { user_uuid: "u", product_id: "p", product_name: "P", interval: "month", amount: 0 };
    expect(CreateSubscriptionSchema.safeParse(base).success).toBe(true);
    expect(reason(CreateSubscriptionSchema.safeParse({ ...base, interval: "weekly" }))).toBe(
      "interval must be one of month, year, one-time",
    );
    expect(reason(CreateSubscriptionSchema.safeParse({ ...base, amount: -1 }))).toBe(
      "amount must be a non-negative integer",
    );
    expect(reason(CreateSubscriptionSchema.safeParse({ ...base, period_end: "tomorrow" }))).toBe(
      "period_end must be an ISO 8601 timestamp",
    );
    expect(reason(CreateSubscriptionSchema.safeParse({ ...base, product_id: " " }))).toBe("product_id is required");
  });

  test("list-users: defaults, clamp at 100, newest first, balance and tier", async () => {
    const { db, clock, addUser } = setup();
    expect(ListUsersSchema.parse({})).toEqual({ page: 1, page_size: 20 });
    expect(ListUsersSchema.parse({ page_size: 1000 })).toEqual({ page: 1, page_size: 100 });
    expect(reason(ListUsersSchema.safeParse({ page: 0 }))).toBe("page must be an integer ≥ 1");
    const std = addUser("std@example.test");
    clock.advance(1);
    const prem = addUser("prem@example.test");
    clock.advance(1);
    addUser("boss@example.test", true); // ADMIN_EMAILS counts once the address is verified
    await db.exec(grantCredits(db, { userId: std, amount: 7, source: "admin" }, clock));
    await db.exec(
      createSubscription(
        db,
        { userId: prem, productId: "pro", productName: "Pro", interval: "month", amount: 1 },
        clock,
      ),
    );
    const deps = { db, clock, config: { ADMIN_EMAILS: ["boss@example.test"] } };
    const page1 = await adminListUsers(deps, { page: 1, page_size: 2 });
    expect(page1.total).toBe(3);
    expect(page1.users.map((u) => [u.email, u.tier, u.left_credits])).toEqual([
      ["boss@example.test", "admin", 0],
      ["prem@example.test", "premium", 0],
    ]);
    const page2 = await adminListUsers(deps, { page: 2, page_size: 2 });
    expect(page2.users.map((u) => [u.email, u.tier, u.left_credits, u.total_credits])).toEqual([
      ["std@example.test", "standard", 7, 7],
    ]);
    expect((await adminListUsers(deps, { page: 3, page_size: 2 })).users).toEqual([]);
    // The admin page's search: part of an email or nickname, any letter case; % and _ are literal characters.
    expect((await adminListUsers(deps, { page: 1, page_size: 20 }, "prem@")).users.map((u) => u.email)).toEqual([
      "prem@example.test",
    ]);
    expect((await adminListUsers(deps, { page: 1, page_size: 20 }, "EXAMPLE")).total).toBe(3);
    expect((await adminListUsers(deps, { page: 1, page_size: 20 }, "%")).total).toBe(0);
    expect((await adminListUsers(deps, { page: 1, page_size: 20 }, "st_")).total).toBe(0);
  });
});
