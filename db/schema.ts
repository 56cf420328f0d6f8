/**
 * The whole Atelier schema. better-auth owns `user`, `session`, `account`,
 * `verification` (column names follow its defaults); everything else is ours.
 * Timestamps are stored as integer milliseconds since the epoch (UTC).
 * Keep SQL portable to libSQL (docs/design.md §8): no bun-only features here.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const ms = (name: string) => integer(name, { mode: "timestamp_ms" });
const createdAt = () => ms("created_at").notNull().default(sql`(unixepoch('subsec') * 1000)`);

// ---------------------------------------------------------------- better-auth
export const user = sqliteTable("user", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: integer("email_verified", { mode: "boolean" }).notNull().default(false),
  image: text("image"),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
  inviteCode: text("invite_code").notNull().unique(),
  invitedBy: text("invited_by"),
  isAffiliate: integer("is_affiliate", { mode: "boolean" }).notNull().default(false),
  /** `admin` only when an operator promoted the account (`atelier admin promote`); better-auth never writes it. */
  role: text("role").notNull().default("user"),
});

export const session = sqliteTable(
  "session",
  {
    id: text("id").primaryKey(),
    expiresAt: ms("expires_at").notNull(),
    token: text("token").notNull().unique(),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
  },
  (t) => [index("session_user_idx").on(t.userId)],
);

export const account = sqliteTable(
  "account",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: ms("access_token_expires_at"),
    refreshTokenExpiresAt: ms("refresh_token_expires_at"),
    scope: text("scope"),
    password: text("password"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("account_user_idx").on(t.userId)],
);

export const verification = sqliteTable(
  "verification",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: ms("expires_at").notNull(),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("verification_identifier_idx").on(t.identifier)],
);

/** better-auth's per-IP limiter (`rateLimit.storage: "database"`): one row per IP and auth path. */
export const rateLimit = sqliteTable("rate_limit", {
  id: text("id").primaryKey(),
  key: text("key").notNull().unique(),
  count: integer("count").notNull(),
  lastRequest: integer("last_request").notNull(),
});

/** Per-account sign-in throttle, keyed by a hash of the normalised e-mail (known or not). */
export const signInAttempts = sqliteTable("sign_in_attempts", {
  emailHash: text("email_hash").primaryKey(),
  /** Attempts since `window_start` not followed by a success. */
  attempts: integer("attempts").notNull(),
  windowStart: integer("window_start").notNull(),
  lockedUntil: integer("locked_until"),
});

// ---------------------------------------------------------------- credits
export const creditGrants = sqliteTable(
  "credit_grants",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    amount: integer("amount").notNull(),
    remaining: integer("remaining").notNull(),
    /** signup | checkin | admin | order | referral */
    source: text("source").notNull(),
    note: text("note"),
    expiresAt: ms("expires_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("credit_grants_user_idx").on(t.userId, t.expiresAt),
    // The sign-up bonus is granted once per user, whenever it is granted (sign-up or e-mail verification).
    uniqueIndex("credit_grants_signup_once").on(t.userId).where(sql`source = 'signup'`),
  ],
);

export const creditDebits = sqliteTable(
  "credit_debits",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    /** One debit per generation, ever: this unique index is the exactly-once guard. */
    genId: text("gen_id").notNull().unique(),
    /** What the task cost. */
    amount: integer("amount").notNull(),
    /** What could actually be drawn from unexpired grants (≤ amount). */
    charged: integer("charged").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("credit_debits_user_idx").on(t.userId, t.createdAt)],
);

export const creditAllocations = sqliteTable(
  "credit_allocations",
  {
    debitId: text("debit_id")
      .notNull()
      .references(() => creditDebits.id, { onDelete: "cascade" }),
    grantId: text("grant_id")
      .notNull()
      .references(() => creditGrants.id, { onDelete: "cascade" }),
    amount: integer("amount").notNull(),
  },
  (t) => [primaryKey({ columns: [t.debitId, t.grantId] })],
);

export const checkins = sqliteTable(
  "checkins",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    /** UTC day, YYYY-MM-DD. */
    day: text("day").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day] })],
);

// ---------------------------------------------------------------- subscriptions
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
    uniqueIndex("orders_external_idx").on(t.externalId),
  ],
);

// ---------------------------------------------------------------- billing (docs/design.md §9)
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
  (t) => [index("checkouts_user_idx").on(t.userId, t.createdAt)],
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

// ---------------------------------------------------------------- feedback
export const feedback = sqliteTable("feedback", {
  id: text("id").primaryKey(),
  userId: text("user_id")
    .notNull()
    .references(() => user.id, { onDelete: "cascade" }),
  content: text("content").notNull(),
  rating: integer("rating").notNull(),
  createdAt: createdAt(),
});

