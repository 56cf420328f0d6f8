/**
 * Rate limits shared by every process (and, on PostgreSQL, every node) through
 * the database: GCRA with one row per bucket (`rate_limits`: bucket → tat in
 * µs; the math and its exactness bounds are in decide.ts). One atomic statement
 * takes k tokens at once, whatever the limit or the window:
 *
 *   INSERT … ON CONFLICT (bucket) DO UPDATE SET tat = … WHERE <k fit> RETURNING tat
 *
 * A row back means admitted (and tat moved by k·T); no row means refused
 * (nothing written), and only then a second read fetches tat for Retry-After.
 * The decision is taken and applied inside the one statement, under the row's
 * write lock, so two processes can never both take the last slot. No per-hit
 * rows, nothing to sweep: a row whose tat is past is the same as no row.
 *
 * Two ways to call it:
 * - `take`: one token, one statement per call — exact; for the low limits (key
 *   creation, account mails, feedback) where a statement per event is nothing.
 * - `leases(db).take`: the request path (the guard's key and session limits,
 *   the demo). Each process takes quota in leases of k tokens and admits up to
 *   k requests from memory (no statement), remembers the last tat it saw so a
 *   refused bucket is refused locally until a token can fit (no statement),
 *   and gives a lease's unused tokens back when no one else wrote the row since
 *   (compare-and-set, folded into its next lease statement). See `LeaseLimiter`.
 */
import type { Db } from "#db/client";
import { AppError } from "~/lib/errors";
import { admitted, available, type Decision, denied, intervalUs, type Policy, US_PER_MS } from "./decide";

/**
 * The statement, portable: SQLite ≥ 3.35 and PostgreSQL run the same text.
 * $1 bucket, $2 now (µs), $3 what the lease adds (k·T µs), $4 the tat this
 * process's last lease wrote and $5 its unused part (µs): when the row still
 * holds exactly $4 (no one wrote since), the unused part is taken off first —
 * as if that lease had been smaller (decide.ts); $4 = −1 and $5 = 0 when there
 * is nothing to give back. $6 the window W (µs). PostgreSQL numbers `$n`;
 * SQLite reads them as names bound in the order they first appear, so they
 * first appear in the text in the order of their numbers.
 */
const now = "CAST($2 AS BIGINT)";
const held = `(CASE WHEN rate_limits.tat = CAST($4 AS BIGINT) THEN rate_limits.tat - CAST($5 AS BIGINT) ELSE rate_limits.tat END)`;
const start = `(CASE WHEN ${held} > ${now} THEN ${held} ELSE ${now} END)`;
const LEASE_SQL =
  `INSERT INTO rate_limits (bucket, tat) VALUES ($1, ${now} + CAST($3 AS BIGINT)) ` +
  `ON CONFLICT (bucket) DO UPDATE SET tat = ${start} + CAST($3 AS BIGINT) ` +
  `WHERE ${start} + CAST($3 AS BIGINT) - ${now} <= CAST($6 AS BIGINT) ` +
  `RETURNING tat`;

const READ = "SELECT tat FROM rate_limits WHERE bucket = ?";

type TatRow = { tat: number | string };

/** Takes `addUs` (k·T) from `bucket` at `nowUs`, giving back `backUs` iff the row still holds `mineUs`: the new tat, or null when refused. */
async function lease(
  db: Db,
  bucket: string,
  nowUs: number,
  addUs: number,
  windowUs: number,
  mineUs = -1,
  backUs = 0,
): Promise<number | null> {
  const row = await db.raw<TatRow>(LEASE_SQL).one(bucket, nowUs, addUs, mineUs, backUs, windowUs);
  return row ? Number(row.tat) : null;
}

async function readTat(db: Db, bucket: string): Promise<number> {
  return Number((await db.raw<TatRow>(READ).one(bucket))?.tat ?? 0);
}

