/**
 * Subscriptions (spec 2.3, docs/design.md §3): stored orders. A user with a paid order
 * whose period has not ended (or that has no end) is premium.
 */

import { randomBytes } from "node:crypto";
import { and, desc, eq, gt, isNull, or, sql } from "drizzle-orm";
import { type Db, run, type Steps, type Tx } from "#db/client";
import { prepared } from "#db/prepared";
import { orders } from "#db/schema";
import { type Clock, iso } from "~/lib/clock";

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
export function getActiveSubscription(db: Db, userId: string, clock: Clock): Promise<OrderRow | undefined> {
  // Read on every API-key request (the tier decides the rate limit): prepared once per connection.
  const q = prepared(db, "subscriptions.active", (d) =>
    d
      .select()
      .from(orders)
      .where(
        and(
          eq(orders.userId, sql.placeholder("userId")),
          // Literals, as in orders_active_sub_idx, the index of paid subscriptions (not every pack bought).
          sql`${orders.kind} = 'subscription' AND ${orders.status} = 'paid'`,
          or(isNull(orders.periodEnd), gt(orders.periodEnd, sql.placeholder("now"))),
        ),
      )
      .orderBy(desc(orders.createdAt))
      .limit(1),
  );
  return db.one(q, { userId, now: clock.now() });
}

/**
 * getActiveSubscription's condition in plain SQL (served by orders_active_sub_idx: its literals are the index's), for the user whose id is the SQL expression `userIdSql`, with
 * one `?` parameter: now (ms). An API-key request reads it inside its user-row statement (users.server.ts
 * findKeyOwner), so the tier costs no statement of its own (docs/performance.md).
 */
export const premiumExistsSql = (userIdSql: string) =>
  `EXISTS (SELECT 1 FROM orders WHERE user_id = ${userIdSql} AND kind = 'subscription' AND status = 'paid' AND (period_end IS NULL OR period_end > ?))`;

// Drizzle's prepared select costs ~25 µs here against ~3 µs for this plain statement (docs/performance.md).
const PREMIUM_SQL = `SELECT 1 AS one WHERE ${premiumExistsSql("?")}`;

/** Whether the user has a current paid subscription (getActiveSubscription's condition). */
export async function isPremium(db: Db, userId: string, clock: Clock): Promise<boolean> {
  return (await db.raw(PREMIUM_SQL).one(userId, clock.now())) !== undefined;
}

/** Billing intervals Atelier records (spec 2.3 shows only the monthly one). */
export const INTERVALS = ["month", "year", "one-time"] as const;
export type Interval = (typeof INTERVALS)[number];

export interface CreateSubscriptionInput {
  userId: string;
  productId: string;
  productName: string;
  interval: Interval;
  /** Smallest currency unit (cents). */
  amount: number;
  subId?: string;
  /** End of the paid period (ms); default: one interval after now, none for one-time. */
  periodEnd?: number | null;
}

/** Adds calendar months in UTC (Jan 31 + 1 month → the last day of February). */
export function addMonthsUtc(ms: number, months: number): number {
  const d = new Date(ms);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d.getTime();
}

export function defaultPeriodEnd(interval: Interval, now: number): number | null {
  if (interval === "month") return addMonthsUtc(now, 1);
  if (interval === "year") return addMonthsUtc(now, 12);
  return null;
}

export const newOrderNo = (now: number) =>
  `ORD-${new Date(now).toISOString().slice(0, 10).replaceAll("-", "")}-${randomBytes(6).toString("hex").toUpperCase()}`;

/** Records a paid order (docs/design.md §3: orders are recorded by an admin). */
export function* createSubscription(db: Tx, input: CreateSubscriptionInput, clock: Clock): Steps<OrderRow> {
  const now = clock.now();
  const periodEnd = input.periodEnd === undefined ? defaultPeriodEnd(input.interval, now) : input.periodEnd;
  const row: OrderRow = {
    orderNo: newOrderNo(now),
    userId: input.userId,
    productId: input.productId,
    productName: input.productName,
    interval: input.interval,
    amount: input.amount,
    status: "paid",
    subId: input.subId ?? `sub_${randomBytes(12).toString("hex")}`,
    periodEnd: periodEnd === null ? null : new Date(periodEnd),
    createdAt: new Date(now),
    kind: "subscription",
    provider: "admin",
    currency: "usd",
    credits: null,
    externalId: null,
    customerId: null,
    statusAt: null,
  };
  yield* run(db.insert(orders).values(row));
  return row;
}
