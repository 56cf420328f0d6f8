/**
 * Fulfilment (app/domain/billing/fulfil.server.ts) at the domain, on an
 * in-memory database with a manual clock: every rule of docs/design.md §9 and
 * docs/payments.md that a payment, status, refund, dispute or expiry fact
 * decides — the rows it writes, the credits it grants or claws back, the order
 * of events, duplicates — and, at the end, the same rules reached from real
 * Stripe event shapes (tests/fakes/stripe.ts) through `receiveStripeWebhook`.
 *
 * Every expected number is written here from the products and config below
 * (40-credit pack at 1000 cents, a 300-credit monthly plan at 900 cents, a
 * 1200-credit yearly plan in eur, packs valid 30 days, 2 days of grace, 25 %
 * referral reward), never read back from the code under test.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import { eq } from "drizzle-orm";
import { type Db, openDatabase } from "#db/client";
import { billingEvents, checkouts, orderPayments, orders, products, referralRewards, user } from "#db/schema";
import { type CheckoutDeps, receiveStripeWebhook, startCheckout } from "~/domain/billing/checkout.server";
import {
  applyFact,
  applyWaitingEvents,
  type Fact,
  type PaymentFact,
  processBillingEvent,
  type StatusFact,
  subscriptionStatus,
} from "~/domain/billing/fulfil.server";
import { upsertProduct } from "~/domain/billing/products.server";
import { debitForGeneration, getCredits, listDebits, listGrants } from "~/domain/credits/ledger.server";
import { getActiveSubscription, isPremium } from "~/domain/subscriptions/subscriptions.server";
import { DAY_MS, manualClock } from "~/lib/clock";
import { log } from "~/lib/log.server";
import { type SignedEvent, type StripeFake, startStripeFake } from "../../fakes/stripe";
import { packPaid, subscriptionPeriodPaid } from "../../support/billing";
import { createTestProducts } from "../../support/fixtures";
import { addUserRow } from "../../support/services";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
/** One calendar month / year after T0 (a subscription paid without a period end). */
const T0_PLUS_MONTH = Date.parse("2026-12-22T10:00:00.000Z");
const T0_PLUS_YEAR = Date.parse("2027-11-22T10:00:00.000Z");
const config = { PACK_VALIDITY_DAYS: 30, SUBSCRIPTION_GRACE_DAYS: 2, AFFILIATE_REWARD_PERCENT: 25 };
const ORDER_NO = /^ORD-20261122-[0-9A-F]{12}$/;

let db: Db;
let clock: ReturnType<typeof manualClock>;
let n = 0;

const addUser = (opts: { invitedBy?: string; affiliate?: boolean } = {}) => addUserRow(db, T0, opts);

/** Delivers a fact under a new (or the given) event id; the payload is the fact itself, so waiting events can be re-read. */
const apply = (fact: Fact | null, id = `evt_${n++}`, type = fact?.type ?? "other") =>
  processBillingEvent({ db, clock, config }, { id, type, payload: JSON.stringify(fact) }, fact);
const outcome = async (fact: Fact | null, id?: string) => (await apply(fact, id)).outcome;
const factOf = async (payload: string) => JSON.parse(payload) as Fact | null;
const applyWaiting = (payment: { paymentRef?: string | null; paymentIntent?: string | null }, of = factOf) =>
  applyWaitingEvents({ db, clock, config }, payment, of);

/** One period of subscription `sub_1`, paid by invoice `invoice`, ending 30 days after T0. */
const periodPaid = (userId: string | null, invoice: string, over: Partial<PaymentFact> = {}) =>
  subscriptionPeriodPaid(userId, invoice, { periodEnd: T0 + 30 * DAY_MS, ...over });
const statusOf = (status: string, at: number, over: Partial<StatusFact> = {}): StatusFact => ({
  type: "status",
  provider: "stripe",
  subscriptionId: "sub_1",
  status,
  at,
  ...over,
});

const left = async (u: string) => (await db.exec(getCredits(db, u, clock))).left_credits;
const grantsOf = (u: string) => db.exec(listGrants(db, u, clock));
const debitsOf = async (u: string) =>
  (await db.exec(listDebits(db, u)))
    .map((d) => ({ key: d.gen_id, amount: d.amount, charged: d.charged }))
    .sort((a, b) => a.key.localeCompare(b.key));
const orderOf = async (ref: string) => (await db.one(db.select().from(orders).where(eq(orders.externalId, ref))))!;
const paymentOf = async (ref: string) =>
  (await db.one(db.select().from(orderPayments).where(eq(orderPayments.ref, ref))))!;
const paymentsOf = (orderNo: string) =>
  db.many(db.select().from(orderPayments).where(eq(orderPayments.orderNo, orderNo)));
const eventRow = async (id: string) => (await db.one(db.select().from(billingEvents).where(eq(billingEvents.id, id))))!;
/** Dates as ms: bun's toMatchObject does not compare Date values (any Date matches any Date). */
const plain = <T extends object>(row: T) =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.getTime() : v]));
const countOrders = async () => (await db.many(db.select().from(orders))).length;
const addCheckout = (id: string, userId: string, status = "open") =>
  db.run(
    db.insert(checkouts).values({
      id,
      userId,
      productId: "p40",
      provider: "stripe",
      status,
      credits: 40,
      amount: 1000,
      currency: "usd",
      createdAt: new Date(T0),
    }),
  );
const checkoutStatus = async (id: string) =>
  (await db.one(db.select({ s: checkouts.status }).from(checkouts).where(eq(checkouts.id, id))))?.s;

beforeEach(async () => {
  db = openDatabase(":memory:");
  clock = manualClock(T0);
  await createTestProducts(db, clock);
  await upsertProduct(
    db,
    {
      product_id: "yplan",
      name: "Yearly",
      kind: "subscription",
      credits: 1200,
      interval: "year",
      amount: 9000,
      currency: "eur",
      active: true,
      sort_order: 0,
    },
    clock,
  );
});

