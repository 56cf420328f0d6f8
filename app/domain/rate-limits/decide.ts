/**
 * GCRA (the generic cell rate algorithm: a token bucket stored as one number),
 * pure: no I/O, no clock. A policy of `limit` requests per `windowMs` admits a
 * burst of `limit`, then one request every `windowMs / limit`.
 *
 * State per bucket: `tat`, the theoretical arrival time (µs). A request at
 * `now` is admitted iff  max(tat, now) + T − now ≤ W  (T = W / limit), and then
 * tat := max(tat, now) + T. `tat − now` is the part of the window in use, so a
 * tier change keeps the fraction of the quota used, not the count.
 *
 * Exactness bound (docs/performance.md, DESIGN §5): the requests admitted with
 * `now` in any interval [a, b] number at most  (W + b − a) / T  =
 * limit + (b − a) · limit / W, whatever the order in which concurrent
 * processes apply them: at most 2·limit in any window of W, and limit per W
 * over time (a burst of limit, then the steady rate). Proof: each
 * admission raises tat by T over max(tat, now); after the first admission in
 * [a, b] tat ≥ a + T, after the m-th tat ≥ a + m·T, and the m-th needs
 * tat − now ≤ W with now ≤ b, so m·T ≤ W + b − a.
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
export const intervalUs = (p: Pick<Policy, "limit" | "windowMs">): number => Math.max(1, Math.floor((p.windowMs * US_PER_MS) / p.limit));

/** The decision for a request admitted at `nowMs` that moved tat to `tatUs`. */
export function admitted(policy: Pick<Policy, "limit" | "windowMs">, nowMs: number, tatUs: number): Decision {
  const now = Math.floor(nowMs * US_PER_MS);
  const t = intervalUs(policy);
  const used = Math.max(0, tatUs - now);
  const remaining = Math.min(policy.limit - 1, Math.max(0, Math.floor((policy.windowMs * US_PER_MS - used) / t)));
  // With none left, the next request fits once one interval has drained.
  const resetUs = remaining > 0 ? used : used + t - policy.windowMs * US_PER_MS;
  return { allowed: true, limit: policy.limit, remaining, resetMs: Math.max(1, resetUs / US_PER_MS), retryAfterMs: null, now: nowMs };
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
