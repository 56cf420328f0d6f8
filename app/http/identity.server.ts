/**
 * Who is calling: an `X-API-Key` (which wins when present) or a better-auth
 * session. The one guard that turns this into "signed in / admin / session
 * only" and applies rate limits is `guard()` in api.server.ts.
 */
import { authenticateApiKey } from "~/domain/api-keys/authenticate.server";
import type { KeyScope } from "~/domain/api-keys/scopes";
import { type Tier, tierOf } from "~/domain/rate-limits/policy.server";
import { findKeyOwner, findUserById, isAdmin, type UserRow } from "~/domain/users/users.server";
import { AppError } from "~/lib/errors";
import type { Services } from "./services.server";
import { ASK_BETTER_AUTH, sessionUserId } from "./session-lookup.server";

export interface Caller {
  user: UserRow;
  via: "session" | "api_key";
  apiKeyId: string | null;
  isAdmin: boolean;
  /** A key's tier (its rate limit), read with the owner's row; null for a session (not read). */
  tier: Tier | null;
  /** A key's scopes; null for a session (never scoped). */
  scopes: readonly KeyScope[] | null;
}

export const API_KEY_HEADER = "x-api-key";

/** The caller, or null when the request carries neither a key nor a session. */
export async function resolveCaller(request: Request, services: Services): Promise<Caller | null> {
  const key = request.headers.get(API_KEY_HEADER);
  if (key !== null) return keyCaller(key, services);
  const userId = await sessionUser(request, services);
  const user = userId ? await findUserById(services.db, userId) : undefined;
  if (!user) return null;
  if (user.suspendedAt) throw new AppError("ACCOUNT_SUSPENDED");
  return { user, via: "session", apiKeyId: null, isAdmin: isAdmin(services.config, user), tier: null, scopes: null };
}

/** The owner of an API key as a caller; HTTP 401 (API_KEY_NOT_FOUND / API_KEY_REVOKED) for a bad key. */
export async function keyCaller(key: string, services: Services): Promise<Caller> {
  const identity = await authenticateApiKey(services.db, key, services.clock);
  const owner = await findKeyOwner(services.db, identity.userId, services.clock.now());
  if (!owner) throw new AppError("API_KEY_NOT_FOUND");
  if (owner.user.suspendedAt) throw new AppError("ACCOUNT_SUSPENDED");
  const admin = isAdmin(services.config, owner.user);
  return {
    user: owner.user,
    via: "api_key",
    apiKeyId: identity.keyId,
    isAdmin: admin,
    tier: tierOf(admin, owner.premium),
    scopes: identity.scopes,
  };
}

/**
 * The key a machine client presents where only keys are accepted (MCP, the OpenAI-compatible endpoints):
 * `Authorization: Bearer <key>` as those clients send it, or `X-API-Key`; null when neither is there.
 */
export function presentedKey(request: Request): string | null {
  const header = request.headers.get(API_KEY_HEADER);
  if (header !== null) return header;
  const authorization = request.headers.get("authorization");
  const m = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  return m ? m[1]! : null;
}

/**
 * Whether the credential a caller came with still works, for a response that outlives its request (the status
 * stream): the same lookup as a new request, through the same caches (a revoked key or an ended session is seen
 * within one second).
 */
export async function callerStillValid(request: Request, services: Services, caller: Caller): Promise<boolean> {
  try {
    const again = await resolveCaller(request, services);
    return again !== null && again.user.id === caller.user.id && again.via === caller.via;
  } catch {
    return false;
  }
}

/** The session's user id: the fast signed-cookie lookup, or better-auth when it has work to do. */
export async function sessionUser(request: Request, services: Services): Promise<string | null> {
  // better-auth judges expiry and refresh on the real clock: so does the fast path, so the two always agree.
  const fast = await sessionUserId(services.auth, services.db, request.headers, Date.now());
  if (fast !== ASK_BETTER_AUTH) return fast;
  const session = await services.auth.api.getSession({ headers: request.headers });
  return session?.user.id ?? null;
}
