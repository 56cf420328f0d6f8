/**
 * Account e-mails per recipient: verification links, reset
 * links and "you already have an account" notices are sent on request, so
 * without a bound anyone can make Atelier mail one address again and again
 * (request-password-reset for a known address, sign-in with the password of an
 * unverified account made with someone else's address, sign-up again with a
 * taken address). Each address gets at most ACCOUNT_MAILS_PER_HOUR of them,
 * whatever asks for them, counted in the shared limiter (GCRA, every process
 * and node), keyed by the hash of the normalised address. A held-back mail
 * changes no answer: the requests stay indistinguishable.
 */
import type { Db } from "#db/client";
import { take } from "~/domain/rate-limits/limiter.server";
import { emailKey } from "./sign-in-throttle.server";

export const ACCOUNT_MAILS_PER_HOUR = 5;
export const ACCOUNT_MAIL_POLICY = {
  name: "account-mail",
  limit: ACCOUNT_MAILS_PER_HOUR,
  windowMs: 3_600_000,
} as const;

export const accountMailBucket = (email: string) => `mail:${emailKey(email)}`;

/** Counts one account mail to `email` and says whether it may be sent. */
export async function mayMailAccount(db: Db, email: string, now: number): Promise<boolean> {
  return (await take(db, accountMailBucket(email), ACCOUNT_MAIL_POLICY, now)).allowed;
}
