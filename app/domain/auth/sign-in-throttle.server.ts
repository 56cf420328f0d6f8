/**
 * Per-account sign-in throttle (docs/design.md §5): after 10 failed sign-ins within 15
 * minutes an address answers 429 until a 15-minute cooldown has passed. Always
 * on, stored in the database so every process shares it.
 *
 * Each attempt is counted *before* the password is checked (one atomic upsert),
 * and a success clears the count: so concurrent guesses cannot slip past the
 * limit while their hashes are being compared. The key is a hash of the
 * normalised address whether or not an account has it, so an unknown address
 * behaves exactly like a known one.
 */

import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { signInAttempts } from "#db/schema";

export interface ThrottlePolicy {
  maxFailures: number;
  windowMs: number;
  cooldownMs: number;
}

export const SIGN_IN_POLICY: ThrottlePolicy = { maxFailures: 10, windowMs: 15 * 60_000, cooldownMs: 15 * 60_000 };

export type Verdict = { allowed: true } | { allowed: false; retryAfterMs: number };

export const emailKey = (email: string) => createHash("sha256").update(email.trim().toLowerCase()).digest("hex");

/** Counts this attempt and says whether it may go on to the password check. */
export async function beginSignIn(
  db: Db,
  email: string,
  now: number,
  policy: ThrottlePolicy = SIGN_IN_POLICY,
): Promise<Verdict> {
  const t = signInAttempts;
  const locked = sql`coalesce(${t.lockedUntil}, 0) > ${now}`;
  const fresh = sql`(${t.windowStart} <= ${now - policy.windowMs} and not (${locked}))`;
  const next = sql`(case when ${fresh} then 1 else ${t.attempts} + 1 end)`;
  const row = await db.one(
    db
      .insert(t)
      .values({ emailHash: emailKey(email), attempts: 1, windowStart: now, lockedUntil: null })
      .onConflictDoUpdate({
        target: t.emailHash,
        // Every right-hand side reads the row as it was before this statement (both engines).
        set: {
          attempts: next,
          windowStart: sql`case when ${fresh} then ${now} else ${t.windowStart} end`,
          lockedUntil: sql`case when ${locked} then ${t.lockedUntil} when ${next} > ${policy.maxFailures} then ${now + policy.cooldownMs} else null end`,
        },
      })
      .returning({ lockedUntil: t.lockedUntil }),
  );
  const until = Number(row?.lockedUntil ?? 0);
  return until > now ? { allowed: false, retryAfterMs: until - now } : { allowed: true };
}

/** The password was right (or the reset link proved the mailbox): forget the failures. */
export async function clearSignIn(db: Db, email: string): Promise<void> {
  await db.run(db.delete(signInAttempts).where(eq(signInAttempts.emailHash, emailKey(email))));
}