describe("processBillingEvent: each event id once", () => {
  test("the event row keeps id, type, payload, time and the final outcome", async () => {
    const u = await addUser();
    const fact = packPaid(u, "cs_1");
    clock.set(T0 + 5_000);
    const r = await processBillingEvent(
      { db, clock, config },
      { id: "evt_a", type: "checkout.session.completed", payload: '{"raw":1}' },
      fact,
    );
    expect(r.duplicate).toBe(false);
    expect(r.outcome).toMatch(/^applied: 40 credits for ORD-20261122-[0-9A-F]{12}$/);
    const row = await eventRow("evt_a");
    expect(row).toEqual({
      id: "evt_a",
      type: "checkout.session.completed",
      outcome: r.outcome,
      payload: '{"raw":1}',
      createdAt: new Date(T0 + 5_000),
    });
  });

  test("a second delivery of an event id changes nothing, even with another fact, and answers the first outcome", async () => {
    const u = await addUser();
    const first = await apply(packPaid(u, "cs_1"), "evt_dup");
    const again = await apply(packPaid(u, "cs_2"), "evt_dup");
    expect(again).toEqual({ duplicate: true, outcome: first.outcome });
    expect(await left(u)).toBe(40);
    expect(await countOrders()).toBe(1);
    expect((await eventRow("evt_dup")).outcome).toBe(first.outcome);
  });

  test("the same event delivered five times at once grants once", async () => {
    const u = await addUser();
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => apply(packPaid(u, "cs_1"), "evt_burst")));
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(results.filter((r) => r.duplicate)).toHaveLength(4);
    expect(await left(u)).toBe(40);
  });

  test("an event type Atelier does not act on is recorded as ignored", async () => {
    expect(await apply(null, "evt_other", "customer.created")).toEqual({
      duplicate: false,
      outcome: "ignored: event type not handled",
    });
    expect((await eventRow("evt_other")).outcome).toBe("ignored: event type not handled");
    expect(await apply(null, "evt_other", "customer.created")).toEqual({
      duplicate: true,
      outcome: "ignored: event type not handled",
    });
  });

  describe("logs (docs/payments.md: ignored and waiting events are logged)", () => {
    let info: ReturnType<typeof spyOn>;
    let warn: ReturnType<typeof spyOn>;
    beforeEach(() => {
      info = spyOn(log, "info").mockImplementation(() => {});
      warn = spyOn(log, "warn").mockImplementation(() => {});
    });
    afterEach(() => {
      info.mockRestore();
      warn.mockRestore();
    });

    test("applied → info, ignored → warn, waiting → warn, a duplicate → nothing", async () => {
      const u = await addUser();
      const applied = await apply(packPaid(u, "cs_1"), "evt_1", "checkout.session.completed");
      expect(info.mock.calls).toEqual([
        ["billing event applied", { event_id: "evt_1", type: "checkout.session.completed", outcome: applied.outcome }],
      ]);
      expect(warn.mock.calls).toEqual([]);
      info.mockClear();

      await apply(null, "evt_2", "customer.created");
      expect(warn.mock.calls).toEqual([
        [
          "billing event ignored",
          { event_id: "evt_2", type: "customer.created", outcome: "ignored: event type not handled" },
        ],
      ]);
      warn.mockClear();

      await apply({ type: "refund", paymentIntent: "pi_unseen", amountRefunded: 100 }, "evt_3", "charge.refunded");
      expect(warn.mock.calls).toEqual([
        [
          "billing event waiting for its payment",
          { event_id: "evt_3", type: "charge.refunded", outcome: "waiting: no payment for pi_unseen" },
        ],
      ]);
      warn.mockClear();

      await apply(packPaid(u, "cs_1"), "evt_1");
      await apply(null, "evt_2");
      await apply({ type: "refund", paymentIntent: "pi_unseen", amountRefunded: 100 }, "evt_3");
      expect(info.mock.calls).toEqual([]);
      expect(warn.mock.calls).toEqual([]);
    });
  });
});

