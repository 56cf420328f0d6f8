/** Reading orders: a user's history and referrals (account page), all orders and revenue (admin). */
import { and, count, desc, eq, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { orderPayments, orders, referralRewards, user } from "#db/schema";
import { plainName } from "~/domain/auth/profile";
import { offsetOf } from "~/domain/paging";
import { iso } from "~/lib/clock";

export interface PaymentEntry {
  ref: string;
  order_no: string;
  product_name: string;
  kind: string;
  provider: string;
  amount: number;
  currency: string;
  credits: number;
  refunded_amount: number;
  clawed_back: number;
  created_at: string;
}

const paymentColumns = {
  ref: orderPayments.ref,
  orderNo: orderPayments.orderNo,
  productName: orders.productName,
  kind: orders.kind,
  provider: orders.provider,
  amount: orderPayments.amount,
  currency: orderPayments.currency,
  credits: orderPayments.credits,
  refunded: orderPayments.refundedAmount,
  clawedBack: orderPayments.clawedBack,
  createdAt: orderPayments.createdAt,
  email: user.email,
};

type PaymentRow = { [K in keyof typeof paymentColumns]: unknown } & { createdAt: Date; email: string | null };

const toEntry = (r: PaymentRow): PaymentEntry => ({
  ref: r.ref as string,
  order_no: r.orderNo as string,
  product_name: r.productName as string,
  kind: r.kind as string,
  provider: r.provider as string,
  amount: r.amount as number,
  currency: r.currency as string,
  credits: r.credits as number,
  refunded_amount: r.refunded as number,
  clawed_back: r.clawedBack as number,
  created_at: iso(r.createdAt)!,
});

/** The user's payments (packs and subscription periods), newest first. */
export async function listUserPayments(db: Db, userId: string, limit = 50): Promise<PaymentEntry[]> {
  const rows = await db.many(
    db
      .select(paymentColumns)
      .from(orderPayments)
      .innerJoin(orders, eq(orders.orderNo, orderPayments.orderNo))
      .leftJoin(user, eq(user.id, orderPayments.userId))
      .where(eq(orderPayments.userId, userId))
      .orderBy(desc(orderPayments.createdAt), desc(orderPayments.id))
      .limit(limit),
  );
  return rows.map(toEntry);
}

/** Every payment with its buyer, newest first (admin), one page at a time. */
export async function listAllPayments(
  db: Db,
  { page, pageSize }: { page: number; pageSize: number },
): Promise<{ rows: (PaymentEntry & { email: string })[]; total: number }> {
  const rows = await db.many(
    db
      .select(paymentColumns)
      .from(orderPayments)
      .innerJoin(orders, eq(orders.orderNo, orderPayments.orderNo))
      .leftJoin(user, eq(user.id, orderPayments.userId))
      .orderBy(desc(orderPayments.createdAt), desc(orderPayments.id))
      .limit(pageSize)
      .offset(offsetOf(page, pageSize)),
  );
  const total = Number((await db.one(db.select({ n: count() }).from(orderPayments)))?.n ?? 0);
  return { rows: rows.map((r) => ({ ...toEntry(r), email: r.email ?? "(deleted user)" })), total };
}

export interface RevenueMonth {
  month: string;
  currency: string;
  payments: number;
  gross: number;
  refunded: number;
  net: number;
}

/** Revenue by UTC month and currency (admin), newest month first. */
export async function revenueByMonth(db: Db, months = 12): Promise<RevenueMonth[]> {
  const rows = await db.many(
    db
      .select({
        createdAt: orderPayments.createdAt,
        currency: orderPayments.currency,
        amount: orderPayments.amount,
        refunded: orderPayments.refundedAmount,
      })
      .from(orderPayments)
      .orderBy(desc(orderPayments.createdAt)),
  );
  const byKey = new Map<string, RevenueMonth>();
  for (const r of rows) {
    const month = r.createdAt.toISOString().slice(0, 7);
    const key = `${month} ${r.currency}`;
    const m = byKey.get(key) ?? { month, currency: r.currency, payments: 0, gross: 0, refunded: 0, net: 0 };
    m.payments += 1;
    m.gross += r.amount;
    m.refunded += r.refunded;
    m.net = m.gross - m.refunded;
    byKey.set(key, m);
  }
  return [...byKey.values()].slice(0, months * 4);
}

export interface ReferralEntry {
  email: string;
  nickname: string;
  joined_at: string;
  reward_credits: number | null;
  rewarded_at: string | null;
}

/** Users this user invited, with the reward each earned (account page). */
export async function listReferrals(db: Db, inviterId: string, limit = 100): Promise<ReferralEntry[]> {
  const rows = await db.many(
    db
      .select({
        email: user.email,
        name: user.name,
        createdAt: user.createdAt,
        credits: referralRewards.credits,
        rewardedAt: referralRewards.createdAt,
      })
      .from(user)
      .leftJoin(referralRewards, and(eq(referralRewards.inviteeId, user.id), eq(referralRewards.inviterId, inviterId)))
      .where(eq(user.invitedBy, inviterId))
      .orderBy(desc(user.createdAt))
      .limit(limit),
  );
  return rows.map((r) => ({
    email: maskEmail(r.email),
    nickname: r.name,
    joined_at: iso(r.createdAt)!,
    reward_credits: r.credits ?? null,
    rewarded_at: iso(r.rewardedAt),
  }));
}

/** An inviter sees who joined, not their whole address: `ad***@example.com`. */
export const maskEmail = (email: string) => {
  const [name, domain] = email.split("@");
  return `${(name ?? "").slice(0, 2)}***@${domain ?? ""}`;
};

/** Total referral credits earned. */
export async function referralTotal(db: Db, inviterId: string): Promise<number> {
  const r = await db.one(
    db
      .select({ n: sql<number>`coalesce(sum(${referralRewards.credits}), 0)` })
      .from(referralRewards)
      .where(eq(referralRewards.inviterId, inviterId)),
  );
  return Number(r?.n ?? 0);
}

/** Who owns an invite code (the sign-up page acknowledges the link); null for an unknown code. */
export async function inviterOf(db: Db, code: string | null | undefined): Promise<{ nickname: string } | null> {
  if (!code || !/^[A-Za-z0-9]{4,32}$/.test(code)) return null;
  const row = await db.one(db.select({ name: user.name }).from(user).where(eq(user.inviteCode, code.toUpperCase())));
  return row ? { nickname: plainName(row.name) } : null;
}

/** Everything the account page shows about buying: orders, referrals, whether a portal exists. */
export async function accountBilling(db: Db, userId: string) {
  const portal = await db.one(
    db
      .select({ c: orders.customerId })
      .from(orders)
      .where(and(eq(orders.userId, userId), eq(orders.provider, "stripe"), eq(orders.kind, "subscription")))
      .limit(1),
  );
  return {
    payments: await listUserPayments(db, userId),
    referrals: await listReferrals(db, userId),
    referralCredits: await referralTotal(db, userId),
    hasPortal: portal !== undefined,
  };
}
