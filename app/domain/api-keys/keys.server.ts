/**
 * API keys (spec 2.5, 3.2; docs/design.md §5): created with a name, shown once,
 * stored only as a SHA-256 hash, listed, revoked for good (and listed for
 * REVOKED_KEYS_LISTED_DAYS more). At most
 * MAX_ACTIVE_KEYS active keys per user. Writes run in transactions (the
 * user's row locked while counting) with guarded updates.
 */

import { randomUUID } from "node:crypto";
import { and, count, desc, eq, gte, or } from "drizzle-orm";
import { type Db, lockRow, one, run } from "#db/client";
import { apiKeys } from "#db/schema";
import type { Policy } from "~/domain/rate-limits/decide";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import { keyCreationBucket } from "~/domain/rate-limits/policy.server";
import { disableEndpointsOfKey } from "~/domain/webhooks/webhooks.server";
import { type Clock, DAY_MS, iso, systemClock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { forgetApiKey, hashApiKey } from "./authenticate.server";
import { capOf, type KeyCap, keyCreditsUsedNow } from "./caps.server";
import { type CreditPeriod, type KeyScope, parseScopes, storeScopes } from "./scopes";

export const API_KEY_PREFIX = "atl_";
/** 32 base62 characters ≈ 190 bits from the CSPRNG. */
export const API_KEY_RANDOM_CHARS = 32;
/** What the list shows: the prefix and the first 6 random characters. */
export const API_KEY_START_LENGTH = API_KEY_PREFIX.length + 6;
export const MAX_ACTIVE_KEYS = 25;
export const MAX_KEY_NAME = 100;
/**
 * A revoked key stays in the list this many days after its revocation (to see
 * what was revoked, when, and when it was last used), then drops out of the
 * list; its row stays, so the key still answers `API key revoked` (docs/decisions/088-revoked-keys-listed-30-days.md).
 */
export const REVOKED_KEYS_LISTED_DAYS = 30;

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
  /** When it was revoked; null while active. */
  revoked_at: string | null;
  /** What the key may do (scopes.ts). */
  scopes: KeyScope[];
  /** Its spending cap and what its tasks used of it this period; null when uncapped. */
  credit_limit: { credits: number; period: CreditPeriod; used: number } | null;
}

export interface CreatedApiKey {
  key_id: string;
  /** The only time the key itself is shown. */
  key: string;
  name: string;
  start: string;
  created_at: string;
  scopes: KeyScope[];
  credit_limit: KeyCap | null;
}

export const toApiKeyInfo = (r: ApiKeyRow, used = 0): ApiKeyInfo => ({
  key_id: r.id,
  name: r.name,
  start: r.start,
  created_at: iso(r.createdAt)!,
  last_used_at: iso(r.lastUsedAt),
  status: r.status === "active" ? "active" : "revoked",
  revoked_at: r.status === "active" ? null : iso(r.revokedAt),
  scopes: [...parseScopes(r.scopes)],
  credit_limit: capOf(r) && { ...capOf(r)!, used },
});

/** The scopes and cap a create or update may set. */
export interface KeyLimits {
  scopes?: KeyScope[];
  /** null removes the cap. */
  creditLimit?: KeyCap | null;
}

/** Columns for a cap (null: none). */
const capColumns = (cap: KeyCap | null) => ({
  creditLimit: cap ? cap.credits : null,
  creditPeriod: cap ? cap.period : null,
});

/** The list's `used` of each capped key (one statement per capped key; most keys have no cap). */
async function withUsage(db: Db, rows: ApiKeyRow[], now: number): Promise<ApiKeyInfo[]> {
  return Promise.all(
    rows.map(async (r) => {
      const cap = capOf(r);
      return toApiKeyInfo(r, cap ? await keyCreditsUsedNow(db, r.id, cap.period, now) : 0);
    }),
  );
}