describe("payments", () => {
  test("a pack: the order row records what the event sold (amount, currency, credits snapshot, customer)", async () => {
    const u = await addUser();
    clock.set(T0 + 1_000);
    await apply(packPaid(u, "cs_1", { amount: 800, currency: "eur", credits: 55, customerId: "cus_1", at: 1234 }));
    const o = await orderOf("cs_1");
    expect(o.orderNo).toMatch(ORDER_NO);
    expect({ ...o, orderNo: "" }).toEqual({
      orderNo: "",
      userId: u,
      productId: "p40",
      productName: "40 credits",
      interval: "one-time",
      amount: 800,
      status: "paid",
      subId: "cs_1",
      periodEnd: null,
      createdAt: new Date(T0 + 1_000),
      kind: "pack",
      provider: "stripe",
      currency: "eur",
      credits: 55,
      externalId: "cs_1",
      customerId: "cus_1",
      statusAt: 1234,
    });
    expect(await left(u)).toBe(55);
  });

  test("the payment row and its grant: source order, the order's credits, valid PACK_VALIDITY_DAYS, note names the order", async () => {
    const u = await addUser();
    const r = await apply(packPaid(u, "cs_1", { periodEnd: T0 + 99 * DAY_MS }));
    const o = await orderOf("cs_1");
    expect(r.outcome).toBe(`applied: 40 credits for ${o.orderNo}`);
    expect(o.periodEnd).toBeNull(); // a pack has no period, whatever the event says
    const p = await paymentOf("cs_1");
    const grants = await grantsOf(u);
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({
      source: "order",
      amount: 40,
      remaining: 40,
      note: `${o.orderNo} · 40 credits`,
      created_at: new Date(T0).toISOString(),
      expires_at: new Date(T0 + 30 * DAY_MS).toISOString(),
    });
    expect(plain(p)).toMatchObject({
      ref: "cs_1",
      orderNo: o.orderNo,
      userId: u,
      amount: 1000,
      currency: "usd",
      credits: 40,
      grantId: grants[0]!.id,
      paymentIntent: "pi_cs_1",
      refundedAmount: 0,
      clawedBack: 0,
      createdAt: T0,
    });
  });

  test("without a credits snapshot (sessions from before it) the product's credits are granted", async () => {
    const u = await addUser();
    await apply(packPaid(u, "cs_1", { credits: null }));
    expect((await orderOf("cs_1")).credits).toBe(40);
    expect(await left(u)).toBe(40);
  });

  test("one payment per ref: a second event for the same payment grants nothing and says so", async () => {
    const u = await addUser();
    await apply(packPaid(u, "cs_1"));
    expect(await outcome(packPaid(u, "cs_1"))).toBe("applied: payment cs_1 already recorded");
    expect(await paymentsOf((await orderOf("cs_1")).orderNo)).toHaveLength(1);
    expect(await grantsOf(u)).toHaveLength(1);
    expect(await left(u)).toBe(40);
  });

  test("the paid checkout becomes completed; other checkouts are left alone", async () => {
    const u = await addUser();
    await addCheckout("cs_1", u);
    await addCheckout("cs_other", u);
    await apply(packPaid(u, "cs_1", { checkoutId: "cs_1" }));
    expect(await checkoutStatus("cs_1")).toBe("completed");
    expect(await checkoutStatus("cs_other")).toBe("open");
    await apply(packPaid(u, "cs_2"));
    expect(await checkoutStatus("cs_other")).toBe("open");
  });

  test("a payment the order cannot be found for: ignored without user, without product, or for an unknown user or product", async () => {
    const u = await addUser();
    expect(await outcome(periodPaid(null, "in_1"))).toBe("ignored: no user or product for sub_1");
    expect(await outcome(periodPaid(u, "in_1", { productId: null }))).toBe("ignored: no user or product for sub_1");
    expect(await outcome(periodPaid(null, "in_1", { productId: "plan" }))).toBe(
      "ignored: no user or product for sub_1",
    );
    expect(await outcome(packPaid("nobody", "cs_1"))).toBe("ignored: unknown user nobody");
    expect(await outcome(packPaid(u, "cs_1", { productId: "gone" }))).toBe("ignored: unknown product gone");
    expect(await countOrders()).toBe(0);
    expect(await left(u)).toBe(0);
  });

  test("a renewal missing either the user or the product takes both from the order", async () => {
    const u = await addUser();
    await apply(periodPaid(u, "in_1"));
    await apply(periodPaid(u, "in_2", { productId: null }));
    await apply(periodPaid(null, "in_3", { productId: "plan" }));
    expect(await left(u)).toBe(900);
    expect(await countOrders()).toBe(1);
  });

  test("an existing order whose product row is gone: the payment is ignored", async () => {
    const u = await addUser();
    await apply(periodPaid(u, "in_1"));
    await db.run(db.delete(products).where(eq(products.id, "plan")));
    expect(await outcome(periodPaid(null, "in_2"))).toBe("ignored: unknown product plan");
    expect(await left(u)).toBe(300);
  });

  test("a later event of the same payment fills in its PaymentIntent (once), so a refund by PaymentIntent finds it", async () => {
    const u = await addUser();
    // checkout.session.completed of a subscription names the invoice but no PaymentIntent; invoice.paid does.
    await apply(periodPaid(u, "in_1", { paymentIntent: null }));
    expect((await paymentOf("in_1")).paymentIntent).toBeNull();
    await apply(periodPaid(u, "in_1", { paymentIntent: "pi_a" }));
    expect((await paymentOf("in_1")).paymentIntent).toBe("pi_a");
    await apply(periodPaid(u, "in_1", { paymentIntent: "pi_b" }));
    expect((await paymentOf("in_1")).paymentIntent).toBe("pi_a");
    expect(await outcome({ type: "refund", paymentIntent: "pi_a", amountRefunded: 900 })).toBe(
      "applied: refund 900 of 900 on in_1; 300 of 300 credits clawed back",
    );
  });

  describe("subscriptions", () => {
    test("the order: the plan's price and interval, the event's period end, status paid, the customer", async () => {
      const u = await addUser();
      await apply(periodPaid(u, "in_1", { amount: 450, customerId: "cus_1", at: 77 }));
      const o = await orderOf("sub_1");
      expect(plain(o)).toMatchObject({
        userId: u,
        productId: "plan",
        productName: "Plan",
        interval: "month",
        amount: 900,
        status: "paid",
        subId: "sub_1",
        kind: "subscription",
        currency: "usd",
        credits: 300,
        customerId: "cus_1",
        statusAt: 77,
        periodEnd: T0 + 30 * DAY_MS,
      });
      expect((await paymentOf("in_1")).amount).toBe(450);
      expect((await paymentOf("in_1")).periodEnd).toEqual(new Date(T0 + 30 * DAY_MS));
    });

    test("a period paid without a period end lasts one interval from now (month, year)", async () => {
      const u = await addUser();
      await apply(periodPaid(u, "in_1", { periodEnd: null }));
      expect((await orderOf("sub_1")).periodEnd).toEqual(new Date(T0_PLUS_MONTH));
      expect((await paymentOf("in_1")).periodEnd).toBeNull();
      expect((await grantsOf(u))[0]!.expires_at).toBe(new Date(T0_PLUS_MONTH + 2 * DAY_MS).toISOString());

      const v = await addUser();
      await apply({ ...periodPaid(v, "in_y", { periodEnd: null, productId: "yplan" }), orderRef: "sub_y" });
      expect((await orderOf("sub_y")).periodEnd).toEqual(new Date(T0_PLUS_YEAR));
      expect((await grantsOf(v))[0]).toMatchObject({
        amount: 1200,
        expires_at: new Date(T0_PLUS_YEAR + 2 * DAY_MS).toISOString(),
      });
    });

    test("a period's credits last until its end plus SUBSCRIPTION_GRACE_DAYS, and at least one day plus grace", async () => {
      const u = await addUser();
      await apply(periodPaid(u, "in_1", { periodEnd: T0 + 10 * DAY_MS }));
      await apply(periodPaid(u, "in_2", { periodEnd: T0 + 3_600_000 }));
      const byInvoice = (await grantsOf(u)).map((g) => g.expires_at).sort();
      expect(byInvoice).toEqual([new Date(T0 + 3 * DAY_MS).toISOString(), new Date(T0 + 12 * DAY_MS).toISOString()]);
      // the first period's end is the event's, not a default month
      expect((await orderOf("sub_1")).periodEnd).toEqual(new Date(T0 + 10 * DAY_MS));
    });

    test("the period end only moves forward: a later period moves it, an earlier one or a replay without one does not", async () => {
      const u = await addUser();
      await apply(periodPaid(u, "in_1", { periodEnd: T0 + 30 * DAY_MS }));
      await apply(periodPaid(u, "in_2", { periodEnd: T0 + 60 * DAY_MS }));
      expect((await orderOf("sub_1")).periodEnd).toEqual(new Date(T0 + 60 * DAY_MS));
      await apply(periodPaid(u, "in_1", { periodEnd: T0 + 30 * DAY_MS }));
      expect((await orderOf("sub_1")).periodEnd).toEqual(new Date(T0 + 60 * DAY_MS));
      clock.set(T0 + 70 * DAY_MS);
      await apply(periodPaid(u, "in_2", { periodEnd: null }));
      expect((await orderOf("sub_1")).periodEnd).toEqual(new Date(T0 + 60 * DAY_MS));
    });

    test("paid again → paid again, unless a newer event set the status; an equal time counts as newer", async () => {
      const u = await addUser();
      await apply(periodPaid(u, "in_1", { at: 10 }));
      await apply(statusOf("past_due", 20));
      expect((await orderOf("sub_1")).status).toBe("past_due");
      await apply(periodPaid(u, "in_2", { at: 15, periodEnd: T0 + 60 * DAY_MS }));
      expect(await orderOf("sub_1")).toMatchObject({ status: "past_due", statusAt: 20 });
      await apply(periodPaid(u, "in_3", { at: 20, periodEnd: T0 + 90 * DAY_MS }));
      expect(await orderOf("sub_1")).toMatchObject({ status: "paid", statusAt: 20 });
      await apply(statusOf("canceled", 30));
      await apply(periodPaid(u, "in_4", { at: 31, periodEnd: T0 + 120 * DAY_MS }));
      expect(await orderOf("sub_1")).toMatchObject({ status: "paid", statusAt: 31 });
    });

    test("the customer is recorded once: a later payment or status names another customer, the first stays", async () => {
      const u = await addUser();
      await apply(statusOf("paid", 1, { userId: u, productId: "plan" }));
      expect((await orderOf("sub_1")).customerId).toBeNull();
      await apply(periodPaid(u, "in_1", { customerId: "cus_1", at: 2 }));
      expect((await orderOf("sub_1")).customerId).toBe("cus_1");
      await apply(periodPaid(u, "in_2", { customerId: "cus_2", at: 3 }));
      await apply(statusOf("paid", 4, { customerId: "cus_3" }));
      expect((await orderOf("sub_1")).customerId).toBe("cus_1");
    });

    test("a status event fills in a missing customer", async () => {
      const u = await addUser();
      await apply(periodPaid(u, "in_1"));
      await apply(statusOf("paid", 200, { customerId: "cus_9" }));
      expect((await orderOf("sub_1")).customerId).toBe("cus_9");
    });

    test("a pack's order keeps its status on a later delivery of its payment (only subscriptions are re-activated)", async () => {
      const u = await addUser();
      await apply(packPaid(u, "cs_1", { at: 10 }));
      await apply({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 1000 });
      expect((await orderOf("cs_1")).status).toBe("refunded");
      await apply(packPaid(u, "cs_1", { at: 50, customerId: "cus_late", periodEnd: T0 + 5 * DAY_MS }));
      expect(await orderOf("cs_1")).toMatchObject({
        status: "refunded",
        statusAt: 10,
        customerId: null,
        periodEnd: null,
      });
    });
  });

  describe("referral reward (docs/design.md §9: first paid order, affiliates only, once per invitee)", () => {
    test("the inviter's grant and reward row", async () => {
      const inviter = await addUser({ affiliate: true });
      const invitee = await addUser({ invitedBy: inviter });
      clock.set(T0 + 1_000);
      const r = await apply(packPaid(invitee, "cs_1"));
      const o = await orderOf("cs_1");
      expect(r.outcome).toBe(`applied: 40 credits for ${o.orderNo}; referral 10 credits to ${inviter}`);
      const grants = await grantsOf(inviter);
      expect(grants).toHaveLength(1);
      expect(grants[0]).toMatchObject({
        source: "referral",
        amount: 10,
        note: `referral · ${o.orderNo}`,
        expires_at: new Date(T0 + 1_000 + 365 * DAY_MS).toISOString(),
      });
      const rows = await db.many(db.select().from(referralRewards));
      expect(rows).toEqual([
        {
          inviteeId: invitee,
          inviterId: inviter,
          orderNo: o.orderNo,
          credits: 10,
          grantId: grants[0]!.id,
          createdAt: new Date(T0 + 1_000),
        },
      ]);
    });

    test("rounded down from the credits sold (41 × 25 % = 10)", async () => {
      const inviter = await addUser({ affiliate: true });
      const invitee = await addUser({ invitedBy: inviter });
      await apply(packPaid(invitee, "cs_1", { credits: 41 }));
      expect(await left(inviter)).toBe(10);
    });

    test("a reward that rounds to zero is not recorded", async () => {
      const inviter = await addUser({ affiliate: true });
      const invitee = await addUser({ invitedBy: inviter });
      const r = await apply(packPaid(invitee, "cs_1", { credits: 3 }));
      expect(r.outcome).not.toContain("referral");
      expect(await db.many(db.select().from(referralRewards))).toEqual([]);
      expect(await grantsOf(inviter)).toEqual([]);
      // and the next payment is not "the first" either
      await apply(packPaid(invitee, "cs_2"));
      expect(await grantsOf(inviter)).toEqual([]);
    });

    test("AFFILIATE_REWARD_PERCENT=0 turns rewards off", async () => {
      const inviter = await addUser({ affiliate: true });
      const invitee = await addUser({ invitedBy: inviter });
      await processBillingEvent(
        { db, clock, config: { ...config, AFFILIATE_REWARD_PERCENT: 0 } },
        { id: "e0", type: "payment", payload: "{}" },
        packPaid(invitee, "cs_1"),
      );
      expect(await grantsOf(inviter)).toEqual([]);
      expect(await db.many(db.select().from(referralRewards))).toEqual([]);
    });

    test("no reward without an inviter, or for a non-affiliate inviter", async () => {
      const plain = await addUser();
      expect(await outcome(packPaid(plain, "cs_1"))).not.toContain("referral");
      const inviter = await addUser();
      const invitee = await addUser({ invitedBy: inviter });
      expect(await outcome(packPaid(invitee, "cs_2"))).not.toContain("referral");
      expect(await grantsOf(inviter)).toEqual([]);
      expect(await db.many(db.select().from(referralRewards))).toEqual([]);
    });

    test("an inviter whose account is gone: the payment is granted, no reward", async () => {
      const inviter = await addUser({ affiliate: true });
      const invitee = await addUser({ invitedBy: inviter });
      await db.run(db.delete(user).where(eq(user.id, inviter)));
      expect(await outcome(packPaid(invitee, "cs_1"))).toMatch(/^applied: 40 credits for ORD-20261122-[0-9A-F]{12}$/);
      expect(await db.many(db.select().from(referralRewards))).toEqual([]);
    });

    test("only the first payment counts: a renewal or a second pack pays no reward", async () => {
      const inviter = await addUser({ affiliate: true });
      const invitee = await addUser({ invitedBy: inviter });
      await apply(periodPaid(invitee, "in_1"));
      expect(await left(inviter)).toBe(75);
      clock.advance(1_000);
      expect(await outcome(periodPaid(null, "in_2", { periodEnd: T0 + 60 * DAY_MS }))).not.toContain("referral");
      await apply(packPaid(invitee, "cs_1"));
      expect(await left(inviter)).toBe(75);
    });
  });
});

