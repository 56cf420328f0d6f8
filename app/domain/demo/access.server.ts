/**
 * Who may call the demo endpoints (docs/design.md §5) and how often.
 *
 * - Development (and test): open to everyone (spec §4.6, §5.5).
 * - Production: a session or an API key is required unless DEMO_PUBLIC=true.
 * - Every mode: each client gets DEMO_RATE_LIMIT calls per minute, per
 *   user when signed in, per IP address when anonymous (0 turns it off).
 * - A call to a live provider is paid (billing.server.ts), so it needs a caller.
 *
 * The limit is the shared database limiter (GCRA, one row per client in
 * rate_limits, app/domain/rate-limits, through this process's leases), so every process on the database shares one count,
 * like the API-key limits. On a demo call its headers describe the demo policy.
 */
import ipaddr from "ipaddr.js";
import type { Db } from "#db/client";
import { rateLimitHeaders } from "~/domain/rate-limits/decide";
import { leases } from "~/domain/rate-limits/limiter.server";
import { DEMO_WINDOW_MS } from "~/domain/rate-limits/policy.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";

export { DEMO_WINDOW_MS };

export interface DemoClient {
  userId: string | null;
  ip: string | null;
}

export const demoBucket = (client: DemoClient) =>
  client.userId ? `demo:user:${client.userId}` : `demo:ip:${client.ip ? clientNetwork(client.ip) : "unknown"}`;

/**
 * What one anonymous client is, for counting: an IPv4 address, or an IPv6 address's /64 —
 * an IPv6 host may use any address of its /64, so counting single addresses let one client rotate past the limit
 * (better-auth's per-IP limiter counts /64s too). IPv4-mapped IPv6 addresses count as their IPv4 address.
 */
export function clientNetwork(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const addr = ipaddr.process(ip);
  if (addr.kind() === "ipv4") return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(":")}::/64`;
}

/**
 * The client address: the socket's peer, or (TRUST_PROXY=true) the last
 * X-Forwarded-For entry, the one the operator's own proxy appended.
 */
export function clientIpOf(config: Config, request: Request, socketIp: string | undefined): string | null {
  if (config.TRUST_PROXY) {
    const forwarded = request.headers.get("x-forwarded-for");
    const last = forwarded
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .pop();
    if (last) return last;
  }
  return socketIp ?? null;
}

/**
 * Throws when the caller may not use the demo now; otherwise returns the
 * rate-limit headers to send (the shared limiter, policy "demo").
 */
export async function requireDemoAccess(
  deps: { db: Db; config: Config; clock: Clock },
  client: DemoClient,
): Promise<Record<string, string>> {
  const { config, db, clock } = deps;
  if (config.isProduction && !client.userId && !config.DEMO_PUBLIC) throw new AppError("UNAUTHENTICATED");
  if (config.DEMO_RATE_LIMIT === 0) return {};
  const policy = { name: "demo", limit: config.DEMO_RATE_LIMIT, windowMs: DEMO_WINDOW_MS };
  const decision = await leases(db).take(demoBucket(client), policy, clock.now());
  const headers = rateLimitHeaders(policy, decision);
  if (!decision.allowed) {
    const e = new AppError("RATE_LIMITED");
    e.headers = headers;
    throw e;
  }
  return headers;
}
