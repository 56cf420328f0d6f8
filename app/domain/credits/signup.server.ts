/**
 * The sign-up bonus (docs/design.md §3): SIGNUP_CREDITS expiring after a year, granted
 * once per user — at sign-up, or when the e-mail is verified if mail is
 * configured. Checked inside a write transaction; the partial unique index
 * `credit_grants_signup_once` is the database's guard.
 */
import { and, eq } from "drizzle-orm";
import { type Db, lockRow, one } from "#db/client";
import { creditGrants } from "#db/schema";
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
    const now = clock.now();
    yield* grantCredits(
      tx,
      { userId, amount, source: "signup", expiresAt: now + SIGNUP_BONUS_DAYS * DAY_MS },
      { now: () => now },
    );
    return true;
  });
}
