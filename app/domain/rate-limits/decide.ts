/**
 * GCRA (the generic cell rate algorithm: a token bucket stored as one number),
 * pure: no I/O, no clock. A policy of `limit` requests per `windowMs` admits a
 * burst of `limit`, then one request every `windowMs / limit`.
 *
 * State per bucket: `tat`, the theoretical arrival time (µs). k tokens are
 * taken at `now` iff  max(tat, now) + k·T − now ≤ W  (T = W / limit), and then
 * tat := max(tat, now) + k·T (k = 1: one request; k > 1: a lease, below).
 * `tat − now` is the part of the window in use, so a tier change keeps the
 * fraction of the quota used, not the count.
 *
 * Exactness bound, one token per request (`take`): the requests admitted with
 * `now` in any interval [a, b] number at most  (W + b − a) / T  =
 * limit + (b − a) · limit / W, whatever the order in which concurrent
 * processes apply them: at most 2·limit in any window of W, and limit per W
 * over time. Proof: each take of k raises tat by k·T over max(tat, now); after
 * the first take in [a, b] tat ≥ a + k₁·T, after takes totalling m tokens
 * tat ≥ a + m·T, and the last needs tat − now ≤ W with now ≤ b, so
 * m·T ≤ W + b − a.
 *
 * Leases (`LeaseLimiter`, limiter.server.ts): a process takes k tokens with one
 * statement at `g` and admits up to k requests from memory while now < g + L
 * (the lease lifetime, on the `now` passed in). Unused tokens are never simply
 * returned: with the clamp max(tat, now), a return after another process's take
 * can erase tokens that process used (tat below now, then clamped up: the
 * other's take counted against a bucket that had drained). They are given back
 * only by compare-and-set — when the row still holds exactly the tat this
 * process's lease wrote, i.e. no one wrote the row since — which leaves the row
 * as if that lease had been smaller at g (every later write starts from it;
 * reads and refused takes in between only saw more in use). Otherwise they
 * stay counted as used and drain with time.
 *
 * Bound with leases: the requests admitted with `now` in [a, b] used tokens
 * leased in (a − L, b], so by the bound above they number at most
 * (W + b − a + L) / T  =  limit + (b − a + L) · limit / W.
 * (L = 250 ms: a burst of `limit`, then the rate; in a minute at most
 * 2·limit + limit/240.)
 *
 * Refusals beyond exact GCRA (under-admission). One process: none — its own
 * leased tokens serve its requests, its unused tokens go back (no one else
 * writes the row), and it refuses only when one token does not fit after
 * every token it admitted. Several processes: a request may be refused while
 * other processes hold unused tokens — at most min(k_max, free/4) − 1 each
 * (a lease takes at most a quarter of what fits), for at most L — and tokens
 * a process could not give back (another process wrote the row meanwhile)
 * stay counted until they drain (that many times T).
 */
export interface Policy {
  /** Shown in `RateLimit-Policy` / `RateLimit` (e.g. "standard"). */
  name: string;
  limit: number;
  windowMs: number;
}

export interface Decision {
  allowed: boolean;
  limit: number;
  /** Requests left after this one (whole requests available right now). */
  remaining: number;
  /** When requests are left: ms until the whole quota is back; when none: ms until the next one fits. */
  resetMs: number;
  /** Only when denied: milliseconds until a request would be allowed. */
  retryAfterMs: number | null;
  /** The instant decided at (ms). */
  now: number;
}

/** All state is kept in integer microseconds: exact arithmetic on both engines. */
export const US_PER_MS = 1000;

/**
 * The emission interval T in µs: W / limit, rounded down to a whole µs (≥ 1) so
 * a full burst of `limit` always fits; exact for the default limits (600,000 µs
 * for 100 per minute), at most 1 µs per request lenient otherwise.
 */
export const intervalUs = (p: Pick<Policy, "limit" | "windowMs">): number =>
  Math.max(1, Math.floor((p.windowMs * US_PER_MS) / p.limit));

/** Whole tokens that fit at `nowUs` with the bucket at `tatUs` (T = `tUs`, W = `windowUs`). */
export const available = (tUs: number, windowUs: number, nowUs: number, tatUs: number): number =>
  Math.max(0, Math.floor((windowUs - Math.max(0, tatUs - nowUs)) / tUs));

/**
 * The decision for a request admitted at `nowMs` with the bucket at `tatUs`
 * (with a lease: the row's tat less the tokens this process still holds, so
 * `remaining` counts them).
 */
export function admitted(policy: Pick<Policy, "limit" | "windowMs">, nowMs: number, tatUs: number): Decision {
  const now = Math.floor(nowMs * US_PER_MS);
  const t = intervalUs(policy);
  const used = Math.max(0, tatUs - now);
  const remaining = Math.min(policy.limit - 1, Math.max(0, Math.floor((policy.windowMs * US_PER_MS - used) / t)));
  // With none left, the next request fits once one interval has drained.
  const resetUs = remaining > 0 ? used : used + t - policy.windowMs * US_PER_MS;
  return {
    allowed: true,
    limit: policy.limit,
    remaining,
    resetMs: Math.max(1, resetUs / US_PER_MS),
    retryAfterMs: null,
    now: nowMs,
  };
}

/** The decision for a request refused at `nowMs` (the bucket's tat unchanged). */
export function denied(policy: Pick<Policy, "limit" | "windowMs">, nowMs: number, tatUs: number): Decision {
  const now = Math.floor(nowMs * US_PER_MS);
  const wait = Math.max(1, (Math.max(tatUs, now) + intervalUs(policy) - now - policy.windowMs * US_PER_MS) / US_PER_MS);
  return { allowed: false, limit: policy.limit, remaining: 0, resetMs: wait, retryAfterMs: wait, now: nowMs };
}

/** IETF draft (httpapi-ratelimit-headers) and the common X-RateLimit-* headers. */
export function rateLimitHeaders(policy: Policy, d: Decision): Record<string, string> {
  const resetSec = Math.max(1, Math.ceil(d.resetMs / 1000));
  const headers: Record<string, string> = {
    "RateLimit-Policy": `"${policy.name}";q=${policy.limit};w=${Math.ceil(policy.windowMs / 1000)}`,
    RateLimit: `"${policy.name}";r=${d.remaining};t=${resetSec}`,
    "X-RateLimit-Limit": String(d.limit),
    "X-RateLimit-Remaining": String(d.remaining),
    // Unix time (seconds), as GitHub's API does.
    "X-RateLimit-Reset": String(Math.ceil((d.now + d.resetMs) / 1000)),
  };
  if (d.retryAfterMs !== null) headers["Retry-After"] = String(Math.ceil(d.retryAfterMs / 1000)); // set only when denied, ≥ 1 ms
  return headers;
}
