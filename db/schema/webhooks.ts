/** Webhooks for API clients (docs/design.md §10): endpoints, the event outbox, deliveries and their attempts. */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { user } from "./auth";

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
  (t) => [index("webhook_events_gen_idx").on(t.genId), index("webhook_events_created_idx").on(t.createdAt)],
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