describe("status facts", () => {
  test("Stripe's statuses → ours: active and trialing are paid; canceled and incomplete_expired are canceled; the rest keep their name", () => {
    expect(
      ["active", "trialing", "canceled", "incomplete_expired", "past_due", "unpaid", "incomplete", "paused"].map(
        subscriptionStatus,
      ),
    ).toEqual(["paid", "paid", "canceled", "canceled", "past_due", "unpaid", "incomplete", "paused"]);
  });

  test("a status and a period end from the event; the outcome names the order", async () => {
    const u = await addUser();
    await apply(periodPaid(u, "in_1", { at: 10 }));
    const o = await orderOf("sub_1");
    expect(await outcome(statusOf("past_due", 20, { periodEnd: T0 + 45 * DAY_MS }))).toBe(
      `applied: ${o.orderNo} is past_due`,
    );
    expect(plain(await orderOf("sub_1"))).toMatchObject({
      status: "past_due",
      statusAt: 20,
      periodEnd: T0 + 45 * DAY_MS,
    });
    // without a period end, the period end stays
    await apply(statusOf("paid", 30));
    expect(plain(await orderOf("sub_1"))).toMatchObject({ status: "paid", statusAt: 30, periodEnd: T0 + 45 * DAY_MS });
  });

  test("an older status never overwrites a newer one; the same second does", async () => {
    const u = await addUser();
    await apply(periodPaid(u, "in_1", { at: 10 }));
    const o = await orderOf("sub_1");
    await apply(statusOf("canceled", 20));
    expect(await outcome(statusOf("paid", 19, { periodEnd: T0 + 99 * DAY_MS }))).toBe(
      `ignored: older than the status of ${o.orderNo}`,
    );
    expect(plain(await orderOf("sub_1"))).toMatchObject({
      status: "canceled",
      statusAt: 20,
      periodEnd: T0 + 30 * DAY_MS,
    });
    expect(await outcome(statusOf("past_due", 20))).toBe(`applied: ${o.orderNo} is past_due`);
  });

  test("premium: only paid within its period", async () => {
    const u = await addUser();
    await apply(periodPaid(u, "in_1", { at: 10, periodEnd: T0 + 30 * DAY_MS }));
    expect(await isPremium(db, u, clock)).toBe(true);
    await apply(statusOf("past_due", 20));
    expect(await isPremium(db, u, clock)).toBe(false);
    expect(await getActiveSubscription(db, u, clock)).toBeUndefined();
    await apply(statusOf("paid", 30));
    expect(await isPremium(db, u, clock)).toBe(true);
    clock.set(T0 + 30 * DAY_MS);
    expect(await isPremium(db, u, clock)).toBe(false);
  });

  test("before any payment: an order is recorded from the subscription's metadata (status, period, credits, customer, currency), no credits", async () => {
    const u = await addUser();
    expect(
      await outcome(
        statusOf("past_due", 5, {
          subscriptionId: "sub_y",
          userId: u,
          productId: "yplan",
          credits: 1500,
          customerId: "cus_1",
          periodEnd: T0 + 365 * DAY_MS,
        }),
      ),
    ).toMatch(/^applied: ORD-20261122-[0-9A-F]{12} is past_due$/);
    expect(plain(await orderOf("sub_y"))).toMatchObject({
      userId: u,
      productId: "yplan",
      kind: "subscription",
      interval: "year",
      amount: 9000,
      currency: "eur",
      status: "past_due",
      statusAt: 5,
      credits: 1500,
      customerId: "cus_1",
      periodEnd: T0 + 365 * DAY_MS,
    });
    expect(await left(u)).toBe(0);
    await apply({ ...periodPaid(u, "in_1", { productId: "yplan", at: 6 }), orderRef: "sub_y" });
    expect(await left(u)).toBe(1500);
  });

  test("before any payment and without a period end: one interval from now", async () => {
    const u = await addUser();
    await apply(statusOf("paid", 5, { userId: u, productId: "plan" }));
    expect((await orderOf("sub_1")).periodEnd).toEqual(new Date(T0_PLUS_MONTH));
  });

  test("an unknown subscription without user and product is ignored; an unknown user or product too", async () => {
    const u = await addUser();
    expect(await outcome(statusOf("paid", 1))).toBe("ignored: unknown subscription sub_1");
    expect(await outcome(statusOf("paid", 1, { userId: u }))).toBe("ignored: unknown subscription sub_1");
    expect(await outcome(statusOf("paid", 1, { productId: "plan" }))).toBe("ignored: unknown subscription sub_1");
    expect(await outcome(statusOf("paid", 1, { userId: "nobody", productId: "plan" }))).toBe(
      "ignored: unknown user nobody",
    );
    expect(await outcome(statusOf("paid", 1, { userId: u, productId: "gone" }))).toBe("ignored: unknown product gone");
    expect(await countOrders()).toBe(0);
  });
});

