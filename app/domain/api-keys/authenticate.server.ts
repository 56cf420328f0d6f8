/**
 * Resolves an `X-API-Key` header to its owner (spec §5). A present key that
 * is unknown, mistyped, empty or revoked is rejected with HTTP 401; it never
 * falls back to the session.
 */
import { and, eq, isNull, lte, or, sql } from "drizzle-orm";
import { createHash } from "node:crypto";
import type { Db } from "#db/client";
import { apiKeys } from "#db/schema";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";

export const hashApiKey = (key: string): string => createHash("sha256").update(key, "utf8").digest("hex");

/** `last_used_at` is written at most this often per key (keeps writes off the hot path). */
export const LAST_USED_RESOLUTION_MS = 60_000;

export interface KeyIdentity {
  keyId: string;
  userId: string;
}

// Prepared once per database: this runs on every key request, and drizzle's
// query building costs more than the lookup itself.
const lookups = new WeakMap<Db, ReturnType<typeof prepareLookup>>();
const prepareLookup = (db: Db) =>
  db
    .select({ id: apiKeys.id, userId: apiKeys.userId, status: apiKeys.status, lastUsedAt: apiKeys.lastUsedAt })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sql.placeholder("hash")))
    .prepare();

export function authenticateApiKey(db: Db, rawKey: string, clock: Clock): KeyIdentity {
  const key = rawKey.trim();
  if (!key) throw new AppError("API_KEY_NOT_FOUND");
  let lookup = lookups.get(db);
  if (!lookup) lookups.set(db, (lookup = prepareLookup(db)));
  const row = lookup.get({ hash: hashApiKey(key) });
  if (!row) throw new AppError("API_KEY_NOT_FOUND");
  if (row.status !== "active") throw new AppError("API_KEY_REVOKED");
  const now = clock.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    // Guarded: of several processes seeing a stale stamp, one writes.
    db.update(apiKeys)
      .set({ lastUsedAt: new Date(now) })
      .where(
        and(
          eq(apiKeys.id, row.id),
          eq(apiKeys.status, "active"),
          or(isNull(apiKeys.lastUsedAt), lte(apiKeys.lastUsedAt, new Date(now - LAST_USED_RESOLUTION_MS))),
        ),
      )
      .run();
  }
  return { keyId: row.id, userId: row.userId };
}
