import { beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { type Db, openDatabase } from "#db/client";
import { apiKeys } from "#db/schema";
import { authenticateApiKey, hashApiKey, LAST_USED_RESOLUTION_MS } from "~/domain/api-keys/authenticate.server";
import {
  createApiKey,
  generateApiKey,
  getApiKey,
  listApiKeys,
  MAX_ACTIVE_KEYS,
  revokeApiKey,
} from "~/domain/api-keys/keys.server";
import { KEY_SCOPES } from "~/domain/api-keys/scopes";
import { DAY_MS, manualClock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { insertUser } from "../../support/services";

let db: Db;
let clock: ReturnType<typeof manualClock>;
beforeEach(async () => {
  db = openDatabase(":memory:");
  clock = manualClock();
});

const errorOf = async (p: Promise<unknown>): Promise<AppError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error("expected an AppError");
};

describe("key format (docs/design.md §5)", () => {
  test("atl_ + 32 base62 characters (≥ 128 bits), all different", async () => {
    const keys = new Set(Array.from({ length: 2000 }, generateApiKey));
    expect(keys.size).toBe(2000);
    for (const k of keys) expect(k).toMatch(/^atl_[0-9A-Za-z]{32}$/);
    expect(32 * Math.log2(62)).toBeGreaterThanOrEqual(128);
  });

  test("characters are spread over the whole alphabet (no modulo bias to speak of)", async () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) for (const c of generateApiKey().slice(4)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (2000 * 32) / 62;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.2);
  });
});

describe("create", () => {
  test("returns the key once; only its SHA-256 hash and first characters are stored", async () => {
    const u = insertUser(db);
    const created = await createApiKey(db, { userId: u.id, name: "  build server  " }, clock);
    expect(Object.keys(created).sort()).toEqual([
      "created_at",
      "credit_limit",
      "key",
      "key_id",
      "name",
      "scopes",
      "start",
    ]);
    expect(created.name).toBe("build server");
    expect(created.start).toBe(created.key.slice(0, 10));
    expect(created.created_at).toBe("2026-11-22T10:00:00.000Z");
    const row = db.select().from(apiKeys).where(eq(apiKeys.id, created.key_id)).get()!;
    expect(row.keyHash).toBe(hashApiKey(created.key));
    expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(created.key);
    expect(row.status).toBe("active");
  });

  test("name must be 1..100 characters", async () => {
    const u = insertUser(db);
    expect((await errorOf(createApiKey(db, { userId: u.id, name: "   " }, clock))).message).toBe(
      "invalid params: name must be 1 to 100 characters",
    );
    expect((await errorOf(createApiKey(db, { userId: u.id, name: "x".repeat(101) }, clock))).message).toBe(
      "invalid params: name must be 1 to 100 characters",
    );
    expect((await createApiKey(db, { userId: u.id, name: "x".repeat(100) }, clock)).name).toHaveLength(100);
  });

  test(`at most ${MAX_ACTIVE_KEYS} active keys; revoked keys do not count`, async () => {
    const u = insertUser(db);
    const made = await Promise.all(
      Array.from({ length: MAX_ACTIVE_KEYS }, (_, i) => createApiKey(db, { userId: u.id, name: `k${i}` }, clock)),
    );
    const e = await errorOf(createApiKey(db, { userId: u.id, name: "one too many" }, clock));
    expect(e.code).toBe("API_KEY_LIMIT");
    expect(e.message).toBe("invalid params: at most 25 active API keys per user");
    // Another user is not affected.
    expect((await createApiKey(db, { userId: insertUser(db).id, name: "other" }, clock)).name).toBe("other");
    await revokeApiKey(db, { userId: u.id, keyId: made[0]!.key_id }, clock);
    expect((await createApiKey(db, { userId: u.id, name: "replacement" }, clock)).name).toBe("replacement");
    expect(await listApiKeys(db, u.id, clock)).toHaveLength(MAX_ACTIVE_KEYS + 1);
  });

  test("key creation churn is bounded per user: create-and-revoke in a loop meets the creation limit", async () => {
    const u = insertUser(db);
    const creationLimit = { name: "key-create", limit: 3, windowMs: 3_600_000 };
    const churn = async () => {
      const k = await createApiKey(db, { userId: u.id, name: "churn" }, clock, { creationLimit });
      await revokeApiKey(db, { userId: u.id, keyId: k.key_id }, clock);
    };
    for (let i = 0; i < 3; i++) await churn();
    const e = await errorOf(churn());
    expect(e.code).toBe("RATE_LIMITED");
    expect(e.headers).toEqual({ "Retry-After": "1200" }); // 3 per hour: one more every 20 minutes
    expect((await createApiKey(db, { userId: insertUser(db).id, name: "other" }, clock, { creationLimit })).name).toBe(
      "other",
    );
    clock.advance(20 * 60_000);
    await churn();
    expect((await errorOf(churn())).code).toBe("RATE_LIMITED");
  });
});

