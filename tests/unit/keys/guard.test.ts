/**
 * The shared guard of `api()` with X-API-Key (spec §5, §8.2; docs/design.md §5):
 * exercised in process on real route handlers with an in-memory database,
 * a real better-auth instance and a hand-moved clock.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createApiKey, revokeApiKey } from "~/domain/api-keys/keys.server";
import { api } from "~/http/api.server";
import { action as getUserCredits } from "~/routes/api/get-user-credits";
import { action as getUserInfo } from "~/routes/api/get-user-info";
import { action as keysList } from "~/routes/api/keys/list";
import { insertUser, installTestServices, makePremium, uninstallTestServices } from "../../support/services";

afterEach(uninstallTestServices);

const adminOnly = api({
  route: "/api/admin-only",
  auth: "admin",
  handler: ({ caller }) => ({ data: { admin: caller.user.email } }),
});

const call = async (
  action: (a: { request: Request }) => Promise<Response>,
  headers: Record<string, string> = {},
  body?: unknown,
) => {
  const res = await action({
    request: new Request("http://localhost/api/x", {
      method: "POST",
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as { code: number; message: string; data: any },
  };
};

async function sessionCookie(services: ReturnType<typeof installTestServices>["services"], email: string) {
  const { headers } = await services.auth.api.signUpEmail({
    body: { email, password: "correct-horse-battery", name: "S" },
    returnHeaders: true,
  });
  return headers.getSetCookie()[0]!.split(";")[0]!;
}

describe("a key acts as its owner", () => {
  test("get-user-info with a key returns the owner's profile", async () => {
    const { db, clock } = installTestServices();
    const u = insertUser(db, "owner@example.test");
    const k = await createApiKey(db, { userId: u.id, name: "k" }, clock);
    const r = await call(getUserInfo, { "x-api-key": k.key });
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    expect(r.body.data.uuid).toBe(u.id);
    expect(r.body.data.email).toBe("owner@example.test");
  });

  test("an admin's key reaches an admin endpoint; a standard user's key gets 'forbidden'", async () => {
    const { db, clock } = installTestServices({ ADMIN_EMAILS: "boss@example.test" });
    const admin = insertUser(db, "boss@example.test", { emailVerified: true });
    const plain = insertUser(db, "plain@example.test");
    const ak = await createApiKey(db, { userId: admin.id, name: "a" }, clock);
    const pk = await createApiKey(db, { userId: plain.id, name: "p" }, clock);
    expect((await call(adminOnly, { "x-api-key": ak.key })).body).toEqual({
      code: 0,
      message: "ok",
      data: { admin: "boss@example.test" },
    });
    const denied = await call(adminOnly, { "x-api-key": pk.key });
    expect(denied.status).toBe(200);
    expect(denied.body).toEqual({ code: 1, message: "forbidden", data: null });
    // Still a key response: it carries the rate-limit headers.
    expect(denied.headers.get("x-ratelimit-limit")).toBe("100");
    expect((await call(adminOnly, {})).body.message).toBe("no auth, please sign-in");
  });
});

describe("a bad key is rejected with 401 and never falls back to the session", () => {
  test("unknown, mistyped, empty and revoked keys, even with a valid session cookie", async () => {
    const { services, db, clock } = installTestServices();
    const cookie = await sessionCookie(services, "s@example.test");
    expect((await call(getUserInfo, { cookie })).body.code).toBe(0);
    const u = insertUser(db);
    const k = await createApiKey(db, { userId: u.id, name: "k" }, clock);
    const mistyped = `${k.key.slice(0, -2)}zz`;
    for (const [key, message] of [
      ["atl_unknownunknownunknownunknown0000", "API key not found"],
      [mistyped, "API key not found"],
      ["", "API key not found"],
    ] as const) {
      const r = await call(getUserInfo, { cookie, "x-api-key": key });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ code: 1, message, data: null });
    }
    await revokeApiKey(db, { userId: u.id, keyId: k.key_id }, clock);
    const r = await call(getUserInfo, { cookie, "x-api-key": k.key });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ code: 1, message: "API key revoked", data: null });
  });

  test("session-only endpoints (key management) refuse a key, even with a session cookie", async () => {
    const { services, db, clock } = installTestServices();
    const cookie = await sessionCookie(services, "m@example.test");
    const u = insertUser(db);
    const k = await createApiKey(db, { userId: u.id, name: "k" }, clock);
    expect((await call(keysList, { cookie })).body.code).toBe(0);
    expect((await call(keysList, { cookie, "x-api-key": k.key })).body).toEqual({
      code: 1,
      message: "forbidden",
      data: null,
    });
    expect((await call(keysList, { "x-api-key": "atl_nope" })).status).toBe(401);
  });
});

describe("rate limits in the guard", () => {
  test("standard: a burst of the limit, then 429, Retry-After, envelope, headers; one more fits every window/limit", async () => {
    const { db, clock } = installTestServices({ RATE_LIMIT_STANDARD: "5" });
    const u = insertUser(db);
    const k = await createApiKey(db, { userId: u.id, name: "k" }, clock);
    // 5 per 60 s = one per 12 s, a burst of 5. One request a second: the part of the window in use
    // grows by 12 s − 1 s each time (t = seconds until the whole quota is back; with none left,
    // until the next request fits).
    const expected = [
      [4, 12],
      [3, 23],
      [2, 34],
      [1, 45],
      [0, 8],
    ];
    for (const [remaining, t] of expected) {
      const r = await call(getUserInfo, { "x-api-key": k.key });
      expect(r.status).toBe(200);
      expect(r.headers.get("ratelimit-policy")).toBe('"standard";q=5;w=60');
      expect(r.headers.get("x-ratelimit-remaining")).toBe(String(remaining));
      expect(r.headers.get("ratelimit")).toBe(`"standard";r=${remaining};t=${t}`);
      clock.advance(1000);
    }
    const over = await call(getUserInfo, { "x-api-key": k.key });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ code: 1, message: "Too Many Requests", data: null });
    expect(over.headers.get("retry-after")).toBe("7");
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(over.headers.get("x-ratelimit-limit")).toBe("5");
    expect(over.headers.get("x-ratelimit-reset")).toBe(String(Math.ceil((clock.now() + 7_000) / 1000)));
    clock.advance(6_999);
    expect((await call(getUserInfo, { "x-api-key": k.key })).status).toBe(429);
    clock.advance(1);
    expect((await call(getUserInfo, { "x-api-key": k.key })).status).toBe(200);
  });

  test("tier read at request time: premium and admin limits", async () => {
    const { db, clock } = installTestServices({
      ADMIN_EMAILS: "root@example.test",
      RATE_LIMIT_STANDARD: "2",
      RATE_LIMIT_PREMIUM: "4",
      RATE_LIMIT_ADMIN: "6",
    });
    const u = insertUser(db);
    const k = await createApiKey(db, { userId: u.id, name: "k" }, clock);
    await call(getUserInfo, { "x-api-key": k.key });
    await call(getUserInfo, { "x-api-key": k.key });
    expect((await call(getUserInfo, { "x-api-key": k.key })).status).toBe(429);
    makePremium(db, u.id);
    // The whole window is in use (2 × 30 s); premium costs 15 s a request: one fits 15 s later
    // (standard would need 30 s).
    clock.advance(15_000);
    const r = await call(getUserInfo, { "x-api-key": k.key });
    expect(r.status).toBe(200);
    expect(r.headers.get("ratelimit-policy")).toBe('"premium";q=4;w=60');
    const admin = insertUser(db, "root@example.test", { emailVerified: true });
    const ak = await createApiKey(db, { userId: admin.id, name: "a" }, clock);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await call(getUserInfo, { "x-api-key": ak.key })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
  });

  test("all keys of one user share one budget (docs/design.md §5: per user); another user's key has its own", async () => {
    const { db, clock } = installTestServices({ RATE_LIMIT_STANDARD: "1" });
    const u = insertUser(db);
    const k1 = await createApiKey(db, { userId: u.id, name: "1" }, clock);
    const k2 = await createApiKey(db, { userId: u.id, name: "2" }, clock);
    const other = await createApiKey(db, { userId: insertUser(db).id, name: "o" }, clock);
    expect((await call(getUserInfo, { "x-api-key": k1.key })).status).toBe(200);
    expect((await call(getUserInfo, { "x-api-key": k1.key })).status).toBe(429);
    expect((await call(getUserInfo, { "x-api-key": k2.key })).status).toBe(429);
    expect((await call(getUserInfo, { "x-api-key": other.key })).status).toBe(200);
  });

  test("session requests are not limited and carry no rate-limit headers by default", async () => {
    const { services } = installTestServices({ RATE_LIMIT_STANDARD: "1" });
    const cookie = await sessionCookie(services, "free@example.test");
    for (let i = 0; i < 70; i++) {
      const r = await call(getUserInfo, { cookie });
      expect(r.status).toBe(200);
      expect(r.headers.get("ratelimit")).toBeNull();
    }
  });

  test("SESSION_RATE_LIMITS=true: the recommended limits apply per user and endpoint", async () => {
    const { services } = installTestServices({ SESSION_RATE_LIMITS: "true" });
    const cookie = await sessionCookie(services, "limited@example.test");
    const post = (action: typeof getUserInfo, path: string) =>
      action({ request: new Request(`http://localhost${path}`, { method: "POST", headers: { cookie } }) });
    for (let i = 0; i < 100; i++) expect((await post(getUserInfo, "/api/get-user-info")).status).toBe(200);
    const over = await post(getUserInfo, "/api/get-user-info");
    expect(over.status).toBe(429);
    expect(over.headers.get("ratelimit-policy")).toBe('"session-user-info";q=100;w=3600');
    // The bucket is the route's, whatever the URL says; another endpoint has its own budget (60/minute).
    expect((await post(getUserInfo, "/api/GET-USER-INFO")).status).toBe(429);
    const other = await post(getUserCredits, "/api/get-user-credits");
    expect(other.status).toBe(200);
    expect(other.headers.get("x-ratelimit-limit")).toBe("60");
  });
});
