/**
 * Who may call the demo endpoints (DESIGN §5) and how often.
 *
 * - Development (and test): open to everyone, no limit (spec §4.6, §5.5).
 * - Production: a session or an API key is required unless DEMO_PUBLIC=true.
 *   Every client then gets DEMO_RATE_LIMIT calls per rolling minute: per user
 *   when signed in, per IP address when anonymous.
 *
 * The limit lives in SQLite (rate_limit_hits) rather than in memory so every
 * process on the database shares one count, like the API-key limits.
 */
import { and, asc, count, eq, gte, lt, lte } from "drizzle-orm";
import type { Db } from "#db/client";
import { rateLimitHits } from "#db/schema";
import { changes } from "~/domain/credits/ledger.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";

export const DEMO_WINDOW_MS = 60_000;

export interface DemoClient {
  userId: string | null;
  ip: string | null;
}

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a slot frees up (when denied). */
  retryAfterSec: number;
}

/**
 * Rolling-window counter: counts the bucket's hits inside the window and
 * records one more only when under the limit, in one immediate transaction so
 * concurrent processes cannot both take the last slot.
 */
export function hitRateLimit(db: Db, bucket: string, limit: number, windowMs: number, now: number): LimitDecision {
  return db.transaction(
    (tx) => {
      const since = now - windowMs;
      tx.delete(rateLimitHits)
        .where(and(eq(rateLimitHits.bucket, bucket), lte(rateLimitHits.at, since)))
        .run();
      const used = tx.select({ n: count() }).from(rateLimitHits).where(eq(rateLimitHits.bucket, bucket)).get()?.n ?? 0;
      if (used >= limit) {
        const oldest = tx
          .select({ at: rateLimitHits.at })
          .from(rateLimitHits)
          .where(eq(rateLimitHits.bucket, bucket))
          .orderBy(asc(rateLimitHits.at))
          .limit(1)
          .get();
        const waitMs = Math.max(0, (oldest?.at ?? now) + windowMs - now);
        return { allowed: false, limit, remaining: 0, retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)) };
      }
      tx.insert(rateLimitHits).values({ bucket, at: now }).run();
      return { allowed: true, limit, remaining: limit - used - 1, retryAfterSec: 0 };
    },
    { behavior: "immediate" },
  );
}

/**
 * Removes expired demo hits of every bucket (a bucket is only pruned when hit, so
 * addresses that never come back would otherwise leave rows behind). The range
 * on `bucket` uses the (bucket, at) index.
 */
export function sweepDemoHits(db: Db, windowMs: number, now: number): number {
  const res = db
    .delete(rateLimitHits)
    .where(and(gte(rateLimitHits.bucket, "demo:"), lt(rateLimitHits.bucket, "demo;"), lte(rateLimitHits.at, now - windowMs)))
    .run();
  return changes(res);
}

const SWEEP = Symbol.for("atelier.demoSweepAt");
type G = typeof globalThis & { [SWEEP]?: number };

/**
 * The client address: the socket's peer, or (TRUST_PROXY=true) the last
 * X-Forwarded-For entry, the one the operator's own proxy appended.
 */
export function clientIpOf(config: Config, request: Request, socketIp: string | undefined): string | null {
  if (config.TRUST_PROXY) {
    const forwarded = request.headers.get("x-forwarded-for");
    const last = forwarded?.split(",").map((s) => s.trim()).filter(Boolean).pop();
    if (last) return last;
  }
  return socketIp ?? null;
}

/** Throws when the caller may not use the demo now; returns the rate-limit headers to send otherwise. */
export function requireDemoAccess(deps: { db: Db; config: Config; clock: Clock }, client: DemoClient): Record<string, string> {
  const { config } = deps;
  if (!config.isProduction) return {};
  if (!client.userId && !config.DEMO_PUBLIC) throw new AppError("UNAUTHENTICATED");
  if (config.DEMO_RATE_LIMIT === 0) return {};
  const bucket = client.userId ? `demo:user:${client.userId}` : `demo:ip:${client.ip ?? "unknown"}`;
  const now = deps.clock.now();
  const g = globalThis as G;
  if (now - (g[SWEEP] ?? 0) >= DEMO_WINDOW_MS) {
    g[SWEEP] = now;
    sweepDemoHits(deps.db, DEMO_WINDOW_MS, now);
  }
  const d = hitRateLimit(deps.db, bucket, config.DEMO_RATE_LIMIT, DEMO_WINDOW_MS, now);
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": String(d.limit),
    "X-RateLimit-Remaining": String(d.remaining),
  };
  if (!d.allowed) {
    const e = new AppError("RATE_LIMITED");
    e.headers = { ...headers, "Retry-After": String(d.retryAfterSec) };
    throw e;
  }
  return headers;
}