// ---------------------------------------------------------------- generations
export const generations = sqliteTable(
  "generations",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    aiType: text("ai_type").notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    prompt: text("prompt").notNull(),
    /** JSON object. */
    options: text("options").notNull().default("{}"),
    /** pending | processing | completed | failed */
    status: text("status").notNull(),
    /** JSON array of absolute URLs, when completed. */
    resultUrls: text("result_urls"),
    errorMessage: text("error_message"),
    /** The price at creation; reserved while unfinished, debited on completion. */
    creditsCost: integer("credits_cost").notNull(),
    /** live | simulated: how the provider ran this task. */
    mode: text("mode").notNull().default("simulated"),
    upstreamTaskId: text("upstream_task_id"),
    leaseOwner: text("lease_owner"),
    leaseUntil: integer("lease_until"),
    nextPollAt: integer("next_poll_at"),
    pollCount: integer("poll_count").notNull().default(0),
    attempts: integer("attempts").notNull().default(0),
    deadlineAt: integer("deadline_at").notNull(),
    createdAt: ms("created_at").notNull(),
    startedAt: ms("started_at"),
    completedAt: ms("completed_at"),
    /** Set when the owner removes it from their studio gallery (the task, its cost and the ledger stay). */
    hiddenAt: ms("hidden_at"),
  },
  (t) => [
    index("generations_user_created_idx").on(t.userId, t.createdAt, t.id),
    // The job claim: due polls by next_poll_at, expired leases, and new tasks oldest first (created_at, id), none sorted.
    index("generations_claim_idx").on(t.status, t.nextPollAt, t.createdAt, t.id),
    // No (user_id, status) index: the credits a user's unfinished tasks hold are user_generation_stats.held.
  ],
);

/**
 * Per-user figures about generation tasks, one row per user who has ever had a task (general: other per-user
 * generation bookkeeping belongs here too). `tasks` = the user's rows in `generations`, kept by database
 * triggers on every insert, delete and change of owner (the migration that made this table creates them and
 * backfills the figures; docs/data-layer.md), so the history's total needs no count(*) per request, and
 * `tasks_version` tells a process whether a history page it built is still the page (a page of finished tasks).
 * No row means 0.
 */
export const userGenerationStats = sqliteTable("user_generation_stats", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  tasks: integer("tasks").notNull().default(0),
  /** Goes up by one on every insert, delete or move of the user's tasks: the same value means the same list of tasks. */
  tasksVersion: integer("tasks_version").notNull().default(0),
  /**
   * Σ credits_cost of the user's unfinished (pending or processing) tasks: what the reservation check subtracts
   * from the balance. Kept by the same triggers on every insert, delete, status change, change of cost or owner
   * (the migration that added it backfills it), so the check reads one row instead of an index of the user's tasks.
   */
  held: integer("held").notNull().default(0),
  /** The number of the user's unfinished tasks (the studio's "still running?" and the header's live list). */
  unfinished: integer("unfinished").notNull().default(0),
});

// ---------------------------------------------------------------- API keys
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The first characters of the key, shown in lists. */
    start: text("start").notNull(),
    /** SHA-256 of the whole key, hex. The key itself is never stored. */
    keyHash: text("key_hash").notNull().unique(),
    /** active | revoked */
    status: text("status").notNull().default("active"),
    createdAt: ms("created_at").notNull(),
    lastUsedAt: ms("last_used_at"),
    revokedAt: ms("revoked_at"),
  },
  (t) => [index("api_keys_user_idx").on(t.userId, t.status)],
);

/**
 * Rate limits shared by every process on the database: one row per bucket
 * (user, demo client…), GCRA's theoretical arrival time in µs
 * (app/domain/rate-limits). A row whose tat is past means the same as no row.
 */
export const rateLimits = sqliteTable("rate_limits", {
  bucket: text("bucket").primaryKey(),
  tat: integer("tat").notNull(),
});

// ---------------------------------------------------------------- events for API clients (docs/design.md §10)
/** Idempotency-Key of generate: one row per (user, key); the primary key decides concurrent duplicates. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    /** SHA-256 of the canonical request body: another body with the same key is a 409. */
    requestHash: text("request_hash").notNull(),
    genId: text("gen_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);

/** A user's webhook destination (Standard Webhooks: `whsec_` secret). */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    /** JSON array of event types. */
    events: text("events").notNull(),
    secret: text("secret").notNull(),
    /** After a rotation the old secret signs too, until previous_secret_until. */
    previousSecret: text("previous_secret"),
    previousSecretUntil: integer("previous_secret_until"),
    /** active | disabled */
    status: text("status").notNull().default("active"),
    disabledReason: text("disabled_reason"),
    /** First failure of the current unbroken run of failures (cleared by any success). */
    failingSince: integer("failing_since"),
    /**
     * The API key that created the endpoint (chose its URL) or rotated its secret (knows it); null when a session
     * did both. Revoking that key disables the endpoint.
     */
    apiKeyId: text("api_key_id"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("webhook_endpoints_user_idx").on(t.userId, t.status)],
);

/** The outbox: one row per event, written in the transaction of the task's final transition. */
export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    /** The `webhook-id` header: stable across retries and resends. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    genId: text("gen_id").notNull(),
    /** The exact JSON body sent: {type, timestamp, data}. */
    payload: text("payload").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("webhook_events_gen_idx").on(t.genId)],
);

/** One event to one endpoint: claimed by the job runner with a lease, retried with backoff. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    eventId: text("event_id")
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    /** pending | delivered | failed */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    leaseOwner: text("lease_owner"),
    leaseUntil: integer("lease_until"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    lastDurationMs: integer("last_duration_ms"),
    lastAttemptAt: integer("last_attempt_at"),
    deliveredAt: integer("delivered_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt),
  ],
);

/** Every delivery attempt (the delivery log users see). */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attemptedAt: integer("attempted_at").notNull(),
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attemptedAt)],
);