describe("refunds", () => {
  test("claw back floor(credits × refunded / amount), cumulatively, with one debit per refund amount", async () => {
    const u = await addUser();
    await apply(packPaid(u, "cs_1"));
    expect(await outcome({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 333 })).toBe(
      "applied: refund 333 of 1000 on cs_1; 13 of 13 credits clawed back",
    );
    expect(await paymentOf("cs_1")).toMatchObject({ refundedAmount: 333, clawedBack: 13 });
    expect((await orderOf("cs_1")).status).toBe("paid");
    expect(await outcome({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 666 })).toBe(
      "applied: refund 666 of 1000 on cs_1; 13 of 13 credits clawed back",
    );
    expect(await paymentOf("cs_1")).toMatchObject({ refundedAmount: 666, clawedBack: 26 });
    expect(await left(u)).toBe(14);
    expect(await debitsOf(u)).toEqual([
      { key: "refund:cs_1:333", amount: 13, charged: 13 },
      { key: "refund:cs_1:666", amount: 13, charged: 13 },
    ]);
  });

  test("an amount not above what was refunded is ignored", async () => {
    const u = await addUser();
    await apply(packPaid(u, "cs_1"));
    await apply({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 500 });
    expect(await outcome({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 400 })).toBe(
      "ignored: cs_1 already refunded 500",
    );
    expect(await left(u)).toBe(20);
  });

  test("never below zero: only what remains of the grant is taken, and the rest is not owed later", async () => {
    const u = await addUser();
    await apply(packPaid(u, "cs_1"));
    await db.tx((t) => debitForGeneration(t, { genId: "g1", userId: u, amount: 35 }, clock));
    expect(await outcome({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 500 })).toBe(
      "applied: refund 500 of 1000 on cs_1; 5 of 20 credits clawed back",
    );
    expect(await left(u)).toBe(0);
    expect(await paymentOf("cs_1")).toMatchObject({ refundedAmount: 500, clawedBack: 20 });
    expect(await outcome({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 1000 })).toBe(
      "applied: refund 1000 of 1000 on cs_1; 0 of 20 credits clawed back",
    );
  });

  test("a refund above the payment counts as the whole payment; a fully refunded pack's order is refunded", async () => {
    const u = await addUser();
    await apply(packPaid(u, "cs_1"));
    expect(await outcome({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 1500 })).toBe(
      "applied: refund 1000 of 1000 on cs_1; 40 of 40 credits clawed back",
    );
    expect((await orderOf("cs_1")).status).toBe("refunded");
    expect(await paymentOf("cs_1")).toMatchObject({ refundedAmount: 1000, clawedBack: 40 });
  });

  test("a fully refunded subscription period leaves the subscription's status alone (only packs become refunded)", async () => {
    const u = await addUser();
    await apply(periodPaid(u, "in_1"));
    expect(await outcome({ type: "refund", paymentRef: "in_1", amountRefunded: 900 })).toBe(
      "applied: refund 900 of 900 on in_1; 300 of 300 credits clawed back",
    );
    expect((await orderOf("sub_1")).status).toBe("paid");
  });

  test("the payment's ref wins over its PaymentIntent", async () => {
    const u = await addUser();
    await apply(packPaid(u, "cs_1"));
    await apply(packPaid(u, "cs_2"));
    expect(await outcome({ type: "refund", paymentRef: "cs_1", paymentIntent: "pi_cs_2", amountRefunded: 1000 })).toBe(
      "applied: refund 1000 of 1000 on cs_1; 40 of 40 credits clawed back",
    );
    expect((await paymentOf("cs_2")).refundedAmount).toBe(0);
  });

  test("a refund of no known payment waits for it (named by ref first); without either it is ignored", async () => {
    expect(await outcome({ type: "refund", paymentIntent: "pi_x", amountRefunded: 1 })).toBe(
      "waiting: no payment for pi_x",
    );
    expect(await outcome({ type: "refund", paymentRef: "in_x", paymentIntent: "pi_x", amountRefunded: 1 })).toBe(
      "waiting: no payment for in_x",
    );
    expect(await outcome({ type: "refund", paymentIntent: null, paymentRef: null, amountRefunded: 1 })).toBe(
      "ignored: refund without a payment",
    );
  });

  describe("the referral share", () => {
    test("each refund takes floor(reward × refunded / amount) minus what earlier refunds took", async () => {
      const inviter = await addUser({ affiliate: true });
      const invitee = await addUser({ invitedBy: inviter });
      await apply(packPaid(invitee, "cs_1")); // 40 credits, reward 10
      expect(await outcome({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 300 })).toBe(
        `applied: refund 300 of 1000 on cs_1; 12 of 12 credits clawed back; referral 3 of 3 credits clawed back from ${inviter}`,
      );
      // 390: floor(10 × 0.39) = 3, nothing more is due from the inviter
      expect(await outcome({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 390 })).toBe(
        "applied: refund 390 of 1000 on cs_1; 3 of 3 credits clawed back",
      );
      await apply({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 1000 });
      expect(await debitsOf(inviter)).toEqual([
        { key: "refund-referral:cs_1:1000", amount: 7, charged: 7 },
        { key: "refund-referral:cs_1:300", amount: 3, charged: 3 },
      ]);
      expect(await left(inviter)).toBe(0);
    });

    test("a refund of a renewal takes nothing from the inviter; of the first period, its share", async () => {
      const inviter = await addUser({ affiliate: true });
      const invitee = await addUser({ invitedBy: inviter });
      await apply(periodPaid(invitee, "in_1")); // 300 credits, reward 75
      clock.advance(1_000);
      await apply(periodPaid(null, "in_2", { periodEnd: T0 + 60 * DAY_MS }));
      expect(await outcome({ type: "refund", paymentRef: "in_2", amountRefunded: 900 })).toBe(
        "applied: refund 900 of 900 on in_2; 300 of 300 credits clawed back",
      );
      expect(await left(inviter)).toBe(75);
      await apply({ type: "refund", paymentRef: "in_1", amountRefunded: 450 }); // floor(75 × 0.5) = 37
      expect(await left(inviter)).toBe(38);
    });
  });
});

