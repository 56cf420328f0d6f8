/**
 * Retention (docs/decisions/057-retention-disputes-expired-checkouts.md): rows that have done their job are
 * deleted by a periodic sweep, so tables that grow with traffic stay bounded.
 * Each rule deletes only rows whose absence means the same as their presence:
 *
 * - idempotency keys older than 24 h (docs/design.md §10: a key is remembered 24 h;
 *   an older one is already treated as unknown when it is reused), and request joins as old (a retry joins for
 *   10 minutes, an Idempotency-Key for 24 h: docs/decisions/158-retry-joins-request.md);
 * - webhook events older than WEBHOOK_RETENTION_DAYS with no delivery still
 *   pending (their deliveries and attempts go with them: the delivery log
 *   keeps that many days);
 * - expired better-auth sessions and verification tokens (refused already);
 * - rate-limit rows whose theoretical arrival time has passed (GCRA: such a
 *   row admits exactly what a missing row admits), with a minute of margin
 *   for clocks that differ between nodes; better-auth's per-IP rows idle for
 *   an hour; sign-in throttle rows idle for a day and not locked;
 * - open checkouts older than 24 h become `expired` (Stripe expires a
 *   Checkout Session after 24 h at most; a simulated one then cannot be paid).
 *
 * Ledger, orders, payments, billing events, tasks and feedback are never
 * swept: they are the record.
 */
import { and, eq, inArray, isNull, lt, notInArray, or, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import {
  checkouts,
  idempotencyKeys,
  rateLimit,
  rateLimits,
  requestJoins,
  session,
  signInAttempts,
  verification,
  webhookDeliveries,
  webhookEvents,
} from "#db/schema";
import { type Clock, DAY_MS } from "~/lib/clock";

const HOUR_MS = 3_600_000;
/** How long an Idempotency-Key is remembered (docs/design.md §10). */
export const IDEMPOTENCY_TTL_MS = DAY_MS;
/** Open checkouts older than this are expired. */
export const CHECKOUT_TTL_MS = DAY_MS;

export interface RetentionPolicy {
  /** Days a webhook event (and its delivery log) is kept once nothing is pending. */
  webhookRetentionDays: number;
}

/** Rows deleted (or checkouts expired) per rule. */
export type SweepResult = Record<
  | "idempotencyKeys"
  | "requestJoins"
  | "webhookEvents"
  | "sessions"
  | "verifications"
  | "rateLimits"
  | "authRateLimits"
  | "signInAttempts"
  | "checkoutsExpired",
  number
>;

/** Rows one statement of a sweep deletes at most: each batch is a short write, so serving never waits long. */
export const SWEEP_BATCH = 500;

/**
 * Runs a batch statement (it changes at most SWEEP_BATCH rows, picked through an index on the rule's column) until
 * it changes fewer, letting other work run between batches; returns the rows changed.
 */
async function inBatches(batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const changed = await batch();
    total += changed;
    if (changed < SWEEP_BATCH) return total;
    await Bun.sleep(0);
  }
}

/**
 * One sweep: every rule once, in batches of SWEEP_BATCH rows picked by primary key from an index on the rule's
 * time column (no full scan of a grown table, no long write), each batch its own statement. rate_limits has no such
 * index on purpose: every API request writes its row, and the table holds one row per active bucket.
 */
