/**
 * The signed-in user behind a request's session cookie, on the hot path of
 * every session request. better-auth's `getSession` costs ~670 µs here (Web
 * Crypto key import per call, adapter query building); this does the same
 * checks with a cached HMAC key and one prepared statement (~15 µs):
 *
 *   cookie `<prefix>.session_token` = `<token>.<base64 HMAC-SHA256(secret, token)>`
 *   (better-call's signed cookie) → session row by token, not expired → user id.
 *
 * Whenever better-auth has work to do — the session is due for its sliding
 * refresh (`updateAge`), expired (it deletes it), or the cookie is unusual —
 * this answers "ask better-auth" and the caller falls back to `getSession`, so
 * refresh, expiry clean-up and sign-out behave exactly as before.
 *
 * A verified cookie is remembered for up to one second (SESSION_RECHECK_MS):
 * the same cookie value then skips the HMAC and the lookup. Expiry and the
 * refresh point are still judged on every request; a session deleted in this
 * process (sign-out, revoke, password change, user deleted — better-auth's
 * delete hooks call `sessionsChanged()`) is refused at once; one deleted by
 * another process or node within one second, the bound of API keys too.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Db } from "#db/client";

/**
 * The part of better-auth's instance read here (its `$context`), by shape: auth.server.ts calls `sessionsChanged`,
 * so naming its `Auth` type would make the two files import each other.
 */
export interface AuthContextSource {
  $context: Promise<{
    authCookies: { sessionToken: { name: string } };
    secret: string;
    sessionConfig: { expiresIn: number; updateAge: number };
  }>;
}
type Auth = AuthContextSource;

export const ASK_BETTER_AUTH = Symbol("ask better-auth");

interface Settings {
  cookieName: string;
  secret: string;
  expiresInMs: number;
  updateAgeMs: number;
}

const settings = new WeakMap<Auth, Promise<Settings>>();
function settingsOf(auth: Auth): Promise<Settings> {
  let s = settings.get(auth);
  if (!s) {
    s = auth.$context.then((ctx) => ({
      cookieName: ctx.authCookies.sessionToken.name,
      secret: ctx.secret,
      expiresInMs: ctx.sessionConfig.expiresIn * 1000,
      updateAgeMs: ctx.sessionConfig.updateAge * 1000,
    }));
    settings.set(auth, s);
  }
  return s;
}

/** How long a verified cookie is trusted without reading its row again (revocation by another process). */
export const SESSION_RECHECK_MS = 1000;
const CACHE_MAX = 10_000;

interface Remembered {
  userId: string;
  expiresAt: number;
  /** Date.now() after which the row is read again. */
  until: number;
  epoch: number;
}
const remembered = new WeakMap<Settings, Map<string, Remembered>>();
let epoch = 0;

/** Sessions were deleted or changed in this process: forget every remembered cookie. */
export function sessionsChanged(): void {
  epoch++;
}

const LOOKUP = `SELECT user_id AS "userId", expires_at AS "expiresAt" FROM session WHERE token = ?`;

/** The raw value of one cookie, URI-decoded; undefined when absent or undecodable. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The user id of a valid, fresh session; null when the request has no valid
 * session cookie; ASK_BETTER_AUTH when better-auth must look (refresh, expiry).
 */
export async function sessionUserId(
  auth: Auth,
  db: Db,
  headers: Headers,
  now: number,
): Promise<string | null | typeof ASK_BETTER_AUTH> {
  const s = await settingsOf(auth);
  const value = readCookie(headers.get("cookie"), s.cookieName);
  if (!value) return null;
  let cache = remembered.get(s);
  if (!cache) remembered.set(s, (cache = new Map()));
  const hit = cache.get(value);
  if (hit && hit.epoch === epoch && hit.until > Date.now()) return decide(s, hit, now);
  const dot = value.lastIndexOf(".");
  if (dot < 1) return null;
  const token = value.slice(0, dot);
  const signature = value.slice(dot + 1);
  // better-call accepts only a padded base64 SHA-256 HMAC (44 characters).
  if (signature.length !== 44 || !signature.endsWith("=")) return null;
  const expected = createHmac("sha256", s.secret).update(token).digest();
  const given = Buffer.from(signature, "base64");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const seen = epoch;
  const found = await db.raw<{ userId: string; expiresAt: number | string }>(LOOKUP).one(token);
  if (!found) return null;
  const row = { userId: found.userId, expiresAt: Number(found.expiresAt) };
  const verdict = decide(s, row, now);
  // Remembered only when nothing was deleted while the row was read (PostgreSQL reads are truly async).
  if (verdict === row.userId && seen === epoch) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(value, { ...row, until: Date.now() + SESSION_RECHECK_MS, epoch });
  } else cache.delete(value);
  return verdict;
}

function decide(s: Settings, row: { userId: string; expiresAt: number }, now: number): string | typeof ASK_BETTER_AUTH {
  if (row.expiresAt <= now) return ASK_BETTER_AUTH; // expired: better-auth deletes it and clears the cookie
  if (row.expiresAt - s.expiresInMs + s.updateAgeMs <= now) return ASK_BETTER_AUTH; // due for its sliding refresh
  return row.userId;
}
