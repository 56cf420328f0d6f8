/** Affiliate rewards (docs/design.md §9): paid on an invitee's first payment, taken back in share on its refunds. */
import { and, count, eq, lt } from "drizzle-orm";
import { one, run, type Steps } from "#db/client";
import { orderPayments, referralRewards, user } from "#db/schema";
import { type Clock, DAY_MS } from "~/lib/clock";
import { clawBackGrant, grantCredits, type Tx } from "../credits/ledger.server";
import type { OrderRow } from "../subscriptions/subscriptions.server";
import type { BillingConfig } from "./facts";

/**
 * A refund takes back the same share of the referral reward the refunded
 * payment paid for (the order's first payment): floor(reward × refunded /
 * amount) minus the share earlier refunds of this payment took. The caller's
 * guarded `refunded_amount` update makes each step run once; the debit key
 * (one per refund amount) makes the claw-back itself idempotent.
 */
export function* clawBackReferral(
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
export function* rewardReferral(
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
