/**
 * Fulfilment (docs/design.md §9): the one place where money becomes credits. Stripe's
 * webhook and the simulated checkout both turn what happened into a `Fact`
 * and call `processBillingEvent`, which records the event id once and applies
 * the fact in the same write transaction, so a duplicate or concurrent
 * delivery changes nothing. Every function below the entry point is a
 * statement sequence run inside that transaction (docs/data-layer.md).
 *
 * Guards, besides the event id: one order per provider object (unique
 * `orders.external_id`), one payment per Checkout Session or invoice (unique
 * `order_payments.ref`), one claw-back per refund amount (unique debit key),
 * one referral reward per invitee (primary key).
 */

import { randomUUID } from "node:crypto";
import { and, asc, count, eq, inArray, isNull, lt, lte, or } from "drizzle-orm";
import { type Db, one, run, type Steps } from "#db/client";
import { billingEvents, checkouts, orderPayments, orders, referralRewards, user } from "#db/schema";
import { type Clock, DAY_MS } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { log } from "~/lib/log.server";
import { clawBackGrant, grantCredits, type Tx } from "../credits/ledger.server";
import { defaultPeriodEnd, type Interval, newOrderNo, type OrderRow } from "../subscriptions/subscriptions.server";
import { productStep } from "./products.server";

export type BillingConfig = Pick<Config, "PACK_VALIDITY_DAYS" | "SUBSCRIPTION_GRACE_DAYS" | "AFFILIATE_REWARD_PERCENT">;
export type Provider = "stripe" | "simulated";

/** Money received: a pack's payment or one subscription period. */
export interface PaymentFact {
  type: "payment";
  provider: Provider;
  /** From the signed event; for a renewal without metadata, taken from the order. */
  userId?: string | null;
  productId?: string | null;
  /** The provider's object bought: Checkout Session id (pack) or subscription id. */
  orderRef: string;
  /** The payment itself: Checkout Session id (pack) or invoice id (subscription period). */
  paymentRef: string;
  amount: number;
  currency: string;
  /** Credits sold, fixed at checkout (checkout row / session metadata); stored on the order, so renewals grant the same. */
  credits?: number | null;
  paymentIntent?: string | null;
  customerId?: string | null;
  /** End of the period paid for (ms); default one interval from now. */
  periodEnd?: number | null;
  /** The Checkout Session that was paid (its `checkouts` row becomes completed). */
  checkoutId?: string | null;
  /** The event's `created` (seconds). */
  at: number;
}

/** A subscription's state changed (updated, canceled). */
export interface StatusFact {
  type: "status";
  provider: Provider;
  subscriptionId: string;
  userId?: string | null;
  productId?: string | null;
  status: string;
  periodEnd?: number | null;
  customerId?: string | null;
  /** Credits sold (subscription metadata), for an order first seen through its status. */
  credits?: number | null;
  at: number;
}

/** Money returned: the cumulative refunded amount of one payment. */
export interface RefundFact {
  type: "refund";
  paymentIntent?: string | null;
  /** The payment's ref when known (an invoice id found through the API). */
  paymentRef?: string | null;
  /** Cumulative refunded amount (cents) of that charge. */
  amountRefunded: number;
}

/**
 * A chargeback opened (`charge.dispute.created`): the disputed amount is taken
 * back like a refund on top of what was refunded before. Winning the dispute
 * later does not grant the credits again (docs/payments.md: an admin grants them).
 */
export interface DisputeFact {
  type: "dispute";
  paymentIntent: string | null;
  /** The payment's ref when known (an invoice id found through the API, like a refund's). */
  paymentRef?: string | null;
  /** Disputed amount (cents). */
  amount: number;
}

/** A checkout that was never paid expired (`checkout.session.expired`). */
export interface CheckoutExpiredFact {
  type: "checkout-expired";
  checkoutId: string;
}

export type Fact = PaymentFact | StatusFact | RefundFact | DisputeFact | CheckoutExpiredFact;

export interface BillingDeps {
  db: Db;
  clock: Clock;
  config: BillingConfig;
}

export interface EventResult {
  /** The event id was seen before: nothing was changed this time. */
  duplicate: boolean;
  outcome: string;
}

/**
 * Records `event.id` once and applies its fact in the same transaction.
 * A fact of null (an event type we do not act on) is recorded as ignored.
 */
