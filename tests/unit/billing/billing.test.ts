/**
 * Fulfilment rules (docs/design.md §9) on an in-memory database: what a payment,
 * a status change and a refund do to orders and the ledger. Numbers are the
 * test's own (products set here), not derived from the code under test.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { type Db, openDatabase } from "#db/client";
import { orders, user } from "#db/schema";
import {
  CHECKOUT_STARTS_PER_HOUR,
  type CheckoutDeps,
  finishSimulatedCheckout,
  startCheckout,
} from "~/domain/billing/checkout.server";
import { type Fact, processBillingEvent } from "~/domain/billing/fulfil.server";
import { upsertProduct } from "~/domain/billing/products.server";
import { debitForGeneration, getCredits, listDebits } from "~/domain/credits/ledger.server";
import { getActiveSubscription } from "~/domain/subscriptions/subscriptions.server";
import { DAY_MS, manualClock } from "~/lib/clock";
import { packPaid, subscriptionPeriodPaid } from "../../support/billing";
import { createTestProducts } from "../../support/fixtures";
import { addUserRow } from "../../support/services";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const config = { PACK_VALIDITY_DAYS: 30, SUBSCRIPTION_GRACE_DAYS: 2, AFFILIATE_REWARD_PERCENT: 25 };
let db: Db;
let clock: ReturnType<typeof manualClock>;
let n = 0;

const addUser = (opts: { invitedBy?: string; affiliate?: boolean } = {}) => addUserRow(db, T0, opts);
const apply = async (fact: Fact, id = `evt_${n++}`) =>
  processBillingEvent({ db, clock, config }, { id, type: fact.type, payload: "{}" }, fact);
const pack = (userId: string, ref = `cs_${n++}`, amount = 1000) => packPaid(userId, ref, { amount });
const left = async (u: string) => (await db.exec(getCredits(db, u, clock))).left_credits;

beforeEach(async () => {
  db = openDatabase(":memory:");
  clock = manualClock(T0);
  await createTestProducts(db, clock);
});

describe("packs", () => {
  test("granted once per payment, valid PACK_VALIDITY_DAYS", async () => {
    const u = await addUser();
    const f = pack(u, "cs_a");
    expect((await apply(f)).outcome).toStartWith("applied: 40 credits");
    // Another event id for the same payment (e.g. async_payment_succeeded after completed): no second grant.
    expect((await apply(f)).outcome).toBe("applied: payment cs_a already recorded");
    expect(await left(u)).toBe(40);
    clock.set(T0 + 30 * DAY_MS - 1);
    expect(await left(u)).toBe(40);
    clock.set(T0 + 30 * DAY_MS);
    expect(await left(u)).toBe(0);
  });

  test("partial refunds claw back in proportion, cumulatively, never below zero", async () => {
    const u = await addUser();
    await apply(pack(u, "cs_b", 1000));
    await apply({ type: "refund", paymentIntent: "pi_cs_b", amountRefunded: 250 });
    expect(await left(u)).toBe(30);
    // The same cumulative amount again: nothing more.
    expect((await apply({ type: "refund", paymentIntent: "pi_cs_b", amountRefunded: 250 })).outcome).toStartWith(
      "ignored: cs_b already refunded 250",
    );
    await db.tx((t) => debitForGeneration(t, { genId: "g1", userId: u, amount: 25 }, clock));
    expect(await left(u)).toBe(5);
    // The rest refunded: 30 more are due, only 5 remain.
    expect((await apply({ type: "refund", paymentIntent: "pi_cs_b", amountRefunded: 1000 })).outcome).toContain(
      "5 of 30 credits clawed back",
    );
    expect(await left(u)).toBe(0);
    const refunds = (await db.exec(listDebits(db, u))).filter((d) => d.gen_id.startsWith("refund:"));
    expect(refunds.map((d) => [d.amount, d.charged]).sort()).toEqual([
      [10, 10],
      [30, 5],
    ]);
    expect((await db.one(db.select().from(orders).where(eq(orders.externalId, "cs_b"))))!.status).toBe("refunded");
  });

  test("unknown user or product → ignored, nothing written but the event", async () => {
    expect((await apply(pack("nobody"))).outcome).toBe("ignored: unknown user nobody");
    const u = await addUser();
    expect((await apply({ ...pack(u), productId: "gone" })).outcome).toBe("ignored: unknown product gone");
    expect(await left(u)).toBe(0);
  });
});

describe("subscriptions", () => {
  const period = (userId: string | null, invoice: string, end: number, at: number) =>
    subscriptionPeriodPaid(userId, invoice, { periodEnd: end, at });

  test("a renewal without metadata finds the order; period end moves; credits last until period end + grace", async () => {
    const u = await addUser();
    await apply(period(u, "in_1", T0 + 30 * DAY_MS, 1));
    await apply(period(null, "in_2", T0 + 60 * DAY_MS, 2));
    expect(await left(u)).toBe(600);
    expect((await getActiveSubscription(db, u, clock))!.periodEnd!.getTime()).toBe(T0 + 60 * DAY_MS);
    clock.set(T0 + 32 * DAY_MS - 1);
    expect(await left(u)).toBe(600);
    clock.set(T0 + 32 * DAY_MS);
    expect(await left(u)).toBe(300);
  });

  test("an older status event never overwrites a newer one", async () => {
    const u = await addUser();
    await apply(period(u, "in_1", T0 + 30 * DAY_MS, 10));
    await apply({ type: "status", provider: "stripe", subscriptionId: "sub_1", status: "canceled", at: 20 });
    expect(
      (await apply({ type: "status", provider: "stripe", subscriptionId: "sub_1", status: "paid", at: 15 })).outcome,
    ).toStartWith("ignored: older");
    expect(await getActiveSubscription(db, u, clock)).toBeUndefined();
  });

  test("renewals grant the credits the subscription was sold with, not the product's after a re-price", async () => {
    const u = await addUser();
    await apply({ ...period(u, "in_1", T0 + 30 * DAY_MS, 1), credits: 300 } as Fact);
    await upsertProduct(
      db,
      {
        product_id: "plan",
        name: "Plan",
        kind: "subscription",
        credits: 5000,
        interval: "month",
        amount: 900,
        currency: "usd",
        active: true,
        sort_order: 0,
      },
      clock,
    );
    await apply(period(null, "in_2", T0 + 60 * DAY_MS, 2));
    expect(await left(u)).toBe(600);
  });

  test("a status event before any payment records the order without credits", async () => {
    const u = await addUser();
    await apply({
      type: "status",
      provider: "stripe",
      subscriptionId: "sub_1",
      userId: u,
      productId: "plan",
      status: "paid",
      periodEnd: T0 + 30 * DAY_MS,
      at: 5,
    });
    expect(await getActiveSubscription(db, u, clock)).toBeDefined();
    expect(await left(u)).toBe(0);
    await apply(period(u, "in_1", T0 + 30 * DAY_MS, 6));
    expect(await left(u)).toBe(300);
  });
});

describe("referrals", () => {
  test("first payment of an invitee rewards an affiliate inviter once (AFFILIATE_REWARD_PERCENT, rounded down)", async () => {
    const inviter = await addUser({ affiliate: true });
    const invitee = await addUser({ invitedBy: inviter });
    await apply(pack(invitee));
    await apply(pack(invitee));
    expect(await left(inviter)).toBe(10);
  });

  test("refunds claw back the inviter's reward in proportion, once per refund amount", async () => {
    const inviter = await addUser({ affiliate: true });
    const invitee = await addUser({ invitedBy: inviter });
    await apply(pack(invitee, "cs_r", 1000)); // 40 credits → reward 10 (25 %)
    expect(await left(inviter)).toBe(10);
    await apply({ type: "refund", paymentIntent: "pi_cs_r", amountRefunded: 300 }); // floor(10 × 0.3) = 3
    expect(await left(inviter)).toBe(7);
    await apply({ type: "refund", paymentIntent: "pi_cs_r", amountRefunded: 300 }); // the same refund again
    expect(await left(inviter)).toBe(7);
    await apply({ type: "refund", paymentIntent: "pi_cs_r", amountRefunded: 1000 }); // the rest: 10 − 3
    expect(await left(inviter)).toBe(0);
    expect(await left(invitee)).toBe(0);
  });

  test("no reward when the inviter is not an affiliate at the time of the first payment, nor later", async () => {
    const inviter = await addUser();
    const invitee = await addUser({ invitedBy: inviter });
    await apply(pack(invitee));
    await db.run(db.update(user).set({ isAffiliate: true }).where(eq(user.id, inviter)));
    await apply(pack(invitee));
    expect(await left(inviter)).toBe(0);
  });
});

describe("checkout starts", () => {
  const deps = (extra: Partial<CheckoutDeps["config"]> = {}): CheckoutDeps => ({
    db,
    clock,
    config: {
      ...config,
      publicUrl: "http://app.test",
      STRIPE_SECRET_KEY: undefined,
      STRIPE_WEBHOOK_SECRET: undefined,
      STRIPE_API_URL: "http://stripe.test",
      ...extra,
    },
  });
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => "ok",
      (e: { code?: string }) => e.code ?? String(e),
    );

  test("production with a live provider and no STRIPE_SECRET_KEY: no simulated checkout unless BILLING_SIMULATED=true", async () => {
    const u = await addUser();
    const buyer = { id: u, email: "b@example.test" };
    expect(await codeOf(startCheckout(deps({ isProduction: true, OPENAI_API_KEY: "sk-live" }), buyer, "p40"))).toBe(
      "BILLING_NOT_CONFIGURED",
    );
    expect(
      await codeOf(
        startCheckout(deps({ isProduction: true, OPENAI_API_KEY: "sk-live", BILLING_SIMULATED: true }), buyer, "p40"),
      ),
    ).toBe("ok");
    expect(await codeOf(startCheckout(deps({ isProduction: true }), buyer, "p40"))).toBe("ok"); // every provider simulated
    expect(await codeOf(startCheckout(deps({ isProduction: false, OPENAI_API_KEY: "sk-live" }), buyer, "p40"))).toBe(
      "ok",
    );
  });

  test(`at most ${CHECKOUT_STARTS_PER_HOUR} starts per user per hour, whatever SESSION_RATE_LIMITS says`, async () => {
    const u = await addUser();
    const other = await addUser();
    for (let i = 0; i < 10; i++)
      expect(await codeOf(startCheckout(deps(), { id: u, email: "b@example.test" }, "p40"))).toBe("ok");
    expect(await codeOf(startCheckout(deps(), { id: u, email: "b@example.test" }, "p40"))).toBe("RATE_LIMITED");
    expect(await codeOf(startCheckout(deps(), { id: other, email: "c@example.test" }, "p40"))).toBe("ok");
    clock.set(T0 + 3_600_001);
    expect(await codeOf(startCheckout(deps(), { id: u, email: "b@example.test" }, "p40"))).toBe("ok");
  });

  test("a simulated checkout grants what it sold, even if the product is re-priced before payment", async () => {
    const u = await addUser();
    const url = new URL((await startCheckout(deps(), { id: u, email: "b@example.test" }, "p40")).checkout_url);
    await upsertProduct(
      db,
      {
        product_id: "p40",
        name: "900 credits",
        kind: "pack",
        credits: 900,
        interval: null,
        amount: 1000,
        currency: "usd",
        active: true,
        sort_order: 0,
      },
      clock,
    );
    const id = url.pathname.split("/").pop()!;
    await finishSimulatedCheckout(deps(), { id, userId: u, token: url.searchParams.get("token")!, outcome: "pay" });
    expect(await left(u)).toBe(40);
  });
});