describe("disputes", () => {
  test("the disputed amount is taken back on top of earlier refunds", async () => {
    const u = await addUser();
    await apply(packPaid(u, "cs_1"));
    await apply({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 250 });
    expect(await outcome({ type: "dispute", paymentIntent: "pi_cs_1", amount: 500 })).toBe(
      "applied: dispute 750 of 1000 on cs_1; 20 of 20 credits clawed back",
    );
    expect(await paymentOf("cs_1")).toMatchObject({ refundedAmount: 750, clawedBack: 30 });
    expect((await orderOf("cs_1")).status).toBe("paid");
    expect(await outcome({ type: "dispute", paymentIntent: "pi_cs_1", amount: 250 })).toBe(
      "applied: dispute 1000 of 1000 on cs_1; 10 of 10 credits clawed back",
    );
    expect((await orderOf("cs_1")).status).toBe("refunded");
    expect(await left(u)).toBe(0);
    expect(await debitsOf(u)).toEqual([
      { key: "refund:cs_1:1000", amount: 10, charged: 10 },
      { key: "refund:cs_1:250", amount: 10, charged: 10 },
      { key: "refund:cs_1:750", amount: 20, charged: 20 },
    ]);
  });

  test("a subscription period's dispute, found by its invoice, takes the referral share too", async () => {
    const inviter = await addUser({ affiliate: true });
    const invitee = await addUser({ invitedBy: inviter });
    await apply(periodPaid(invitee, "in_1", { paymentIntent: null }));
    expect(await outcome({ type: "dispute", paymentIntent: "pi_unseen", paymentRef: "in_1", amount: 900 })).toBe(
      `applied: dispute 900 of 900 on in_1; 300 of 300 credits clawed back; referral 75 of 75 credits clawed back from ${inviter}`,
    );
    expect(await left(invitee)).toBe(0);
    expect(await left(inviter)).toBe(0);
  });

  test("the payment's ref wins over its PaymentIntent", async () => {
    const u = await addUser();
    await apply(packPaid(u, "cs_1"));
    await apply(packPaid(u, "cs_2"));
    await apply({ type: "dispute", paymentRef: "cs_2", paymentIntent: "pi_cs_1", amount: 1000 });
    expect((await paymentOf("cs_1")).refundedAmount).toBe(0);
    expect((await paymentOf("cs_2")).refundedAmount).toBe(1000);
  });

  test("a dispute of no known payment waits for it; without a payment it is ignored", async () => {
    expect(await outcome({ type: "dispute", paymentIntent: "pi_x", amount: 1 })).toBe("waiting: no payment for pi_x");
    expect(await outcome({ type: "dispute", paymentIntent: "pi_x", paymentRef: "in_x", amount: 1 })).toBe(
      "waiting: no payment for in_x",
    );
    expect(await outcome({ type: "dispute", paymentIntent: null, paymentRef: "in_y", amount: 1 })).toBe(
      "waiting: no payment for in_y",
    );
    expect(await outcome({ type: "dispute", paymentIntent: null, amount: 1 })).toBe(
      "ignored: dispute without a payment intent",
    );
  });
});

