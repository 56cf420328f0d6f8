/**
 * Resolves an `X-API-Key` header to its owner (spec §5). A present key that
 * is unknown, mistyped or revoked is rejected with HTTP 401; it never falls
 * back to the session.
 */
import { eq } from "drizzle-orm";
import { createHash } from "node:crypto";
import type { Db } from "#db/client";
import { apiKeys } from "#db/schema";
import { AppError } from "~/lib/errors";

export const hashApiKey = (key: string): string => createHash("sha256").update(key, "utf8").digest("hex");

export interface KeyIdentity {
  keyId: string;
  userId: string;
}

export function authenticateApiKey(db: Db, rawKey: string): KeyIdentity {
  const key = rawKey.trim();
  if (!key) throw new AppError("API_KEY_NOT_FOUND");
  const row = db
    .select({ id: apiKeys.id, userId: apiKeys.userId, status: apiKeys.status })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, hashApiKey(key)))
    .get();
  if (!row) throw new AppError("API_KEY_NOT_FOUND");
  if (row.status !== "active") throw new AppError("API_KEY_REVOKED");
  return { keyId: row.id, userId: row.userId };
}
