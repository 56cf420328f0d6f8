/**
 * The rolling-window decision, pure: given what the log holds for a bucket,
 * may one more request pass, and what do the headers say? No I/O, no clock.
 *
 * A window of `windowMs` counts the hits at instants t with now − windowMs < t ≤ now.
 * Denied requests are not recorded, so a client that keeps knocking is let in
 * again as soon as its oldest counted request leaves the window.
 */
export interface WindowState {
  /** Hits counted in the current window (before this request). */
  count: number;
  /** Instant of the oldest counted hit, or null when there is none. */
  oldest: number | null;
  /**
   * When count ≥ limit: instant of the hit whose expiry brings the count
   * below the limit (the (count − limit + 1)-th oldest). Else null.
   */
  pivot: number | null;
}

export interface Policy {
  /** Shown in `RateLimit-Policy` / `RateLimit` (e.g. "standard"). */
  name: string;
  limit: number;
  windowMs: number;
}

export interface Decision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Milliseconds until a slot frees (the oldest counted hit leaves the window). */
  resetMs: number;
  /** Only when denied: milliseconds until a request would be allowed. */
  retryAfterMs: number | null;
  /** The instant decided at. */
  now: number;
}

export function decide(state: WindowState, policy: Pick<Policy, "limit" | "windowMs">, now: number): Decision {
  const { limit, windowMs } = policy;
  if (state.count >= limit) {
    const pivot = state.pivot ?? state.oldest ?? now;
    const wait = Math.max(1, pivot + windowMs - now);
    return { allowed: false, limit, remaining: 0, resetMs: wait, retryAfterMs: wait, now };
  }
  const oldest = state.oldest ?? now;
  return {
    allowed: true,
    limit,
    remaining: limit - (state.count + 1),
    resetMs: Math.max(1, oldest + windowMs - now),
    retryAfterMs: null,
    now,
  };
}

/** IETF draft (httpapi-ratelimit-headers) and the common X-RateLimit-* headers. */
export function rateLimitHeaders(policy: Policy, d: Decision): Record<string, string> {
  const resetSec = Math.max(1, Math.ceil(d.resetMs / 1000));
  const headers: Record<string, string> = {
    "RateLimit-Policy": `"${policy.name}";q=${policy.limit};w=${Math.ceil(policy.windowMs / 1000)}`,
    RateLimit: `"${policy.name}";r=${d.remaining};t=${resetSec}`,
    "X-RateLimit-Limit": String(d.limit),
    "X-RateLimit-Remaining": String(d.remaining),
    // Unix time (seconds) when a slot frees, as GitHub's API does.
    "X-RateLimit-Reset": String(Math.ceil((d.now + d.resetMs) / 1000)),
  };
  if (!d.allowed && d.retryAfterMs !== null) headers["Retry-After"] = String(Math.max(1, Math.ceil(d.retryAfterMs / 1000)));
  return headers;
}