describe("refunds and disputes before their payment (applyWaitingEvents)", () => {
  test("applied when the payment is recorded, oldest first, and the event row gets its outcome", async () => {
    const u = await addUser();
    await apply({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 300 }, "evt_r1");
    clock.advance(1_000);
    await apply({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 600 }, "evt_r2");
    clock.advance(1_000);
    await apply({ type: "dispute", paymentIntent: "pi_other", amount: 1 }, "evt_other");
    expect((await eventRow("evt_r1")).outcome).toBe("waiting: no payment for pi_cs_1");
    clock.advance(1_000);
    await apply(packPaid(u, "cs_1"));
    const info = spyOn(log, "info").mockImplementation(() => {});
    try {
      expect(await applyWaiting({ paymentRef: "cs_1", paymentIntent: "pi_cs_1" })).toEqual(["evt_r1", "evt_r2"]);
      expect(info.mock.calls).toEqual([
        [
          "billing event applied after its payment",
          { event_id: "evt_r1", outcome: "applied: refund 300 of 1000 on cs_1; 12 of 12 credits clawed back" },
        ],
        [
          "billing event applied after its payment",
          { event_id: "evt_r2", outcome: "applied: refund 600 of 1000 on cs_1; 12 of 12 credits clawed back" },
        ],
      ]);
    } finally {
      info.mockRestore();
    }
    expect((await eventRow("evt_r1")).outcome).toBe(
      "applied: refund 300 of 1000 on cs_1; 12 of 12 credits clawed back",
    );
    expect((await eventRow("evt_r2")).outcome).toBe(
      "applied: refund 600 of 1000 on cs_1; 12 of 12 credits clawed back",
    );
    expect((await eventRow("evt_other")).outcome).toBe("waiting: no payment for pi_other");
    expect(await left(u)).toBe(16);
    // Applied once: a second call (the payment's event delivered again) finds nothing.
    expect(await applyWaiting({ paymentRef: "cs_1", paymentIntent: "pi_cs_1" })).toEqual([]);
    expect(await left(u)).toBe(16);
  });

  test("a dispute waiting under the invoice id is applied by the invoice's payment", async () => {
    const u = await addUser();
    await apply({ type: "dispute", paymentIntent: "pi_in_1", paymentRef: "in_1", amount: 450 }, "evt_d");
    await apply(periodPaid(u, "in_1"));
    expect(await applyWaiting({ paymentRef: "in_1", paymentIntent: null })).toEqual(["evt_d"]);
    expect((await eventRow("evt_d")).outcome).toBe(
      "applied: dispute 450 of 900 on in_1; 150 of 150 credits clawed back",
    );
    expect(await left(u)).toBe(150);
  });

  test("nothing to look for, a payload that is no fact, or a fact still waiting: nothing applied", async () => {
    const u = await addUser();
    expect(await applyWaiting({ paymentRef: null, paymentIntent: null })).toEqual([]);
    await apply({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 1000 }, "evt_r");
    await apply(packPaid(u, "cs_1"));
    expect(await applyWaiting({ paymentIntent: "pi_cs_1" }, async () => null)).toEqual([]);
    expect(
      await applyWaiting({ paymentIntent: "pi_cs_1" }, async () => ({
        type: "refund",
        paymentIntent: "pi_elsewhere",
        amountRefunded: 5,
      })),
    ).toEqual([]);
    expect((await eventRow("evt_r")).outcome).toBe("waiting: no payment for pi_cs_1");
    expect(await left(u)).toBe(40);
  });

  test("a failure while applying one is not swallowed: the caller fails (Stripe retries) and the event stays waiting", async () => {
    const u = await addUser();
    await apply({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 1000 }, "evt_r");
    await apply(packPaid(u, "cs_1"));
    // A fact the database refuses (no amount: NOT NULL) stands for any error inside the transaction.
    const broken = async (): Promise<Fact> => ({ ...packPaid(u, "cs_9"), amount: null as unknown as number });
    await expect(applyWaiting({ paymentIntent: "pi_cs_1" }, broken)).rejects.toThrow();
    expect((await eventRow("evt_r")).outcome).toBe("waiting: no payment for pi_cs_1");
    expect(await left(u)).toBe(40);
  });

  test("applied by another process meanwhile: this one rolls back", async () => {
    const u = await addUser();
    await apply({ type: "refund", paymentIntent: "pi_cs_1", amountRefunded: 1000 }, "evt_r");
    await apply(packPaid(u, "cs_1"));
    const racing = async (payload: string) => {
      await db.run(
        db.update(billingEvents).set({ outcome: "applied: elsewhere" }).where(eq(billingEvents.id, "evt_r")),
      );
      return factOf(payload);
    };
    expect(await applyWaiting({ paymentIntent: "pi_cs_1" }, racing)).toEqual([]);
    expect(await left(u)).toBe(40);
    expect(await paymentOf("cs_1")).toMatchObject({ refundedAmount: 0, clawedBack: 0 });
  });
});