describe("list", () => {
  test("newest first, with start, dates and status; never the key or its hash", async () => {
    const u = insertUser(db);
    const a = await createApiKey(db, { userId: u.id, name: "a" }, clock);
    clock.advance(1000);
    const b = await createApiKey(db, { userId: u.id, name: "b" }, clock);
    clock.advance(1000);
    await revokeApiKey(db, { userId: u.id, keyId: a.key_id }, clock);
    const list = await listApiKeys(db, u.id, clock);
    expect(list).toEqual([
      {
        key_id: b.key_id,
        name: "b",
        start: b.start,
        created_at: "2026-11-22T10:00:01.000Z",
        last_used_at: null,
        status: "active",
        revoked_at: null,
        scopes: ["generate", "read", "files", "webhooks", "billing"],
        credit_limit: null,
      },
      {
        key_id: a.key_id,
        name: "a",
        start: a.start,
        created_at: "2026-11-22T10:00:00.000Z",
        last_used_at: null,
        status: "revoked",
        revoked_at: "2026-11-22T10:00:02.000Z",
        scopes: ["generate", "read", "files", "webhooks", "billing"],
        credit_limit: null,
      },
    ]);
    expect(JSON.stringify(list)).not.toContain(a.key);
    expect(JSON.stringify(list)).not.toContain(hashApiKey(a.key));
  });

  test("each user sees only their own keys", async () => {
    const u1 = insertUser(db);
    const u2 = insertUser(db);
    await createApiKey(db, { userId: u1.id, name: "mine" }, clock);
    expect(await listApiKeys(db, u2.id, clock)).toEqual([]);
  });

  // docs/decisions/088-revoked-keys-listed-30-days.md.
  test("a revoked key is listed for 30 days after its revocation, then no more; active keys stay however old", async () => {
    const u = insertUser(db);
    const gone = await createApiKey(db, { userId: u.id, name: "revoked first" }, clock);
    await createApiKey(db, { userId: u.id, name: "old but active" }, clock);
    await revokeApiKey(db, { userId: u.id, keyId: gone.key_id }, clock);
    clock.advance(10 * DAY_MS);
    const later = await createApiKey(db, { userId: u.id, name: "revoked later" }, clock);
    await revokeApiKey(db, { userId: u.id, keyId: later.key_id }, clock);
    const names = async () => (await listApiKeys(db, u.id, clock)).map((k) => k.name);

    clock.advance(20 * DAY_MS); // exactly 30 days after the first revocation: still listed (sorted: the first two share a millisecond)
    expect((await names()).sort()).toEqual(["old but active", "revoked first", "revoked later"]);
    clock.advance(1); // 30 days and 1 ms
    expect(await names()).toEqual(["revoked later", "old but active"]);
    clock.advance(10 * DAY_MS);
    expect(await names()).toEqual(["old but active"]);
    // Out of the list, not out of the database: the key still answers "API key revoked", and revoking it again is the same answer.
    await expect(authenticateApiKey(db, gone.key, clock)).rejects.toThrow("API key revoked");
    expect(await revokeApiKey(db, { userId: u.id, keyId: gone.key_id }, clock)).toEqual({
      key_id: gone.key_id,
      status: "revoked",
    });
    expect((await getApiKey(db, u.id, gone.key_id)).revoked_at).toBe("2026-11-22T10:00:00.000Z");
  });
});

