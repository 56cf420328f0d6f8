/** Money received: the order of a provider object found or made, the payment recorded once, its credits granted. */
import { randomUUID } from "node:crypto";
import { and, eq, isNull, lt, lte, or } from "drizzle-orm";
import { one, run, type Steps } from "#db/client";
import { checkouts, orderPayments, orders, user } from "#db/schema";
import { type Clock, DAY_MS } from "~/lib/clock";
import { grantCredits, type Tx } from "../credits/ledger.server";
import { defaultPeriodEnd, type Interval, newOrderNo, type OrderRow } from "../subscriptions/subscriptions.server";
import type { BillingConfig, PaymentFact, Provider } from "./facts";
import { productStep } from "./products.server";
import { rewardReferral } from "./referrals.server";

export const orderByRef = (tx: Tx, ref: string): Steps<OrderRow | undefined> =>
  one(tx.select().from(orders).where(eq(orders.externalId, ref)));
function* userExists(tx: Tx, id: string): Steps<boolean> {
  return (yield* one(tx.select({ id: user.id }).from(user).where(eq(user.id, id)))) !== undefined;
}

/** Finds or creates the order of a provider object (race-safe through the unique external id). */
export function* ensureOrder(
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

export function* applyPayment(tx: Tx, f: PaymentFact, clock: Clock, config: BillingConfig): Steps<string> {
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
