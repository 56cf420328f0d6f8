/**
 * Rolling-window rate limits stored in SQLite (`rate_limit_hits`), so every
 * process on the database shares one count. Per request: one index-only read
 * (count, oldest) → `decide` → when allowed, one guarded insert that re-checks
 * the count under SQLite's write lock (a single statement), so two processes
 * can never both take the last slot. Denied requests write nothing.
 */
import { and, asc, count, eq, gt, min, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { rateLimitHits } from "#db/schema";
import { changes } from "~/domain/credits/ledger.server";
import type { Clock } from "~/lib/clock";
import { decide, type Decision, type Policy, type WindowState } from "./decide";

export function readWindow(db: Db, bucket: string, policy: Pick<Policy, "limit" | "windowMs">, now: number): WindowState {
  const inWindow = and(eq(rateLimitHits.bucket, bucket), gt(rateLimitHits.at, now - policy.windowMs));
  const row = db.select({ n: count(), oldest: min(rateLimitHits.at) }).from(rateLimitHits).where(inWindow).get();
  const n = Number(row?.n ?? 0);
  let pivot: number | null = null;
  if (n >= policy.limit) {
    const p = db
      .select({ at: rateLimitHits.at })
      .from(rateLimitHits)
      .where(inWindow)
      .orderBy(asc(rateLimitHits.at))
      .limit(1)
      .offset(n - policy.limit)
      .get();
    pivot = p?.at ?? null;
  }
  return { count: n, oldest: row?.oldest ?? null, pivot };
}

/** Records a hit only while the window still has room; false when another request took the slot. */
export function tryRecordHit(db: Db, bucket: string, policy: Pick<Policy, "limit" | "windowMs">, now: number): boolean {
  const res = db.run(
    sql`INSERT INTO rate_limit_hits (bucket, at) SELECT ${bucket}, ${now}
        WHERE (SELECT count(*) FROM rate_limit_hits WHERE bucket = ${bucket} AND at > ${now - policy.windowMs}) < ${policy.limit}`,
  );
  return changes(res) === 1;
}

/**
 * Deletes hits older than `cutoff`. Ids grow with time, so this walks the
 * oldest rows by id and stops at the first recent one: the cost is the rows
 * deleted, not the table.
 */
export function sweepHits(db: Db, cutoff: number): number {
  const res = db.run(
    sql`DELETE FROM rate_limit_hits WHERE id < coalesce(
          (SELECT id FROM rate_limit_hits WHERE at > ${cutoff} ORDER BY id LIMIT 1),
          (SELECT coalesce(max(id), 0) + 1 FROM rate_limit_hits))`,
  );
  return changes(res);
}

export interface Limiter {
  check(bucket: string, policy: Policy): Decision;
}

export interface LimiterOptions {
  /** The longest window in use: hits older than this (plus a second of slack) are swept. */
  maxWindowMs: number;
  /** How often this process sweeps (default 1 s; small sweeps keep p99 flat). */
  sweepEveryMs?: number;
}

export function createLimiter(db: Db, clock: Clock, opts: LimiterOptions): Limiter {
  let lastSweep = 0;
  const sweepEvery = opts.sweepEveryMs ?? 1000;
  return {
    check(bucket, policy) {
      const now = clock.now();
      if (now - lastSweep >= sweepEvery) {
        lastSweep = now;
        sweepHits(db, now - opts.maxWindowMs - 1000);
      }
      const d = decide(readWindow(db, bucket, policy, now), policy, now);
      if (!d.allowed) return d;
      if (tryRecordHit(db, bucket, policy, now)) return d;
      // Another process took the last slot between our read and write.
      return decide(readWindow(db, bucket, policy, now), policy, now);
    },
  };
}