/** One request against `bucket` at `nowMs`: admitted (and counted) or refused. One statement (two when refused). */
export async function take(
  db: Db,
  bucket: string,
  policy: Pick<Policy, "limit" | "windowMs">,
  nowMs: number,
): Promise<Decision> {
  const tat = await lease(db, bucket, Math.floor(nowMs * US_PER_MS), intervalUs(policy), policy.windowMs * US_PER_MS);
  if (tat !== null) return admitted(policy, nowMs, tat);
  return denied(policy, nowMs, await readTat(db, bucket));
}

/** RATE_LIMITED (HTTP 429 `Too Many Requests`) with the decision's Retry-After. */
export function rateLimitedError(d: Pick<Decision, "retryAfterMs">): AppError {
  return Object.assign(new AppError("RATE_LIMITED"), {
    headers: { "Retry-After": String(Math.ceil((d.retryAfterMs ?? 1000) / 1000)) },
  });
}

/** One slot of an allowance (feedback, resends, key creation, …), or RATE_LIMITED with Retry-After. */
export async function takeOrRefuse(
  db: Db,
  bucket: string,
  policy: Pick<Policy, "limit" | "windowMs">,
  nowMs: number,
): Promise<Decision> {
  const d = await take(db, bucket, policy, nowMs);
  if (!d.allowed) throw rateLimitedError(d);
  return d;
}

export interface LeaseOptions {
  /** How long a lease's tokens may be used after it was taken (ms, on the `nowMs` passed in). */
  leaseMs?: number;
  /** The largest lease (tokens). */
  maxTokens?: number;
  /** A lease takes at most this fraction of the tokens that fit (1/4): near the limit leases are single tokens. */
  shareOfFree?: number;
  /** Buckets remembered per process before idle ones are forgotten. */
  maxBuckets?: number;
}

/** Chosen by measurement (docs/performance.md, "The rate limiter"). */
export const LEASE_DEFAULTS: Required<LeaseOptions> = {
  leaseMs: 250,
  maxTokens: 16,
  shareOfFree: 0.25,
  maxBuckets: 50_000,
};

interface BucketState {
  /** The row's tat as this process last saw it (µs): a lower bound of the row's, less any give-back of ours still pending. */
  tat: number;
  /** Tokens left in the current lease. */
  left: number;
  /** When the current (or last) lease was taken (ms), and the T and W it was counted at (µs). */
  at: number;
  t: number;
  w: number;
  /** The last lease was used up: its successor doubles when needed within the lease lifetime, else halves. */
  usedUp: boolean;
  /** Size of the next lease (tokens). */
  k: number;
  /** Unused tokens of an ended lease (µs), given back with the next lease iff the row still holds `tat`. */
  back: number;
  /** The statement under way for this bucket, if any: concurrent requests wait for it instead of taking leases of their own. */
  busy: Promise<unknown> | null;
}

/**
 * The per-process leased limiter for one database (decide.ts has the bounds).
 *
 * Per bucket this process keeps: the current lease (tokens left, when taken),
 * the size of the next lease, and the last tat it saw. A request:
 *  1. is admitted from the lease when tokens are left and the lease is younger
 *     than `leaseMs` (no statement);
 *  2. else: an ended lease's unused tokens become a give-back; the next size k
 *     doubles (to `maxTokens`) when the used-up lease was needed again within
 *     `leaseMs`, halves otherwise; k is capped at `shareOfFree` of the tokens
 *     that fit by what this process knows;
 *  3. if not one token fits by the last tat seen (tat never falls but for
 *     give-backs, which a process only makes on its own lease), it is refused
 *     locally with the Retry-After of that tat (no statement);
 *  4. else one statement takes the lease (with the give-back); refused at k > 1,
 *     the tat is read and, if one token fits, k = 1 is tried once more.
 */
export class LeaseLimiter {
  readonly options: Required<LeaseOptions>;
  private readonly buckets = new Map<string, BucketState>();
  /** Statements run (leases and reads): for tests and the bench. */
  statements = 0;

