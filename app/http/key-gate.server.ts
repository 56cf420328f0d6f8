/**
 * The gate of the endpoints only API keys reach (MCP at /mcp, the OpenAI-compatible /v1 endpoints): the presented
 * key resolved to its owner (401 without one or with a bad one), then the owner's rate limit, one unit per call the
 * request carries — the same bucket, tiers and headers as the JSON API (rate-limit.server.ts). Scopes come from the
 * same table as every key route's (ROUTE_SCOPES): `/v1/…` by the route, MCP per tool call (`/mcp#<tool>`), since one
 * MCP request may call several tools.
 */
import { AppError } from "~/lib/errors";
import { type Caller, keyCaller, presentedKey } from "./identity.server";
import { checkRateLimit } from "./rate-limit.server";
import type { Services } from "./services.server";

/** The key's owner; UNAUTHENTICATED without a key, API_KEY_NOT_FOUND / API_KEY_REVOKED for a bad one. */
export async function requireKeyCaller(request: Request, services: Services): Promise<Caller> {
  const key = presentedKey(request);
  if (key === null) throw new AppError("UNAUTHENTICATED");
  return keyCaller(key, services);
}

/**
 * Takes `units` from the owner's rate limit; RATE_LIMITED (with Retry-After) when the bucket runs dry. Returns the
 * rate-limit headers of the last unit.
 */
export async function takeRateUnits(
  services: Services,
  caller: Caller,
  route: string,
  units: number,
): Promise<Record<string, string>> {
  let headers: Record<string, string> = {};
  for (let i = 0; i < units; i++) {
    const limit = await checkRateLimit(route, services, caller);
    if (!limit) break;
    headers = limit.headers;
    if (!limit.allowed) {
      const refused = new AppError("RATE_LIMITED");
      refused.headers = headers;
      throw refused;
    }
  }
  return headers;
}
