/**
 * The rate-limit step of the shared guard (api.server.ts): every request that
 * resolved to a caller passes here. Key requests are limited per key by the
 * owner's tier, read now (a user who just became premium gets the premium
 * limit at once); session requests only when SESSION_RATE_LIMITS is on.
 */
import type { Db } from "#db/client";
import { rateLimitHeaders } from "~/domain/rate-limits/decide";
import { createLimiter, type Limiter } from "~/domain/rate-limits/limiter.server";
import { keyBucket, keyPolicy, keyTier, maxWindowMs, sessionBucket, sessionPolicy } from "~/domain/rate-limits/policy.server";
import type { Caller } from "./identity.server";
import type { Services } from "./services.server";

const limiters = new WeakMap<Db, Limiter>();

function limiterFor(services: Services): Limiter {
  let l = limiters.get(services.db);
  if (!l) {
    l = createLimiter(services.db, services.clock, { maxWindowMs: maxWindowMs(services.config) });
    limiters.set(services.db, l);
  }
  return l;
}

export interface RateLimitOutcome {
  allowed: boolean;
  headers: Record<string, string>;
}

/** Null when the request is not limited (a session with SESSION_RATE_LIMITS off). */
export function checkRateLimit(request: Request, services: Services, caller: Caller): RateLimitOutcome | null {
  const { config, db, clock } = services;
  let bucket: string;
  let policy;
  if (caller.via === "api_key" && caller.apiKeyId) {
    policy = keyPolicy(config, keyTier(db, { userId: caller.user.id, isAdmin: caller.isAdmin }, clock));
    bucket = keyBucket(caller.apiKeyId);
  } else if (caller.via === "session" && config.SESSION_RATE_LIMITS) {
    const path = new URL(request.url).pathname;
    policy = sessionPolicy(path);
    bucket = sessionBucket(caller.user.id, path);
  } else {
    return null;
  }
  const decision = limiterFor(services).check(bucket, policy);
  return { allowed: decision.allowed, headers: rateLimitHeaders(policy, decision) };
}