export async function processBillingEvent(
  { db, clock, config }: BillingDeps,
  event: { id: string; type: string; payload: string },
  fact: Fact | null,
): Promise<EventResult> {
  const result = await db.tx(function* (t) {
    const inserted = yield* run(
      t
        .insert(billingEvents)
        .values({
          id: event.id,
          type: event.type,
          outcome: "processing",
          payload: event.payload,
          createdAt: new Date(clock.now()),
        })
        .onConflictDoNothing({ target: billingEvents.id }),
    );
    if (inserted === 0) {
      const seen = yield* one(
        t.select({ outcome: billingEvents.outcome }).from(billingEvents).where(eq(billingEvents.id, event.id)),
      );
      return { duplicate: true, outcome: seen?.outcome ?? "seen" };
    }
    const outcome = fact ? yield* applyFact(t, fact, clock, config) : "ignored: event type not handled";
    yield* run(t.update(billingEvents).set({ outcome }).where(eq(billingEvents.id, event.id)));
    return { duplicate: false, outcome };
  });
  if (!result.duplicate && result.outcome.startsWith("waiting")) {
    log.warn("billing event waiting for its payment", {
      event_id: event.id,
      type: event.type,
      outcome: result.outcome,
    });
  } else if (!result.duplicate && result.outcome.startsWith("ignored")) {
    log.warn("billing event ignored", { event_id: event.id, type: event.type, outcome: result.outcome });
  } else if (!result.duplicate) {
    log.info("billing event applied", { event_id: event.id, type: event.type, outcome: result.outcome });
  }
  return result;
}

/** A payment was recorded: refunds and disputes that arrived before it are applied now. */
export async function applyWaitingEvents(
  { db, clock, config }: BillingDeps,
  payment: { paymentRef?: string | null; paymentIntent?: string | null },
  factOf: (payload: string) => Promise<Fact | null>,
): Promise<string[]> {
  const keys = [payment.paymentRef, payment.paymentIntent].filter((k): k is string => !!k).map(waitingFor);
  if (keys.length === 0) return [];
  const waiting = await db.many(
    db
      .select({ id: billingEvents.id, outcome: billingEvents.outcome, payload: billingEvents.payload })
      .from(billingEvents)
      .where(inArray(billingEvents.outcome, keys))
      .orderBy(asc(billingEvents.createdAt))
      .limit(50),
  );
  const applied: string[] = [];
  for (const row of waiting) {
    const fact = await factOf(row.payload);
    if (!fact) continue;
    const outcome = await db
      .tx(function* (t) {
        const outcome = yield* applyFact(t, fact, clock, config);
        if (outcome.startsWith("waiting")) return null;
        // Another process applied it first: roll this one back.
        const n = yield* run(
          t
            .update(billingEvents)
            .set({ outcome })
            .where(and(eq(billingEvents.id, row.id), eq(billingEvents.outcome, row.outcome))),
        );
        if (n !== 1) throw new AppliedElsewhere();
        return outcome;
      })
      .catch((e) => {
        if (e instanceof AppliedElsewhere) return null;
        throw e;
      });
    if (outcome) {
      log.info("billing event applied after its payment", { event_id: row.id, outcome });
      applied.push(row.id);
    }
  }
  return applied;
}

class AppliedElsewhere extends Error {}

export function* applyFact(tx: Tx, fact: Fact, clock: Clock, config: BillingConfig): Steps<string> {
  switch (fact.type) {
    case "payment":
      return yield* applyPayment(tx, fact, clock, config);
    case "status":
      return yield* applyStatus(tx, fact, clock);
    case "refund":
      return yield* applyRefund(tx, fact, clock);
    case "dispute":
      return yield* applyDispute(tx, fact, clock);
    case "checkout-expired": {
      const n = yield* run(
        tx
          .update(checkouts)
          .set({ status: "expired" })
          .where(and(eq(checkouts.id, fact.checkoutId), eq(checkouts.status, "open"))),
      );
      return n ? `applied: checkout ${fact.checkoutId} expired` : `ignored: checkout ${fact.checkoutId} not open`;
    }
  }
}

const orderByRef = (tx: Tx, ref: string): Steps<OrderRow | undefined> =>
  one(tx.select().from(orders).where(eq(orders.externalId, ref)));
function* userExists(tx: Tx, id: string): Steps<boolean> {
  return (yield* one(tx.select({ id: user.id }).from(user).where(eq(user.id, id)))) !== undefined;
}

