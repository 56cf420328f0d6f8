/** Orders (subscriptions and packs) and what billing keeps around them (docs/design.md §9). */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { user } from "./auth";
import { createdAt, ms } from "./columns";

export const orders = sqliteTable(
  "orders",
  {
    orderNo: text("order_no").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    productId: text("product_id").notNull(),
    productName: text("product_name").notNull(),
    /** month | year | one-time */
    interval: text("interval").notNull(),
    /** Smallest currency unit (cents). */
    amount: integer("amount").notNull(),
    /** paid | canceled | expired | refunded */
    status: text("status").notNull(),
    subId: text("sub_id").notNull(),
    periodEnd: ms("period_end"),
    createdAt: createdAt(),
    /** subscription | pack (a pack is a one-time order; never a subscription of spec 2.3). */
    kind: text("kind").notNull().default("subscription"),
    /** admin | stripe | simulated */
    provider: text("provider").notNull().default("admin"),
    currency: text("currency").notNull().default("usd"),
    /** Credits each payment of this order grants, as sold at checkout (null: older orders → the product's). */
    credits: integer("credits"),
    /** The provider's id of what was bought: the Checkout Session (pack) or the subscription. Unique: one order each. */
    externalId: text("external_id"),
    /** The provider's customer (for the customer portal). */
    customerId: text("customer_id"),
    /** `created` (seconds) of the newest provider event that set `status`: older events never overwrite newer ones. */
    statusAt: integer("status_at"),
  },
  (t) => [
    index("orders_user_idx").on(t.userId, t.status, t.periodEnd),
    // The premium check: the user's paid subscriptions only, not every pack they bought.
    index("orders_active_sub_idx").on(t.userId, t.periodEnd).where(sql`kind = 'subscription' AND status = 'paid'`),
    uniqueIndex("orders_external_idx").on(t.externalId),
  ],
);

/** What the pricing page sells. Never deleted (orders name them); `active` false hides one. */
export const products = sqliteTable("products", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** pack | subscription */
  kind: text("kind").notNull(),
  /** Credits of a pack, or granted each period of a subscription. */
  credits: integer("credits").notNull(),
  /** month | year for subscriptions; null for packs. */
  interval: text("interval"),
  /** Smallest currency unit (cents). */
  amount: integer("amount").notNull(),
  currency: text("currency").notNull().default("usd"),
  active: integer("active", { mode: "boolean" }).notNull().default(true),
  sortOrder: integer("sort_order").notNull().default(0),
  createdAt: createdAt(),
  updatedAt: ms("updated_at"),
});

/**
 * Money received for an order: a pack's payment, or one period of a
 * subscription. `ref` (Checkout Session or invoice id) is unique, so a
 * payment is granted once however often its events arrive.
 */
export const orderPayments = sqliteTable(
  "order_payments",
  {
    id: text("id").primaryKey(),
    ref: text("ref").notNull().unique(),
    orderNo: text("order_no")
      .notNull()
      .references(() => orders.orderNo, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    credits: integer("credits").notNull(),
    /** The grant this payment made (source `order`). */
    grantId: text("grant_id"),
    /** The provider's PaymentIntent, to match refunds. */
    paymentIntent: text("payment_intent"),
    /** Refunded so far (cents) and credits clawed back so far. */
    refundedAmount: integer("refunded_amount").notNull().default(0),
    clawedBack: integer("clawed_back").notNull().default(0),
    periodEnd: ms("period_end"),
    createdAt: createdAt(),
  },
  (t) => [
    index("order_payments_order_idx").on(t.orderNo),
    index("order_payments_user_idx").on(t.userId, t.createdAt),
    index("order_payments_pi_idx").on(t.paymentIntent),
  ],
);

/** Every provider event id, recorded once in the transaction of its effect (the replay and duplicate guard). */
export const billingEvents = sqliteTable(
  "billing_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    /** applied: … | ignored: <why> | waiting: no payment for <ref> (a refund or dispute before its payment) */
    outcome: text("outcome").notNull(),
    /** The signed payload, kept so an ignored event can be looked at and replayed (and a waiting one applied later). */
    payload: text("payload").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("billing_events_outcome_idx").on(t.outcome)],
);

/** A checkout started by a user: Stripe's session or a simulated one (with its form token). */
export const checkouts = sqliteTable(
  "checkouts",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    productId: text("product_id").notNull(),
    /** stripe | simulated */
    provider: text("provider").notNull(),
    /** SHA-256 (hex) of the simulated page's per-checkout form token. */
    tokenHash: text("token_hash"),
    /** open | completed | canceled */
    status: text("status").notNull().default("open"),
    /** What was sold, fixed when the checkout started (fulfilment grants these, not the product row at payment time). */
    credits: integer("credits"),
    amount: integer("amount"),
    currency: text("currency"),
    createdAt: createdAt(),
  },
  (t) => [
    index("checkouts_user_idx").on(t.userId, t.createdAt),
    // The retention sweep's open checkouts, oldest first.
    index("checkouts_open_idx").on(t.createdAt).where(sql`status = 'open'`),
  ],
);

/** Affiliate rewards (docs/design.md §9): at most one per invitee, ever (the primary key). */
export const referralRewards = sqliteTable(
  "referral_rewards",
  {
    inviteeId: text("invitee_id")
      .primaryKey()
      .references(() => user.id, { onDelete: "cascade" }),
    inviterId: text("inviter_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    orderNo: text("order_no").notNull(),
    credits: integer("credits").notNull(),
    grantId: text("grant_id"),
    createdAt: createdAt(),
  },
  (t) => [index("referral_rewards_inviter_idx").on(t.inviterId)],
);

/**
 * Redemption codes (docs/payments.md "Redemption codes"): credits handed out by an admin. Only the SHA-256 of a code
 * is kept, as for API keys; `uses` moves only through a guarded `UPDATE … WHERE uses < max_uses`.
 */
export const redemptionCodes = sqliteTable(
  "redemption_codes",
  {
    id: text("id").primaryKey(),
    codeHash: text("code_hash").notNull(),
    /** The first characters of the code, for the admin's list. */
    prefix: text("prefix").notNull(),
    credits: integer("credits").notNull(),
    maxUses: integer("max_uses").notNull(),
    perUser: integer("per_user").notNull().default(1),
    uses: integer("uses").notNull().default(0),
    expiresAt: ms("expires_at"),
    /** Days the granted credits stay valid; null: they do not expire. */
    validityDays: integer("validity_days"),
    disabledAt: ms("disabled_at"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("redemption_codes_hash").on(t.codeHash)],
);

/** One redemption: keyed by the e-mail's hash too, so a deleted and re-created account cannot redeem again. */
export const redemptionUses = sqliteTable(
  "redemption_uses",
  {
    id: text("id").primaryKey(),
    codeId: text("code_id")
      .notNull()
      .references(() => redemptionCodes.id, { onDelete: "cascade" }),
    userId: text("user_id"),
    emailHash: text("email_hash").notNull(),
    grantId: text("grant_id"),
    createdAt: createdAt(),
  },
  (t) => [index("redemption_uses_code_email").on(t.codeId, t.emailHash)],
);
