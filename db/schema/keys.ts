/** API keys and the rate-limit buckets shared by every process on the database. */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { user } from "./auth";
import { ms } from "./columns";

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
    /** JSON array of scopes (app/domain/api-keys/scopes.ts); null = every scope. */
    scopes: text("scopes"),
    /** Spending cap: credits per credit_period (day | month, UTC) the key's tasks may hold or be charged; null = none. */
    creditLimit: integer("credit_limit"),
    creditPeriod: text("credit_period"),
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
