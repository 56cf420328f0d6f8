/** What the operator is told about: alert conditions and when each was last mailed to the admins. */
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One row per alert condition (`provider-errors:openai`, `queue-stuck`, `webhook-disabled:<endpoint>`,
 * `stripe-signature`). The watcher of every process evaluates the conditions; the guarded update of `last_sent_at`
 * decides which process mails, so several nodes send one mail per condition per hour between them.
 */
export const opsAlerts = sqliteTable("ops_alerts", {
  key: text("key").primaryKey(),
  kind: text("kind").notNull(),
  message: text("message").notNull(),
  /** firing | ok */
  state: text("state").notNull().default("ok"),
  /** Events counted in the current window (Stripe signature failures); other kinds leave it 0. */
  count: integer("count").notNull().default(0),
  windowStart: integer("window_start"),
  firstAt: integer("first_at").notNull(),
  lastSeenAt: integer("last_seen_at").notNull(),
  lastSentAt: integer("last_sent_at"),
  sentCount: integer("sent_count").notNull().default(0),
});
