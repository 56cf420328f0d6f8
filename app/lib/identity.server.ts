/**
 * Who is calling: an `X-API-Key` (which wins when present) or a better-auth
 * session. Guards throw typed errors so routes read top to bottom.
 */
import { authenticateApiKey } from "~/domain/api-keys/authenticate.server";
import { findUserById, isAdminEmail, type UserRow } from "~/domain/users/users.server";
import { AppError } from "./errors";
import type { Services } from "./services.server";
import { ASK_BETTER_AUTH, sessionUserId } from "./session-lookup.server";

export interface Caller {
  user: UserRow;
  via: "session" | "api_key";
  apiKeyId: string | null;
  isAdmin: boolean;
}

export const API_KEY_HEADER = "x-api-key";

/** The caller, or null when the request carries neither a key nor a session. */
export async function resolveCaller(request: Request, services: Services): Promise<Caller | null> {
  const key = request.headers.get(API_KEY_HEADER);
  if (key !== null) {
    const identity = authenticateApiKey(services.db, key, services.clock);
    const user = findUserById(services.db, identity.userId);
    if (!user) throw new AppError("API_KEY_NOT_FOUND");
    return { user, via: "api_key", apiKeyId: identity.keyId, isAdmin: isAdminEmail(services.config, user.email) };
  }
  const userId = await sessionUser(request, services);
  const user = userId ? findUserById(services.db, userId) : undefined;
  if (!user) return null;
  return { user, via: "session", apiKeyId: null, isAdmin: isAdminEmail(services.config, user.email) };
}

/** The session's user id: the fast signed-cookie lookup, or better-auth when it has work to do. */
export async function sessionUser(request: Request, services: Services): Promise<string | null> {
  // better-auth judges expiry and refresh on the real clock: so does the fast path, so the two always agree.
  const fast = await sessionUserId(services.auth, services.db, request.headers, Date.now());
  if (fast !== ASK_BETTER_AUTH) return fast;
  const session = await services.auth.api.getSession({ headers: request.headers });
  return session?.user.id ?? null;
}

export async function requireCaller(request: Request, services: Services): Promise<Caller> {
  const caller = await resolveCaller(request, services);
  if (!caller) throw new AppError("UNAUTHENTICATED");
  return caller;
}

export async function requireAdmin(request: Request, services: Services): Promise<Caller> {
  const caller = await requireCaller(request, services);
  if (!caller.isAdmin) throw new AppError("FORBIDDEN");
  return caller;
}

/**
 * Session only (key management must not be reachable with a key). A request
 * carrying a key is judged as that key (401 when bad) and then refused with
 * `forbidden`: it never falls back to a session cookie sent alongside.
 */
export async function requireSessionUser(request: Request, services: Services): Promise<Caller> {
  if (request.headers.get(API_KEY_HEADER) !== null) {
    await resolveCaller(request, services);
    throw new AppError("FORBIDDEN");
  }
  const userId = await sessionUser(request, services);
  const user = userId ? findUserById(services.db, userId) : undefined;
  if (!user) throw new AppError("UNAUTHENTICATED");
  return { user, via: "session", apiKeyId: null, isAdmin: isAdminEmail(services.config, user.email) };
}
