/**
 * Subscriptions (spec 2.3, DESIGN §3): stored orders. A user with a paid order
 * whose period has not ended (or that has no end) is premium.
 */
import { and, desc, eq, gt, isNull, or } from "drizzle-orm";
import type { Db } from "#db/client";
import { orders } from "#db/schema";
import { iso, type Clock } from "~/lib/clock";

export type OrderRow = typeof orders.$inferSelect;

export interface SubscriptionInfo {
  order_no: string;
  product_id: string;
  product_name: string;
  interval: string;
  amount: number;
  status: string;
  sub_id: string;
  created_at: string;
}

export function toSubscriptionInfo(o: OrderRow): SubscriptionInfo {
  return {
    order_no: o.orderNo,
    product_id: o.productId,
    product_name: o.productName,
    interval: o.interval,
    amount: o.amount,
    status: o.status,
    sub_id: o.subId,
    created_at: iso(o.createdAt)!,
  };
}

/** The user's current paid subscription (latest first), if any. */
export function getActiveSubscription(db: Pick<Db, "select">, userId: string, clock: Clock): OrderRow | undefined {
  return db
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.userId, userId),
        eq(orders.status, "paid"),
        or(isNull(orders.periodEnd), gt(orders.periodEnd, new Date(clock.now()))),
      ),
    )
    .orderBy(desc(orders.createdAt))
    .get();
}

export function isPremium(db: Pick<Db, "select">, userId: string, clock: Clock): boolean {
  return getActiveSubscription(db, userId, clock) !== undefined;
}