  constructor(
    private readonly db: Db,
    options: LeaseOptions = {},
  ) {
    this.options = { ...LEASE_DEFAULTS, ...options };
  }

  async take(bucket: string, policy: Pick<Policy, "limit" | "windowMs">, nowMs: number): Promise<Decision> {
    let s = this.buckets.get(bucket);
    if (!s) {
      if (this.buckets.size >= this.options.maxBuckets) this.forget(Math.floor(nowMs * US_PER_MS));
      s = { tat: 0, left: 0, at: 0, t: 0, w: 0, usedUp: false, k: 1, back: 0, busy: null };
      this.buckets.set(bucket, s);
    }
    while (s.busy) await s.busy;
    const t = intervalUs(policy);
    const w = policy.windowMs * US_PER_MS;
    const samePolicy = s.t === t && s.w === w;
    const { leaseMs, maxTokens, shareOfFree } = this.options;
    const fresh = nowMs >= s.at && nowMs < s.at + leaseMs;
    if (s.left > 0 && samePolicy && fresh) {
      s.left--;
      s.usedUp = s.left === 0;
      return admitted(policy, nowMs, s.tat - s.left * t);
    }
    if (s.left > 0) {
      // Ended unused (expired, or the policy changed): the rest goes back with the next lease if the row still holds our tat.
      s.back = s.left * s.t;
      s.left = 0;
      s.k = samePolicy ? Math.max(1, s.k >> 1) : 1;
    } else if (s.usedUp) {
      s.k = samePolicy && fresh ? Math.min(maxTokens, s.k * 2) : Math.max(1, s.k >> 1);
      s.usedUp = false;
    }
    const n = Math.floor(nowMs * US_PER_MS);
    const free = available(t, w, n, s.tat - s.back);
    if (free < 1) return denied(policy, nowMs, s.tat - s.back);
    const k = Math.min(s.k, Math.max(1, Math.floor(free * shareOfFree)));
    const run = this.lease(s, bucket, policy, nowMs, n, k, t, w);
    s.busy = run;
    try {
      return await run;
    } finally {
      s.busy = null;
    }
  }

  private async lease(
    s: BucketState,
    bucket: string,
    policy: Pick<Policy, "limit" | "windowMs">,
    nowMs: number,
    n: number,
    k: number,
    t: number,
    w: number,
  ): Promise<Decision> {
    for (;;) {
      this.statements++;
      const tat = await lease(this.db, bucket, n, k * t, w, s.back > 0 ? s.tat : -1, s.back);
      if (tat !== null) {
        Object.assign(s, { tat, left: k - 1, at: nowMs, t, w, usedUp: k === 1, back: 0 });
        return admitted(policy, nowMs, tat - (k - 1) * t);
      }
      this.statements++;
      const seen = await readTat(this.db, bucket);
      if (seen !== s.tat) s.back = 0; // someone else wrote the row: our unused tokens can no longer go back
      s.tat = seen;
      s.k = 1;
      if (k > 1 && available(t, w, n, seen - s.back) >= 1) {
        k = 1;
        continue;
      }
      return denied(policy, nowMs, seen - s.back);
    }
  }

  /** Forgets buckets that hold nothing (tat past, no lease under way): they mean the same as no state. Then, if still full, the oldest. */
  private forget(nowUs: number): void {
    for (const [bucket, s] of this.buckets) if (s.tat <= nowUs && !s.busy) this.buckets.delete(bucket);
    // Forgetting a lease wastes its tokens (never more admitted), forgetting a tat only costs a statement.
    for (const [bucket, s] of this.buckets) {
      if (this.buckets.size < this.options.maxBuckets / 2) break;
      if (!s.busy) this.buckets.delete(bucket);
    }
  }
}

const perDb = new WeakMap<Db, LeaseLimiter>();

/** This process's leased limiter for `db` (one per database connection object). */
export function leases(db: Db): LeaseLimiter {
  let l = perDb.get(db);
  if (!l) perDb.set(db, (l = new LeaseLimiter(db)));
  return l;
}