/** Finds or creates the order of a provider object (race-safe through the unique external id). */
function* ensureOrder(
  tx: Tx,
  f: {
    provider: Provider;
    orderRef: string;
    userId: string;
    productId: string;
    customerId?: string | null;
    periodEnd?: number | null;
    amount?: number;
    currency?: string;
    credits?: number | null;
    status?: string;
    at: number;
  },
  clock: Clock,
): Steps<OrderRow | string> {
  const existing = yield* orderByRef(tx, f.orderRef);
  if (existing) return existing;
  if (!(yield* userExists(tx, f.userId))) return `ignored: unknown user ${f.userId}`;
  const product = yield* productStep(tx, f.productId);
  if (!product) return `ignored: unknown product ${f.productId}`;
  const now = clock.now();
  const interval = (product.interval ?? "one-time") as Interval;
  yield* run(
    tx
      .insert(orders)
      .values({
        orderNo: newOrderNo(now),
        userId: f.userId,
        productId: product.id,
        productName: product.name,
        interval,
        amount: product.kind === "pack" && f.amount !== undefined ? f.amount : product.amount,
        status: f.status ?? "paid",
        subId: f.orderRef,
        periodEnd: product.kind === "pack" ? null : new Date(f.periodEnd ?? defaultPeriodEnd(interval, now)!),
        createdAt: new Date(now),
        kind: product.kind,
        provider: f.provider,
        currency: f.currency ?? product.currency,
        credits: f.credits ?? product.credits,
        externalId: f.orderRef,
        customerId: f.customerId ?? null,
        statusAt: f.at,
      })
      .onConflictDoNothing({ target: orders.externalId }),
  );
  return (yield* orderByRef(tx, f.orderRef))!;
}

function* applyPayment(tx: Tx, f: PaymentFact, clock: Clock, config: BillingConfig): Steps<string> {
  let userId = f.userId;
  let productId = f.productId;
  if (!userId || !productId) {
    // A renewal invoice without our metadata: the order made at checkout knows.
    const known = yield* orderByRef(tx, f.orderRef);
    if (!known) return `ignored: no user or product for ${f.orderRef}`;
    userId = known.userId;
    productId = known.productId;
  }
  if (f.checkoutId) yield* run(tx.update(checkouts).set({ status: "completed" }).where(eq(checkouts.id, f.checkoutId)));
  const order = yield* ensureOrder(tx, { ...f, userId, productId }, clock);
  if (typeof order === "string") return order;
  const product = yield* productStep(tx, order.productId);
  if (!product) return `ignored: unknown product ${order.productId}`;
  // What was sold (the order's snapshot), not what the product row says now.
  const credits = order.credits ?? product.credits;

  const now = clock.now();
  const paymentId = randomUUID();
  const inserted = yield* run(
    tx
      .insert(orderPayments)
      .values({
        id: paymentId,
        ref: f.paymentRef,
        orderNo: order.orderNo,
        userId: order.userId,
        amount: f.amount,
        currency: f.currency,
        credits,
        paymentIntent: f.paymentIntent ?? null,
        periodEnd: f.periodEnd ? new Date(f.periodEnd) : null,
        createdAt: new Date(now),
      })
      .onConflictDoNothing({ target: orderPayments.ref }),
  );
  const fresh = inserted === 1;
  if (!fresh && f.paymentIntent) {
    // The same period seen again (checkout, then invoice.paid): keep what the later event knows.
    yield* run(
      tx
        .update(orderPayments)
        .set({ paymentIntent: f.paymentIntent })
        .where(and(eq(orderPayments.ref, f.paymentRef), isNull(orderPayments.paymentIntent))),
    );
  }

  if (order.kind === "subscription") {
    const periodEnd = f.periodEnd ?? (fresh ? defaultPeriodEnd(order.interval as Interval, now) : null);
    if (periodEnd) {
      yield* run(
        tx
          .update(orders)
          .set({ periodEnd: new Date(periodEnd) })
          .where(
            and(
              eq(orders.orderNo, order.orderNo),
              or(isNull(orders.periodEnd), lt(orders.periodEnd, new Date(periodEnd))),
            ),
          ),
      );
    }
    // Paid again → active again, unless a newer event said otherwise.
    yield* run(
      tx
        .update(orders)
        .set({ status: "paid", statusAt: f.at })
        .where(and(eq(orders.orderNo, order.orderNo), or(isNull(orders.statusAt), lte(orders.statusAt, f.at)))),
    );
    if (f.customerId)
      yield* run(
        tx
          .update(orders)
          .set({ customerId: f.customerId })
          .where(and(eq(orders.orderNo, order.orderNo), isNull(orders.customerId))),
      );
  }
  if (!fresh) return `applied: payment ${f.paymentRef} already recorded`;

  const expiresAt =
    order.kind === "pack"
      ? now + config.PACK_VALIDITY_DAYS * DAY_MS
      : Math.max(f.periodEnd ?? defaultPeriodEnd(order.interval as Interval, now)!, now + DAY_MS) +
        config.SUBSCRIPTION_GRACE_DAYS * DAY_MS;
  const grant = yield* grantCredits(
    tx,
    { userId: order.userId, amount: credits, source: "order", expiresAt, note: `${order.orderNo} · ${product.name}` },
    clock,
  );
  yield* run(tx.update(orderPayments).set({ grantId: grant.id }).where(eq(orderPayments.id, paymentId)));
  const reward = yield* rewardReferral(tx, order, credits, clock, config);
  return `applied: ${credits} credits for ${order.orderNo}${reward ? `; referral ${reward}` : ""}`;
}