export async function createApiKey(
  db: Db,
  input: { userId: string; name: string } & KeyLimits,
  clock: Clock,
  opts: { maxActive?: number; creationLimit?: Policy } = {},
): Promise<CreatedApiKey> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > MAX_KEY_NAME) {
    throw new AppError("INVALID_PARAMS", { reason: `name must be 1 to ${MAX_KEY_NAME} characters` });
  }
  const maxActive = opts.maxActive ?? MAX_ACTIVE_KEYS;
  // Rate limits count per user (docs/design.md §5); this bounds creating and revoking keys in a loop.
  if (opts.creationLimit) {
    await takeOrRefuse(db, keyCreationBucket(input.userId), opts.creationLimit, clock.now());
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
    scopes: storeScopes(input.scopes),
    ...capColumns(input.creditLimit ?? null),
  };
  await db.tx(function* (tx) {
    yield* lockRow("user", input.userId);
    const active = yield* one(
      tx
        .select({ n: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.userId, input.userId), eq(apiKeys.status, "active"))),
    );
    if (Number(active?.n ?? 0) >= maxActive) throw new AppError("API_KEY_LIMIT", { max: maxActive });
    yield* run(tx.insert(apiKeys).values(row));
  });
  return {
    key_id: row.id,
    key,
    name,
    start: row.start,
    created_at: iso(row.createdAt)!,
    scopes: [...parseScopes(row.scopes)],
    credit_limit: input.creditLimit ?? null,
  };
}

/** The user's active keys and the keys revoked in the last REVOKED_KEYS_LISTED_DAYS days, newest first. */
export async function listApiKeys(db: Db, userId: string, clock: Clock): Promise<ApiKeyInfo[]> {
  const since = new Date(clock.now() - REVOKED_KEYS_LISTED_DAYS * DAY_MS);
  const listed = or(eq(apiKeys.status, "active"), gte(apiKeys.revokedAt, since));
  const rows = await db.many(
    db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, userId), listed))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)),
  );
  return withUsage(db, rows, clock.now());
}

/** One key of the user; another user's key is indistinguishable from a missing one. */
export async function getApiKey(
  db: Db,
  userId: string,
  keyId: string,
  clock: Clock = systemClock,
): Promise<ApiKeyInfo> {
  const row = await db.one(
    db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId))),
  );
  if (!row) throw new AppError("KEY_ID_NOT_FOUND");
  return (await withUsage(db, [row], clock.now()))[0]!;
}

/**
 * Changes an active key's scopes and cap without rotating it (fields left out stay as they are; `creditLimit: null`
 * removes the cap). Guarded on the key being the user's and active; every process sees the change within
 * REVALIDATE_MS (this one at once).
 */
export async function updateApiKey(
  db: Db,
  input: { userId: string; keyId: string } & KeyLimits,
  clock: Clock,
): Promise<ApiKeyInfo> {
  const mine = and(eq(apiKeys.id, input.keyId), eq(apiKeys.userId, input.userId));
  const set = {
    ...(input.scopes !== undefined ? { scopes: storeScopes(input.scopes) } : {}),
    ...(input.creditLimit !== undefined ? capColumns(input.creditLimit) : {}),
  };
  await db.tx(function* (tx) {
    const row = yield* one(tx.select({ status: apiKeys.status }).from(apiKeys).where(mine));
    if (!row) throw new AppError("KEY_ID_NOT_FOUND");
    if (row.status !== "active") throw new AppError("INVALID_PARAMS", { reason: "a revoked key cannot be changed" });
    if (Object.keys(set).length > 0)
      yield* run(
        tx
          .update(apiKeys)
          .set(set)
          .where(and(mine, eq(apiKeys.status, "active"))),
      );
  });
  forgetApiKey(db, input.keyId);
  return getApiKey(db, input.userId, input.keyId, clock);
}

/**
 * active → revoked, for good. Revoking a revoked key changes nothing and
 * answers the same; there is no way back to active. In the same transaction the
 * webhook endpoints the key set up are disabled: a leaked
 * key's endpoint must not keep receiving the user's events after the leak is
 * answered.
 */
export async function revokeApiKey(
  db: Db,
  input: { userId: string; keyId: string },
  clock: Clock,
): Promise<{ key_id: string; status: "revoked" }> {
  const mine = and(eq(apiKeys.id, input.keyId), eq(apiKeys.userId, input.userId));
  const now = clock.now();
  await db.tx(function* (tx) {
    const row = yield* one(tx.select({ id: apiKeys.id, start: apiKeys.start }).from(apiKeys).where(mine));
    if (!row) throw new AppError("KEY_ID_NOT_FOUND");
    // Guarded: active → revoked once; revoking a revoked key changes nothing.
    const changed = yield* run(
      tx
        .update(apiKeys)
        .set({ status: "revoked", revokedAt: new Date(now) })
        .where(and(mine, eq(apiKeys.status, "active"))),
    );
    if (changed === 1)
      yield* disableEndpointsOfKey(tx, { userId: input.userId, keyId: input.keyId, keyStart: row.start, now });
  });
  forgetApiKey(db, input.keyId); // other processes notice within REVALIDATE_MS
  return { key_id: input.keyId, status: "revoked" };
}
