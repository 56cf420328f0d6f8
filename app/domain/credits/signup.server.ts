/**
 * The sign-up bonus (docs/design.md §3): SIGNUP_CREDITS expiring after a year, granted
 * once per user — at sign-up, or when the e-mail is verified if mail is
 * configured. Checked inside a write transaction; the partial unique index
 * `credit_grants_signup_once` is the database's guard. An address whose account was deleted gets no second bonus
 * (docs/decisions/121-deleted-accounts.md), and neither does a provider account that already came with one, whatever
 * e-mail it brings now (docs/decisions/129-signup-bonus-per-provider-account.md).
 */
import { createHash } from "node:crypto";
import { and, eq, inArray, ne } from "drizzle-orm";
import { type Db, lockRow, many, one, run } from "#db/client";
import { account, creditGrants, deletedEmails, signupBonusAccounts, user } from "#db/schema";
import { emailKey } from "~/domain/auth/sign-in-throttle.server";
import { type Clock, DAY_MS } from "~/lib/clock";
import { grantCredits } from "./ledger.server";

export const SIGNUP_BONUS_DAYS = 365;

/** The key a provider account is remembered by: its provider and the provider's own id for the person. */
export const providerAccountHash = (providerId: string, accountId: string) =>
  createHash("sha256").update(`${providerId}:${accountId}`).digest("hex");

/**
 * True when this call granted the bonus; false when it was granted before (or is 0), or the address or one of the
 * user's provider accounts already had one. The user's provider accounts are remembered with the bonus, also when it
 * was granted before they were linked: call it again when a provider account is linked.
 */
export async function grantSignupBonus(db: Db, userId: string, amount: number, clock: Clock): Promise<boolean> {
  if (amount <= 0) return false;
  return db.tx(function* (tx) {
    yield* lockRow("user", userId);
    const now = clock.now();
    const providerAccounts = yield* many(
      tx
        .select({ providerId: account.providerId, accountId: account.accountId })
        .from(account)
        .where(and(eq(account.userId, userId), ne(account.providerId, "credential"))),
    );
    const hashes = providerAccounts.map((a) => providerAccountHash(a.providerId, a.accountId));
    const remember = function* () {
      for (const accountHash of hashes)
        yield* run(
          tx
            .insert(signupBonusAccounts)
            .values({ accountHash, claimedAt: now })
            .onConflictDoNothing({ target: signupBonusAccounts.accountHash }),
        );
    };
    const had = yield* one(
      tx
        .select({ id: creditGrants.id })
        .from(creditGrants)
        .where(and(eq(creditGrants.userId, userId), eq(creditGrants.source, "signup"))),
    );
    if (had) {
      yield* remember();
      return false;
    }
    const owner = yield* one(tx.select({ email: user.email }).from(user).where(eq(user.id, userId)));
    if (!owner) return false;
    const deletedBefore = yield* one(
      tx
        .select({ h: deletedEmails.emailHash })
        .from(deletedEmails)
        .where(eq(deletedEmails.emailHash, emailKey(owner.email))),
    );
    if (deletedBefore) return false;
    if (hashes.length) {
      const claimed = yield* one(
        tx
          .select({ h: signupBonusAccounts.accountHash })
          .from(signupBonusAccounts)
          .where(inArray(signupBonusAccounts.accountHash, hashes)),
      );
      if (claimed) return false;
    }
    yield* grantCredits(
      tx,
      { userId, amount, source: "signup", expiresAt: now + SIGNUP_BONUS_DAYS * DAY_MS },
      { now: () => now },
    );
    yield* remember();
    return true;
  });
}