export async function sweepRetention(db: Db, clock: Clock, policy: RetentionPolicy): Promise<SweepResult> {
  const now = clock.now();
  const pending = db
    .select({ id: webhookDeliveries.eventId })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.status, "pending"));
  const oldKeys = db
    .select({ userId: idempotencyKeys.userId, key: idempotencyKeys.key })
    .from(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_TTL_MS))
    .limit(SWEEP_BATCH);
  return {
    idempotencyKeys: await inBatches(() =>
      db.run(db.delete(idempotencyKeys).where(sql`(${idempotencyKeys.userId}, ${idempotencyKeys.key}) IN ${oldKeys}`)),
    ),
    requestJoins: await inBatches(() =>
      db.run(
        db.delete(requestJoins).where(
          sql`(${requestJoins.userId}, ${requestJoins.scope}, ${requestJoins.key}) IN ${db
            .select({ userId: requestJoins.userId, scope: requestJoins.scope, key: requestJoins.key })
            .from(requestJoins)
            .where(lt(requestJoins.createdAt, now - IDEMPOTENCY_TTL_MS))
            .limit(SWEEP_BATCH)}`,
        ),
      ),
    ),
    webhookEvents: await inBatches(() =>
      db.run(
        db.delete(webhookEvents).where(
          inArray(
            webhookEvents.id,
            db
              .select({ id: webhookEvents.id })
              .from(webhookEvents)
              .where(
                and(
                  lt(webhookEvents.createdAt, now - policy.webhookRetentionDays * DAY_MS),
                  notInArray(webhookEvents.id, pending),
                ),
              )
              .limit(SWEEP_BATCH),
          ),
        ),
      ),
    ),
    sessions: await inBatches(() =>
      db.run(
        db.delete(session).where(
          inArray(
            session.id,
            db
              .select({ id: session.id })
              .from(session)
              .where(lt(session.expiresAt, new Date(now)))
              .limit(SWEEP_BATCH),
          ),
        ),
      ),
    ),
    verifications: await inBatches(() =>
      db.run(
        db.delete(verification).where(
          inArray(
            verification.id,
            db
              .select({ id: verification.id })
              .from(verification)
              .where(lt(verification.expiresAt, new Date(now)))
              .limit(SWEEP_BATCH),
          ),
        ),
      ),
    ),
    // tat is in microseconds (app/domain/rate-limits/decide.ts).
    rateLimits: await inBatches(() =>
      db.run(
        db.delete(rateLimits).where(
          inArray(
            rateLimits.bucket,
            db
              .select({ bucket: rateLimits.bucket })
              .from(rateLimits)
              .where(lt(rateLimits.tat, (now - 60_000) * 1000))
              .limit(SWEEP_BATCH),
          ),
        ),
      ),
    ),
    authRateLimits: await inBatches(() =>
      db.run(
        db.delete(rateLimit).where(
          inArray(
            rateLimit.id,
            db
              .select({ id: rateLimit.id })
              .from(rateLimit)
              .where(lt(rateLimit.lastRequest, now - HOUR_MS))
              .limit(SWEEP_BATCH),
          ),
        ),
      ),
    ),
    signInAttempts: await inBatches(() =>
      db.run(
        db.delete(signInAttempts).where(
          inArray(
            signInAttempts.emailHash,
            db
              .select({ id: signInAttempts.emailHash })
              .from(signInAttempts)
              .where(
                and(
                  lt(signInAttempts.windowStart, now - DAY_MS),
                  or(isNull(signInAttempts.lockedUntil), lt(signInAttempts.lockedUntil, now)),
                ),
              )
              .limit(SWEEP_BATCH),
          ),
        ),
      ),
    ),
    checkoutsExpired: await inBatches(() => expireCheckouts(db, { before: now - CHECKOUT_TTL_MS })),
  };
}

/**
 * Open checkouts started before `before` (at most SWEEP_BATCH of them, oldest first through checkouts_open_idx) or
 * the given ids become `expired`; returns how many.
 */
export function expireCheckouts(db: Db, which: { before: number } | { ids: string[] }): Promise<number> {
  const match =
    "ids" in which
      ? inArray(checkouts.id, which.ids)
      : inArray(
          checkouts.id,
          db
            .select({ id: checkouts.id })
            .from(checkouts)
            .where(and(sql`${checkouts.status} = 'open'`, lt(checkouts.createdAt, new Date(which.before))))
            .orderBy(checkouts.createdAt)
            .limit(SWEEP_BATCH),
        );
  return db.run(
    db
      .update(checkouts)
      .set({ status: "expired" })
      .where(and(eq(checkouts.status, "open"), match)),
  );
}
