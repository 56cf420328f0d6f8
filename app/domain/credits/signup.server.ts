/**
 * The sign-up bonus (docs/design.md §3): SIGNUP_CREDITS expiring after a year, granted
 * once per user — at sign-up, or when the e-mail is verified if mail is
 * configured. Checked inside a write transaction; the partial unique index
 * `credit_grants_signup_once` is the database's guard. An address whose account was deleted gets no second bonus
 * (docs/decisions/121-deleted-accounts.md).
 */
import { and, eq } from "drizzle-orm";
import { type Db, lockRow, one } from "#db/client";
import { creditGrants, deletedEmails, user } from "#db/schema";
import { emailKey } from "~/domain/auth/sign-in-throttle.server";
import { type Clock, DAY_MS } from "~/lib/clock";
import { grantCredits } from "./ledger.server";

export const SIGNUP_BONUS_DAYS = 365;

/** True when this call granted the bonus; false when it was granted before (or is 0). */
export async function grantSignupBonus(db: Db, userId: string, amount: number, clock: Clock): Promise<boolean> {
  if (amount <= 0) return false;
  return db.tx(function* (tx) {
    yield* lockRow("user", userId);
    const had = yield* one(
      tx
        .select({ id: creditGrants.id })
        .from(creditGrants)
        .where(and(eq(creditGrants.userId, userId), eq(creditGrants.source, "signup"))),
    );
    if (had) return false;
    const owner = yield* one(tx.select({ email: user.email }).from(user).where(eq(user.id, userId)));
    if (!owner) return false;
    const deletedBefore = yield* one(
      tx
        .select({ h: deletedEmails.emailHash })
        .from(deletedEmails)
        .where(eq(deletedEmails.emailHash, emailKey(owner.email))),
    );
    if (deletedBefore) return false;
    const now = clock.now();
    yield* grantCredits(
      tx,
      { userId, amount, source: "signup", expiresAt: now + SIGNUP_BONUS_DAYS * DAY_MS },
      { now: () => now },
    );
    return true;
  });
}