describe("checkout expired", () => {
  test("an open checkout becomes expired; a completed or unknown one is left alone", async () => {
    const u = await addUser();
    await addCheckout("cs_open", u);
    await addCheckout("cs_done", u, "completed");
    expect(await outcome({ type: "checkout-expired", checkoutId: "cs_open" })).toBe(
      "applied: checkout cs_open expired",
    );
    expect(await checkoutStatus("cs_open")).toBe("expired");
    expect(await db.tx((t) => applyFact(t, { type: "checkout-expired", checkoutId: "cs_open" }, clock, config))).toBe(
      "ignored: checkout cs_open not open",
    );
    expect(await outcome({ type: "checkout-expired", checkoutId: "cs_done" })).toBe(
      "ignored: checkout cs_done not open",
    );
    expect(await checkoutStatus("cs_done")).toBe("completed");
    expect(await outcome({ type: "checkout-expired", checkoutId: "cs_none" })).toBe(
      "ignored: checkout cs_none not open",
    );
  });
});

/**
 * The same rules from Stripe's own event shapes: the fake builds and signs the
 * events (API version of the installed SDK), `receiveStripeWebhook` verifies
 * them, `factFromEvent` turns them into facts, fulfilment applies them.
 */
describe("from Stripe events (tests/fakes/stripe.ts)", () => {
  let stripe: StripeFake;
  let deps: CheckoutDeps;
  beforeAll(() => void (stripe = startStripeFake()));
  afterAll(() => stripe?.stop());
  beforeEach(() => {
    deps = { db, clock, config: { ...config, publicUrl: "http://app.test", ...stripe.env } as CheckoutDeps["config"] };
  });
  const receive = (e: SignedEvent) => receiveStripeWebhook(deps, new TextEncoder().encode(e.payload), e.signature);
  const receiveAll = async (events: SignedEvent[]) => {
    const out = [];
    for (const e of events) out.push(await receive(e));
    return out;
  };
  const buy = async (u: string, productId: string) => {
    const url = (await startCheckout(deps, { id: u, email: `${u}@example.test` }, productId)).checkout_url;
    return new URL(url).pathname.split("/").pop()!;
  };

  test("a pack: granted once from checkout.session.completed, its checkout completed, replays are duplicates", async () => {
    const u = await addUser();
    const session = await buy(u, "p40");
    const [paid] = await stripe.pay(session);
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => receive(paid!)));
    expect(results.filter((r) => r.duplicate)).toHaveLength(4);
    expect(await left(u)).toBe(40);
    expect(await checkoutStatus(session)).toBe("completed");
    expect(await orderOf(session)).toMatchObject({
      kind: "pack",
      provider: "stripe",
      amount: 1000,
      credits: 40,
      status: "paid",
    });
    expect((await paymentOf(session)).paymentIntent).toBe(stripe.paymentIntentOf(session));
  });

  test("a pack refunded in part, then disputed: claw-backs on top of each other, the order refunded", async () => {
    const u = await addUser();
    const session = await buy(u, "p40");
    await receiveAll(await stripe.pay(session));
    const pi = stripe.paymentIntentOf(session);
    const [refunded] = await receiveAll(await stripe.refund(pi, 250));
    expect(refunded!.outcome).toBe(`applied: refund 250 of 1000 on ${session}; 10 of 10 credits clawed back`);
    const [disputed] = await receiveAll(await stripe.dispute(pi));
    expect(disputed!.outcome).toBe(`applied: dispute 1000 of 1000 on ${session}; 30 of 30 credits clawed back`);
    expect(await left(u)).toBe(0);
    expect((await orderOf(session)).status).toBe("refunded");
  });

  test("a refund delivered before its payment waits, then applies in the payment's webhook call", async () => {
    const u = await addUser();
    const session = await buy(u, "p40");
    const paid = await stripe.pay(session);
    const refund = await stripe.refund(stripe.paymentIntentOf(session), 500);
    const [waiting] = await receiveAll(refund);
    expect(waiting!.outcome).toBe(`waiting: no payment for ${stripe.paymentIntentOf(session)}`);
    await receiveAll(paid);
    expect(await left(u)).toBe(20);
    expect((await eventRow(waiting!.id)).outcome).toBe(
      `applied: refund 500 of 1000 on ${session}; 20 of 20 credits clawed back`,
    );
  });

  test("a subscription: one grant for its three events, renewals, a refund and a dispute by invoice, then canceled", async () => {
    const u = await addUser();
    const session = await buy(u, "plan");
    await receiveAll(await stripe.pay(session));
    const s = stripe.sessions.get(session)!;
    const sub = stripe.subscriptions.get(s.subscription)!;
    expect(await left(u)).toBe(300);
    expect(await checkoutStatus(session)).toBe("completed");
    expect(plain(await orderOf(s.subscription))).toMatchObject({
      kind: "subscription",
      status: "paid",
      credits: 300,
      customerId: s.customer,
      periodEnd: sub.items.data[0].current_period_end * 1000,
    });
    expect(await isPremium(db, u, clock)).toBe(true);

    await receiveAll(await stripe.renew(s.subscription));
    expect(await left(u)).toBe(600);
    expect((await orderOf(s.subscription)).periodEnd).toEqual(new Date(sub.items.data[0].current_period_end * 1000));
    const invoices = [...stripe.invoices.values()]
      .filter((i) => i.parent.subscription_details.subscription === s.subscription)
      .map((i) => i.id as string);
    expect(invoices).toHaveLength(2);

    // The renewal's charge names a PaymentIntent Atelier never saw: its invoice is found through the API.
    const [refunded] = await receiveAll(await stripe.refund(stripe.paymentIntentOf(invoices[1]!)));
    expect(refunded!.outcome).toBe(`applied: refund 900 of 900 on ${invoices[1]}; 300 of 300 credits clawed back`);
    const [disputed] = await receiveAll(await stripe.dispute(stripe.paymentIntentOf(invoices[0]!)));
    expect(disputed!.outcome).toBe(`applied: dispute 900 of 900 on ${invoices[0]}; 300 of 300 credits clawed back`);
    expect(await left(u)).toBe(0);
    expect((await orderOf(s.subscription)).status).toBe("paid");

    await receiveAll(await stripe.cancel(s.subscription));
    expect((await orderOf(s.subscription)).status).toBe("canceled");
    expect(await isPremium(db, u, clock)).toBe(false);
  });

  test("checkout.session.expired: the checkout row becomes expired", async () => {
    const u = await addUser();
    const session = await buy(u, "p40");
    const [r] = await receiveAll(await stripe.expire(session));
    expect(r!.outcome).toBe(`applied: checkout ${session} expired`);
    expect(await checkoutStatus(session)).toBe("expired");
  });
});
