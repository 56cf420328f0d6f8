/** A subscription's status changed at the provider (updated, canceled): the order follows, newest event first. */
import { and, eq, isNull, lte, or } from "drizzle-orm";
import { run, type Steps } from "#db/client";
import { orders } from "#db/schema";
import type { Clock } from "~/lib/clock";
import type { Tx } from "../credits/ledger.server";
import type { StatusFact } from "./facts";
import { ensureOrder, orderByRef } from "./payments.server";

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

export function* applyStatus(tx: Tx, f: StatusFact, clock: Clock): Steps<string> {
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