/** Stripe subscription statuses → ours: `paid` is the active state of spec 2.3. */
export function subscriptionStatus(stripeStatus: string): string {
  switch (stripeStatus) {
    case "active":
    case "trialing":
      return "paid";
    case "canceled":
    case "incomplete_expired":
      return "canceled";
    default:
      return stripeStatus; // past_due, unpaid, incomplete, paused
  }
}

function* applyStatus(tx: Tx, f: StatusFact, clock: Clock): Steps<string> {
  let order = yield* orderByRef(tx, f.subscriptionId);
  if (!order) {
    if (!f.userId || !f.productId) return `ignored: unknown subscription ${f.subscriptionId}`;
    // Arrived before the checkout and its invoice: record the order now (no credits until a payment).
    const made = yield* ensureOrder(
      tx,
      { ...f, orderRef: f.subscriptionId, userId: f.userId, productId: f.productId, status: f.status },
      clock,
    );
    if (typeof made === "string") return made;
    order = made;
  }
  const res = yield* run(
    tx
      .update(orders)
      .set({ status: f.status, statusAt: f.at, ...(f.periodEnd ? { periodEnd: new Date(f.periodEnd) } : {}) })
      .where(and(eq(orders.orderNo, order.orderNo), or(isNull(orders.statusAt), lte(orders.statusAt, f.at)))),
  );
  if (f.customerId)
    yield* run(
      tx
        .update(orders)
        .set({ customerId: f.customerId })
        .where(and(eq(orders.orderNo, order.orderNo), isNull(orders.customerId))),
    );
  return res === 1 ? `applied: ${order.orderNo} is ${f.status}` : `ignored: older than the status of ${order.orderNo}`;
}

/**
 * Stripe does not promise event order: a refund or dispute can arrive before
 * its payment's event (which Stripe may still be retrying). It is kept as
 * `waiting: no payment for <ref>` and applied when that payment is recorded
 * (applyWaitingEvents), instead of being lost while the payment grants in full.
 */
const waitingFor = (ref: string) => `waiting: no payment for ${ref}`;

function* applyRefund(tx: Tx, f: RefundFact, clock: Clock): Steps<string> {
  const payment =
    (f.paymentRef
      ? yield* one(tx.select().from(orderPayments).where(eq(orderPayments.ref, f.paymentRef)))
      : undefined) ??
    (f.paymentIntent
      ? yield* one(tx.select().from(orderPayments).where(eq(orderPayments.paymentIntent, f.paymentIntent)))
      : undefined);
  if (!payment)
    return f.paymentRef || f.paymentIntent
      ? waitingFor(f.paymentRef || f.paymentIntent!)
      : "ignored: refund without a payment";
  if (f.amountRefunded <= payment.refundedAmount)
    return `ignored: ${payment.ref} already refunded ${payment.refundedAmount}`;
  const refunded = Math.min(f.amountRefunded, payment.amount);
  const target = payment.amount > 0 ? Math.floor((payment.credits * refunded) / payment.amount) : payment.credits;
  const due = Math.max(0, target - payment.clawedBack);
  const guarded = yield* run(
    tx
      .update(orderPayments)
      .set({ refundedAmount: refunded, clawedBack: payment.clawedBack + due })
      .where(and(eq(orderPayments.id, payment.id), eq(orderPayments.refundedAmount, payment.refundedAmount))),
  );
  if (guarded !== 1) throw new Error(`billing: payment ${payment.id} changed under a refund`);
  const taken = payment.grantId
    ? yield* clawBackGrant(
        tx,
        { key: `refund:${payment.ref}:${refunded}`, userId: payment.userId, grantId: payment.grantId, amount: due },
        clock,
      )
    : 0;
  const reward = yield* clawBackReferral(tx, payment, refunded, clock);
  if (refunded >= payment.amount) {
    yield* run(
      tx
        .update(orders)
        .set({ status: "refunded" })
        .where(and(eq(orders.orderNo, payment.orderNo), eq(orders.kind, "pack"))),
    );
  }
  return `applied: refund ${refunded} of ${payment.amount} on ${payment.ref}; ${taken} of ${due} credits clawed back${reward ? `; referral ${reward}` : ""}`;
}

