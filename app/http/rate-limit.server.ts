/**
 * The rate-limit step of the shared guard (api.server.ts): every request that
 * resolved to a caller passes here. Key requests are limited per user — all of
 * a user's keys share one bucket — by the owner's tier, read now (a user who
 * just became premium gets the premium limit at once); session requests only
 * when SESSION_RATE_LIMITS is on. Through this process's leases (limiter.server.ts):
 * most requests are decided from memory, without a statement.
 */
import { type Policy, rateLimitHeaders } from "~/domain/rate-limits/decide";
import { leases } from "~/domain/rate-limits/limiter.server";
import { keyPolicy, keyTier, sessionBucket, sessionPolicy, userBucket } from "~/domain/rate-limits/policy.server";
import type { Caller } from "./identity.server";
import type { Services } from "./services.server";

export interface RateLimitOutcome {
  allowed: boolean;
  headers: Record<string, string>;
}

/** Null when the request is not limited (a session with SESSION_RATE_LIMITS off). */
export async function checkRateLimit(
  route: string,
  services: Services,
  caller: Caller,
): Promise<RateLimitOutcome | null> {
  const { config, db, clock } = services;
  let bucket: string;
  let policy: Policy;
  if (caller.via === "api_key") {
    policy = keyPolicy(
      config,
      caller.tier ?? (await keyTier(db, { userId: caller.user.id, isAdmin: caller.isAdmin }, clock)),
    );
    bucket = userBucket(caller.user.id);
  } else if (config.SESSION_RATE_LIMITS) {
    policy = sessionPolicy(route);
    bucket = sessionBucket(caller.user.id, route);
  } else {
    return null;
  }
  const decision = await leases(db).take(bucket, policy, clock.now());
  return { allowed: decision.allowed, headers: rateLimitHeaders(policy, decision) };
}
