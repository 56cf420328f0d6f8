/**
 * Rolling-window rate limits stored in SQLite (`rate_limit_hits`), so every
 * process on the database shares one count. Per request: one index-only read
 * (count, oldest) → `decide` → when allowed, one guarded insert that re-checks
 * the count under SQLite's write lock (a single statement), so two processes
 * can never both take the last slot. Denied requests write nothing.
 */
import type { Statement } from "bun:sqlite";
import type { Db } from "#db/client";
import type { Clock } from "~/lib/clock";
import { decide, type Decision, type Policy, type WindowState } from "./decide";

/**
 * The three statements, prepared once per database handle. Plain SQL (portable
 * to libSQL, DESIGN §8) run as prepared statements: the hot path pays no
 * query building (measured: ~120 µs per call through drizzle's builder here).
 */
interface Statements {
  window: Statement<{ n: number; oldest: number | null }, [string, number]>;
  pivot: Statement<{ at: number }, [string, number, number]>;
  record: Statement<unknown, [string, number, string, number, number]>;
  sweep: Statement<unknown, [number]>;
}
const statements = new WeakMap<Db, Statements>();

function prepared(db: Db): Statements {
  let s = statements.get(db);
  if (!s) {
    const c = db.$client;
    s = {
      window: c.prepare("SELECT count(*) AS n, min(at) AS oldest FROM rate_limit_hits WHERE bucket = ? AND at > ?"),
      pivot: c.prepare("SELECT at FROM rate_limit_hits WHERE bucket = ? AND at > ? ORDER BY at LIMIT 1 OFFSET ?"),
      // The guard: the count is re-read under the write lock this one statement holds.
      record: c.prepare(
        "INSERT INTO rate_limit_hits (bucket, at) SELECT ?, ? WHERE (SELECT count(*) FROM rate_limit_hits WHERE bucket = ? AND at > ?) < ?",
      ),
      // Ids grow with time: walk the oldest rows by id and stop at the first recent one.
      sweep: c.prepare(
        `DELETE FROM rate_limit_hits WHERE id < coalesce(
           (SELECT id FROM rate_limit_hits WHERE at > ?1 ORDER BY id LIMIT 1),
           (SELECT coalesce(max(id), 0) + 1 FROM rate_limit_hits))`,
      ),
    };
    statements.set(db, s);
  }
  return s;
}

export function readWindow(db: Db, bucket: string, policy: Pick<Policy, "limit" | "windowMs">, now: number): WindowState {
  const st = prepared(db);
  const since = now - policy.windowMs;
  const row = st.window.get(bucket, since);
  const n = Number(row?.n ?? 0);
  let pivot: number | null = null;
  if (n >= policy.limit) pivot = st.pivot.get(bucket, since, n - policy.limit)?.at ?? null;
  return { count: n, oldest: row?.oldest ?? null, pivot };
}

/** Records a hit only while the window still has room; false when another request took the slot. */
export function tryRecordHit(db: Db, bucket: string, policy: Pick<Policy, "limit" | "windowMs">, now: number): boolean {
  return prepared(db).record.run(bucket, now, bucket, now - policy.windowMs, policy.limit).changes === 1;
}

/** Deletes hits older than `cutoff`; the cost is the rows deleted, not the table. */
export function sweepHits(db: Db, cutoff: number): number {
  return prepared(db).sweep.run(cutoff).changes;
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
