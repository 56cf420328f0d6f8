/**
 * Accounts and sign-in. better-auth owns `user`, `session`, `account`, `verification`, `rate_limit`, and through
 * its plugins `two_factor` and `passkey` (column names follow its defaults); `sign_in_attempts` is ours.
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
  /** better-auth's two-factor plugin: an authenticator app's code is asked at every password sign-in. */
  twoFactorEnabled: integer("two_factor_enabled", { mode: "boolean" }).notNull().default(false),
  /** The account's language for e-mails (docs/languages.md): set at sign-up, changed with the language menu. */
  language: text("language"),
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
/** better-auth's two-factor plugin: the TOTP secret and the one-time backup codes (both encrypted by better-auth). */
export const twoFactor = sqliteTable(
  "two_factor",
  {
    id: text("id").primaryKey(),
    secret: text("secret").notNull(),
    backupCodes: text("backup_codes").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    /** False between "enable" and the first correct code. */
    verified: integer("verified", { mode: "boolean" }).notNull().default(true),
    failedVerificationCount: integer("failed_verification_count").notNull().default(0),
    lockedUntil: ms("locked_until"),
  },
  (t) => [index("two_factor_user_idx").on(t.userId), index("two_factor_secret_idx").on(t.secret)],
);

/** better-auth's passkey plugin: one WebAuthn credential per row. */
export const passkey = sqliteTable(
  "passkey",
  {
    id: text("id").primaryKey(),
    name: text("name"),
    publicKey: text("public_key").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    credentialID: text("credential_id").notNull(),
    counter: integer("counter").notNull(),
    deviceType: text("device_type").notNull(),
    backedUp: integer("backed_up", { mode: "boolean" }).notNull(),
    transports: text("transports"),
    createdAt: ms("created_at"),
    aaguid: text("aaguid"),
  },
  (t) => [index("passkey_user_idx").on(t.userId), index("passkey_credential_idx").on(t.credentialID)],
);