describe("revoke (spec 3.2)", () => {
  test("active → revoked; the key is rejected with 'API key revoked' from then on", async () => {
    const u = insertUser(db);
    const k = await createApiKey(db, { userId: u.id, name: "k" }, clock);
    expect(await authenticateApiKey(db, k.key, clock)).toEqual({ keyId: k.key_id, userId: u.id, scopes: KEY_SCOPES });
    expect(await revokeApiKey(db, { userId: u.id, keyId: k.key_id }, clock)).toEqual({
      key_id: k.key_id,
      status: "revoked",
    });
    const e = await errorOf(authenticateApiKey(db, k.key, clock));
    expect(e.message).toBe("API key revoked");
    expect(e.status).toBe(401);
  });

  test("revoking again answers the same and keeps the first revocation time; nothing makes it active again", async () => {
    const u = insertUser(db);
    const k = await createApiKey(db, { userId: u.id, name: "k" }, clock);
    await revokeApiKey(db, { userId: u.id, keyId: k.key_id }, clock);
    const first = db.select().from(apiKeys).where(eq(apiKeys.id, k.key_id)).get()!.revokedAt;
    clock.advance(5000);
    expect(await revokeApiKey(db, { userId: u.id, keyId: k.key_id }, clock)).toEqual({
      key_id: k.key_id,
      status: "revoked",
    });
    expect(db.select().from(apiKeys).where(eq(apiKeys.id, k.key_id)).get()!.revokedAt).toEqual(first);
    expect((await getApiKey(db, u.id, k.key_id)).status).toBe("revoked");
    await expect(authenticateApiKey(db, k.key, clock)).rejects.toThrow("API key revoked");
  });

  test("another user's key_id, or an unknown one → 'key not found', and the key stays active", async () => {
    const owner = insertUser(db);
    const other = insertUser(db);
    const k = await createApiKey(db, { userId: owner.id, name: "k" }, clock);
    const e = await errorOf(revokeApiKey(db, { userId: other.id, keyId: k.key_id }, clock));
    expect(e.code).toBe("KEY_ID_NOT_FOUND");
    expect(e.message).toBe("key not found");
    expect((await errorOf(revokeApiKey(db, { userId: owner.id, keyId: "nope" }, clock))).message).toBe("key not found");
    expect((await authenticateApiKey(db, k.key, clock)).userId).toBe(owner.id);
  });
});

describe("authenticate (spec §5)", () => {
  test("unknown, mistyped, empty → 'API key not found' (401)", async () => {
    const u = insertUser(db);
    const k = await createApiKey(db, { userId: u.id, name: "k" }, clock);
    const mistyped = k.key.slice(0, -1) + (k.key.endsWith("a") ? "b" : "a");
    for (const bad of ["atl_doesnotexist", mistyped, k.key.toUpperCase(), "", "   "]) {
      const e = await errorOf(authenticateApiKey(db, bad, clock));
      expect(e.message).toBe("API key not found");
      expect(e.status).toBe(401);
    }
  });

  test("last_used_at is stamped on use, then at most once a minute", async () => {
    const u = insertUser(db);
    const k = await createApiKey(db, { userId: u.id, name: "k" }, clock);
    const lastUsed = async () => (await getApiKey(db, u.id, k.key_id)).last_used_at;
    expect(await lastUsed()).toBeNull();
    clock.advance(10_000);
    await authenticateApiKey(db, k.key, clock);
    expect(await lastUsed()).toBe("2026-11-22T10:00:10.000Z");
    clock.advance(LAST_USED_RESOLUTION_MS - 1);
    await authenticateApiKey(db, k.key, clock);
    expect(await lastUsed()).toBe("2026-11-22T10:00:10.000Z");
    clock.advance(1);
    await authenticateApiKey(db, k.key, clock);
    expect(await lastUsed()).toBe("2026-11-22T10:01:10.000Z");
  });

  test("a revoked key's last_used_at no longer moves", async () => {
    const u = insertUser(db);
    const k = await createApiKey(db, { userId: u.id, name: "k" }, clock);
    await authenticateApiKey(db, k.key, clock);
    await revokeApiKey(db, { userId: u.id, keyId: k.key_id }, clock);
    clock.advance(10 * 60_000);
    await expect(authenticateApiKey(db, k.key, clock)).rejects.toThrow();
    expect((await getApiKey(db, u.id, k.key_id)).last_used_at).toBe("2026-11-22T10:00:00.000Z");
  });
});
