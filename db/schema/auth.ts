/**
 * Accounts and sign-in. better-auth owns `user`, `session`, `account`, `verification` and `rate_limit`
 * (column names follow its defaults); `sign_in_attempts` is ours.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { ms } from "./columns";

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
  /** Set while an admin has suspended the account: its sessions and keys are refused (docs/operating.md). */
  suspendedAt: ms("suspended_at"),
  suspendedReason: text("suspended_reason"),
  /** Set when the person deleted the account: the row stays, anonymised, for the money records (docs/privacy.md). */
  deletedAt: ms("deleted_at"),
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
  // expires_at: the retention sweep deletes expired sessions in batches, oldest first.
  (t) => [index("session_user_idx").on(t.userId), index("session_expires_idx").on(t.expiresAt)],
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
  (t) => [index("verification_identifier_idx").on(t.identifier), index("verification_expires_idx").on(t.expiresAt)],
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

/**
 * Addresses of deleted accounts, as keyed hashes (docs/decisions/117-deleted-accounts.md): a new account on the same
 * address gets no second sign-up bonus. Nothing else of the address is kept.
 */
export const deletedEmails = sqliteTable("deleted_emails", {
  emailHash: text("email_hash").primaryKey(),
  deletedAt: integer("deleted_at").notNull(),
});
