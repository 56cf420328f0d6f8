/** Money returned (refunds and disputes): the same share of the payment's credits, and of its referral reward, taken back. */
import { and, eq } from "drizzle-orm";
import { one, run, type Steps } from "#db/client";
import { orderPayments, orders } from "#db/schema";
import type { Clock } from "~/lib/clock";
import { clawBackGrant, type Tx } from "../credits/ledger.server";
import type { DisputeFact, RefundFact } from "./facts";
import { clawBackReferral } from "./referrals.server";

/**
 * Stripe does not promise event order: a refund or dispute can arrive before
 * its payment's event (which Stripe may still be retrying). It is kept as
 * `waiting: no payment for <ref>` and applied when that payment is recorded
 * (applyWaitingEvents), instead of being lost while the payment grants in full.
 */
export const waitingFor = (ref: string) => `waiting: no payment for ${ref}`;

/** The payment a refund or dispute names: by its charge's reference, else by its payment intent. */
function* paymentOf(tx: Tx, f: { paymentRef?: string | null; paymentIntent?: string | null }) {
  if (f.paymentRef) {
    const byRef = yield* one(tx.select().from(orderPayments).where(eq(orderPayments.ref, f.paymentRef)));
    if (byRef) return byRef;
  }
  return f.paymentIntent
    ? yield* one(tx.select().from(orderPayments).where(eq(orderPayments.paymentIntent, f.paymentIntent)))
    : undefined;
}

export function* applyRefund(tx: Tx, f: RefundFact, clock: Clock): Steps<string> {
  const payment = yield* paymentOf(tx, f);
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
export function* applyDispute(tx: Tx, f: DisputeFact, clock: Clock): Steps<string> {
  const payment = yield* paymentOf(tx, f);
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
