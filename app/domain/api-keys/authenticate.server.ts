/**
 * Resolves an `X-API-Key` header to its owner (spec §5). A present key that
 * is unknown, mistyped, empty or revoked is rejected with HTTP 401; it never
 * falls back to the session.
 *
 * Hot path (docs/performance.md): what a key row says that cannot change while
 * the key works — its id and owner — is cached per process by the key's hash;
 * its status is re-read from the database at least once a second
 * (REVALIDATE_MS), so a key revoked by any process fails everywhere within one
 * second (in the revoking process at once). `last_used_at` is written at most
 * once a minute per key (guarded, so several processes write it once).
 */

import { createHash } from "node:crypto";
import { and, eq, isNull, lte, or, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { prepared } from "#db/prepared";
import { apiKeys } from "#db/schema";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { type KeyScope, parseScopes } from "./scopes";

export const hashApiKey = (key: string): string => createHash("sha256").update(key, "utf8").digest("hex");

/** `last_used_at` is written at most this often per key (keeps writes off the hot path). */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** How stale a cached key status may be: a revocation reaches every process within this. */
export const REVALIDATE_MS = 1000;
/** Cached keys per process; past this the cache starts over (a bound, not a tuning knob). */
const MAX_CACHED = 10_000;

export interface KeyIdentity {
  keyId: string;
  userId: string;
  /** What the key may do (scopes.ts); re-read with its status, so a change reaches every process within REVALIDATE_MS. */
  scopes: readonly KeyScope[];
}

interface Entry extends KeyIdentity {
  active: boolean;
  /** performance.now() of the last database read of this key. */
  checkedAt: number;
  /** last_used_at as last read or written (ms), null when never used. */
  lastUsedAt: number | null;
}

const caches = new WeakMap<Db, Map<string, Entry>>();

function cacheOf(db: Db): Map<string, Entry> {
  let c = caches.get(db);
  if (!c) caches.set(db, (c = new Map()));
  return c;
}

async function read(db: Db, hash: string): Promise<Entry | undefined> {
  // Prepared once: drizzle's query building costs more than the lookup itself.
  const lookup = prepared(db, "apiKeys.byHashScoped", (d) =>
    d
      .select({
        id: apiKeys.id,
        userId: apiKeys.userId,
        status: apiKeys.status,
        lastUsedAt: apiKeys.lastUsedAt,
        scopes: apiKeys.scopes,
      })
      .from(apiKeys)
      .where(eq(apiKeys.keyHash, sql.placeholder("hash"))),
  );
  const row = await db.one(lookup, { hash });
  if (!row) return undefined;
  return {
    keyId: row.id,
    userId: row.userId,
    scopes: parseScopes(row.scopes),
    active: row.status === "active",
    checkedAt: performance.now(),
    lastUsedAt: row.lastUsedAt?.getTime() ?? null,
  };
}

export async function authenticateApiKey(db: Db, rawKey: string, clock: Clock): Promise<KeyIdentity> {
  const key = rawKey.trim();
  if (!key) throw new AppError("API_KEY_NOT_FOUND");
  const hash = hashApiKey(key);
  const cache = cacheOf(db);
  let entry = cache.get(hash);
  if (!entry || performance.now() - entry.checkedAt >= REVALIDATE_MS) {
    entry = await read(db, hash);
    if (!entry) {
      cache.delete(hash);
      throw new AppError("API_KEY_NOT_FOUND");
    }
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(hash, entry);
  }
  if (!entry.active) throw new AppError("API_KEY_REVOKED");
  const now = clock.now();
  if (entry.lastUsedAt === null || now - entry.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    entry.lastUsedAt = now;
    // Guarded: of several processes seeing a stale stamp, one writes.
    await db.run(
      db
        .update(apiKeys)
        .set({ lastUsedAt: new Date(now) })
        .where(
          and(
            eq(apiKeys.id, entry.keyId),
            eq(apiKeys.status, "active"),
            or(isNull(apiKeys.lastUsedAt), lte(apiKeys.lastUsedAt, new Date(now - LAST_USED_RESOLUTION_MS))),
          ),
        ),
    );
  }
  return { keyId: entry.keyId, userId: entry.userId, scopes: entry.scopes };
}

/** Drops a key from this process's cache (its revocation takes effect here at once). */
export function forgetApiKey(db: Db, keyId: string) {
  const cache = caches.get(db);
  if (!cache) return;
  for (const [hash, e] of cache) if (e.keyId === keyId) cache.delete(hash);
}
