/**
 * Tasks that end unpaid (docs/decisions/094-unpaid-task-limit.md). A task holds
 * its credits only while unfinished, and a canceled or failed one costs nothing,
 * so without a bound generate + cancel (or a prompt that fails) would be a free
 * write — tens of tasks a second from one connection with 3 credits, each row
 * kept for good and each an event for the user's webhooks. Every task that ends without a charge
 * by the user's doing — a cancel, or a failure the request caused (the
 * provider refused it; never an outage, a timeout or a crash: runStep)
 * takes one slot of a per-user bucket in the shared limiter; while the bucket
 * is empty, creating a task answers RATE_LIMITED (429, Retry-After). Ending a
 * task is never refused for it, and paid tasks never count.
 */
import { eq, sql } from "drizzle-orm";
import { type Db, one, type Steps, type Tx } from "#db/client";
import { prepared } from "#db/prepared";
import { rateLimits } from "#db/schema";
import { available, denied, intervalUs, US_PER_MS } from "~/domain/rate-limits/decide";
import { rateLimitedError, take } from "~/domain/rate-limits/limiter.server";
import type { Clock } from "~/lib/clock";
import { log } from "~/lib/log.server";

export const UNPAID_TASKS_PER_HOUR = 100;
const POLICY = { name: "unpaid-tasks", limit: UNPAID_TASKS_PER_HOUR, windowMs: 3_600_000 };
const bucketOf = (userId: string) => `unpaid:${userId}`;

/** After a task of this user ended unpaid (its transition committed): one slot; past the bound nothing is recorded. */
export async function countUnpaidTask(db: Db, userId: string, clock: Clock): Promise<void> {
  try {
    await take(db, bucketOf(userId), POLICY, clock.now());
  } catch (error) {
    // The task's own transition is done; a missed count only loosens the bound.
    log.warn("counting an unpaid task failed", { user_id: userId, error });
  }
}

/** Inside the create transaction: RATE_LIMITED while the user's bucket of unpaid tasks has no slot left. */
export function* assertUnpaidAllowance(tx: Tx, userId: string, nowMs: number): Steps<void> {
  const q = prepared(tx, "unpaid.tat", (d) =>
    d
      .select({ tat: rateLimits.tat })
      .from(rateLimits)
      .where(eq(rateLimits.bucket, sql.placeholder("bucket"))),
  );
  const row = yield* one(q, { bucket: bucketOf(userId) });
  if (!row) return;
  const tat = Number(row.tat);
  if (available(intervalUs(POLICY), POLICY.windowMs * US_PER_MS, Math.floor(nowMs * US_PER_MS), tat) >= 1) return;
  throw rateLimitedError(denied(POLICY, nowMs, tat));
}