/** A dispute is a refund of the disputed amount on top of the payment's earlier refunds. */
function* applyDispute(tx: Tx, f: DisputeFact, clock: Clock): Steps<string> {
  const payment =
    (f.paymentRef
      ? yield* one(tx.select().from(orderPayments).where(eq(orderPayments.ref, f.paymentRef)))
      : undefined) ??
    (f.paymentIntent
      ? yield* one(tx.select().from(orderPayments).where(eq(orderPayments.paymentIntent, f.paymentIntent)))
      : undefined);
  if (!payment)
    return f.paymentRef || f.paymentIntent
      ? waitingFor(f.paymentRef || f.paymentIntent!)
      : "ignored: dispute without a payment intent";
  const outcome = yield* applyRefund(
    tx,
    { type: "refund", paymentRef: payment.ref, amountRefunded: payment.refundedAmount + f.amount },
    clock,
  );
  return outcome.replace(/^applied: refund/, "applied: dispute");
}

/**
 * A refund takes back the same share of the referral reward the refunded
 * payment paid for (the order's first payment): floor(reward × refunded /
 * amount) minus the share earlier refunds of this payment took. The caller's
 * guarded `refunded_amount` update makes each step run once; the debit key
 * (one per refund amount) makes the claw-back itself idempotent.
 */
function* clawBackReferral(
  tx: Tx,
  payment: typeof orderPayments.$inferSelect,
  refunded: number,
  clock: Clock,
): Steps<string | null> {
  const reward = yield* one(tx.select().from(referralRewards).where(eq(referralRewards.orderNo, payment.orderNo)));
  if (!reward?.grantId || payment.amount <= 0) return null;
  const earlier = yield* one(
    tx
      .select({ n: count() })
      .from(orderPayments)
      .where(and(eq(orderPayments.orderNo, payment.orderNo), lt(orderPayments.createdAt, payment.createdAt))),
  );
  if (Number(earlier?.n ?? 0) > 0) return null; // a renewal: the reward was paid out of the first period
  const share = (amount: number) => Math.floor((reward.credits * Math.min(amount, payment.amount)) / payment.amount);
  const due = share(refunded) - share(payment.refundedAmount);
  if (due <= 0) return null;
  const taken = yield* clawBackGrant(
    tx,
    {
      key: `refund-referral:${payment.ref}:${refunded}`,
      userId: reward.inviterId,
      grantId: reward.grantId,
      amount: due,
    },
    clock,
  );
  return `${taken} of ${due} credits clawed back from ${reward.inviterId}`;
}

/**
 * docs/design.md §9: the invitee's first paid order rewards an affiliate inviter with
 * AFFILIATE_REWARD_PERCENT of its credits, once per invitee (primary key).
 */
function* rewardReferral(
  tx: Tx,
  order: OrderRow,
  credits: number,
  clock: Clock,
  config: BillingConfig,
): Steps<string | null> {
  const paid = Number(
    (yield* one(tx.select({ n: count() }).from(orderPayments).where(eq(orderPayments.userId, order.userId))))?.n ?? 0,
  );
  if (paid !== 1) return null;
  const invitee = yield* one(tx.select({ invitedBy: user.invitedBy }).from(user).where(eq(user.id, order.userId)));
  if (!invitee?.invitedBy) return null;
  const inviter = yield* one(
    tx.select({ id: user.id, isAffiliate: user.isAffiliate }).from(user).where(eq(user.id, invitee.invitedBy)),
  );
  if (!inviter?.isAffiliate) return null;
  const reward = Math.floor((credits * config.AFFILIATE_REWARD_PERCENT) / 100);
  if (reward <= 0) return null;
  const inserted = yield* run(
    tx
      .insert(referralRewards)
      .values({
        inviteeId: order.userId,
        inviterId: inviter.id,
        orderNo: order.orderNo,
        credits: reward,
        createdAt: new Date(clock.now()),
      })
      .onConflictDoNothing({ target: referralRewards.inviteeId }),
  );
  if (inserted === 0) return null;
  const grant = yield* grantCredits(
    tx,
    {
      userId: inviter.id,
      amount: reward,
      source: "referral",
      expiresAt: clock.now() + 365 * DAY_MS,
      note: `referral · ${order.orderNo}`,
    },
    clock,
  );
  yield* run(tx.update(referralRewards).set({ grantId: grant.id }).where(eq(referralRewards.inviteeId, order.userId)));
  return `${reward} credits to ${inviter.id}`;
}
