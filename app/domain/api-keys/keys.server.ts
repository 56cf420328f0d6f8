/**
 * API keys (spec 2.5, 3.2; DESIGN §5): created with a name, shown once,
 * stored only as a SHA-256 hash, listed, revoked for good. At most
 * MAX_ACTIVE_KEYS active keys per user. Writes run in synchronous immediate
 * transactions with guarded updates.
 */
import { and, count, desc, eq } from "drizzle-orm";
import { randomUUID } from "node:crypto";
import type { Db } from "#db/client";
import { apiKeys } from "#db/schema";
import { changes } from "~/domain/credits/ledger.server";
import { iso, type Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import type { Policy } from "~/domain/rate-limits/decide";
import { take } from "~/domain/rate-limits/limiter.server";
import { keyCreationBucket } from "~/domain/rate-limits/policy.server";
import { forgetApiKey, hashApiKey } from "./authenticate.server";

export const API_KEY_PREFIX = "atl_";
/** 32 base62 characters ≈ 190 bits from the CSPRNG. */
export const API_KEY_RANDOM_CHARS = 32;
/** What the list shows: the prefix and the first 6 random characters. */
export const API_KEY_START_LENGTH = API_KEY_PREFIX.length + 6;
export const MAX_ACTIVE_KEYS = 25;
export const MAX_KEY_NAME = 100;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `atl_` + base62 characters drawn without modulo bias (bytes ≥ 248 are rejected). */
export function generateApiKey(): string {
  let out = API_KEY_PREFIX;
  while (out.length < API_KEY_PREFIX.length + API_KEY_RANDOM_CHARS) {
    for (const b of crypto.getRandomValues(new Uint8Array(48))) {
      if (b < 248 && out.length < API_KEY_PREFIX.length + API_KEY_RANDOM_CHARS) out += BASE62[b % 62];
    }
  }
  return out;
}

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export interface ApiKeyInfo {
  key_id: string;
  name: string;
  start: string;
  created_at: string;
  last_used_at: string | null;
  status: "active" | "revoked";
}

export interface CreatedApiKey {
  key_id: string;
  /** The only time the key itself is shown. */
  key: string;
  name: string;
  start: string;
  created_at: string;
}

export const toApiKeyInfo = (r: ApiKeyRow): ApiKeyInfo => ({
  key_id: r.id,
  name: r.name,
  start: r.start,
  created_at: iso(r.createdAt)!,
  last_used_at: iso(r.lastUsedAt),
  status: r.status === "active" ? "active" : "revoked",
});

export function createApiKey(
  db: Db,
  input: { userId: string; name: string },
  clock: Clock,
  opts: { maxActive?: number; creationLimit?: Policy } = {},
): CreatedApiKey {
  const name = input.name.trim();
  if (name.length < 1 || name.length > MAX_KEY_NAME) {
    throw new AppError("INVALID_PARAMS", { reason: `name must be 1 to ${MAX_KEY_NAME} characters` });
  }
  const maxActive = opts.maxActive ?? MAX_ACTIVE_KEYS;
  // Rate limits count per user (DESIGN §5); this bounds creating and revoking keys in a loop.
  if (opts.creationLimit) {
    const d = take(db, keyCreationBucket(input.userId), opts.creationLimit, clock.now());
    if (!d.allowed) throw Object.assign(new AppError("RATE_LIMITED"), { headers: { "Retry-After": String(Math.ceil(d.retryAfterMs! / 1000)) } });
  }
  const key = generateApiKey();
  const row = {
    id: randomUUID(),
    userId: input.userId,
    name,
    start: key.slice(0, API_KEY_START_LENGTH),
    keyHash: hashApiKey(key),
    status: "active",
    createdAt: new Date(clock.now()),
  };
  db.transaction(
    (tx) => {
      const active = tx
        .select({ n: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.userId, input.userId), eq(apiKeys.status, "active")))
        .get();
      if ((active?.n ?? 0) >= maxActive) throw new AppError("API_KEY_LIMIT", { max: maxActive });
      tx.insert(apiKeys).values(row).run();
    },
    { behavior: "immediate" },
  );
  return { key_id: row.id, key, name, start: row.start, created_at: iso(row.createdAt)! };
}

/** Every key of the user, active and revoked, newest first. */
export function listApiKeys(db: Db, userId: string): ApiKeyInfo[] {
  return db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.userId, userId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .all()
    .map(toApiKeyInfo);
}

/** One key of the user; another user's key is indistinguishable from a missing one. */
export function getApiKey(db: Db, userId: string, keyId: string): ApiKeyInfo {
  const row = db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId)))
    .get();
  if (!row) throw new AppError("KEY_ID_NOT_FOUND");
  return toApiKeyInfo(row);
}

/**
 * active → revoked, for good. Revoking a revoked key changes nothing and
 * answers the same; there is no way back to active.
 */
export function revokeApiKey(db: Db, input: { userId: string; keyId: string }, clock: Clock): { key_id: string; status: "revoked" } {
  db.transaction(
    (tx) => {
      const row = tx
        .select({ id: apiKeys.id, status: apiKeys.status })
        .from(apiKeys)
        .where(and(eq(apiKeys.id, input.keyId), eq(apiKeys.userId, input.userId)))
        .get();
      if (!row) throw new AppError("KEY_ID_NOT_FOUND");
      if (row.status !== "active") return;
      const res = tx
        .update(apiKeys)
        .set({ status: "revoked", revokedAt: new Date(clock.now()) })
        .where(and(eq(apiKeys.id, input.keyId), eq(apiKeys.userId, input.userId), eq(apiKeys.status, "active")))
        .run();
      if (changes(res) !== 1) throw new Error(`api key ${input.keyId} changed under a revoke`);
    },
    { behavior: "immediate" },
  );
  forgetApiKey(db, input.keyId); // other processes notice within REVALIDATE_MS
  return { key_id: input.keyId, status: "revoked" };
}
