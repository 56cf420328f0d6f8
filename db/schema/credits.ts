/** The credits ledger: grants, debits, which grants each debit drew from, daily check-ins (docs/data-layer.md). */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { user } from "./auth";
import { createdAt, ms } from "./columns";

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
    index("credit_grants_user_idx").on(t.userId, t.createdAt, t.id),
    // The grants with credit left: the balance, the reservation and the debit read these only, never the used-up ones.
    index("credit_grants_live_idx").on(t.userId, t.expiresAt).where(sql`remaining > 0`),
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

/**
 * Per-user figures about the ledger, one row per user who has ever had a grant. `granted` = Σ amount of the user's
 * grants (`total_credits`), kept by database triggers on every insert, delete and change of amount or owner of a
 * grant (the migration that made this table creates them and backfills it), so the balance reads one row instead
 * of every grant the user ever had. No row means 0.
 */
export const userCreditStats = sqliteTable("user_credit_stats", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  granted: integer("granted").notNull().default(0),
});

/**
 * Provider accounts (Google, GitHub, OpenID Connect) that came with a sign-up bonus, as hashes of
 * `<provider id>:<account id>` (app/domain/credits/signup.server.ts): the same provider account brings no second bonus,
 * whatever e-mail it comes back with, after its Atelier account was deleted or it was unlinked. No reference to the
 * user: the mark outlives the account, and names no person.
 */
export const signupBonusAccounts = sqliteTable("signup_bonus_accounts", {
  accountHash: text("account_hash").primaryKey(),
  claimedAt: integer("claimed_at").notNull(),
});
