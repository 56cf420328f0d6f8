/**
 * API keys and rate limits over HTTP against the real server (spec §2.5, §3.2,
 * §5, §7, §8.2; docs/design.md §5).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashApiKey } from "~/domain/api-keys/authenticate.server";
import { Client, uniqueEmail } from "../../support/client";
import { makePremiumIn, openServerDb } from "../../support/db";
import { sqliteOnly } from "../../support/engine";
import { signUpAdmin } from "../../support/fixtures";
import { startServer, type TestServer } from "../../support/server";

let server: TestServer;
let api: Client;
const ADMIN = `admin-${Date.now().toString(36)}@example.test`;

beforeAll(async () => {
  server = await startServer({ env: { ADMIN_EMAILS: ADMIN } });
  api = new Client(server.url);
});
afterAll(async () => {
  await server?.dispose();
});

async function userWithKey(tag = "k", name = "script") {
  const email = uniqueEmail(tag);
  const { cookie, userId } = await api.signUp(email);
  const r = await api.post("/api/keys/create", { name }, { cookie });
  expect(r.body.code).toBe(0);
  return {
    email,
    cookie,
    userId,
    key: r.body.data.key as string,
    keyId: r.body.data.key_id as string,
    created: r.body.data,
  };
}

describe("POST /api/keys/create", () => {
  test("session: {key_id, key, name, start, created_at}; the key is atl_ + ≥128 bits", async () => {
    const { created, key } = await userWithKey("create", "  CI pipeline ");
    expect(Object.keys(created).sort()).toEqual([
      "created_at",
      "credit_limit",
      "key",
      "key_id",
      "name",
      "scopes",
      "start",
    ]);
    expect(key).toMatch(/^atl_[0-9A-Za-z]{32}$/);
    expect(created.name).toBe("CI pipeline");
    expect(key.startsWith(created.start)).toBe(true);
    expect(created.start.length).toBeLessThan(key.length / 2);
    expect(created.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  test("name must be 1..100 characters", async () => {
    const { cookie } = await api.signUp(uniqueEmail("name"));
    for (const body of [{}, { name: "" }, { name: "   " }, { name: "x".repeat(101) }, { name: 42 }]) {
      const r = await api.post("/api/keys/create", body, { cookie });
      expect(r.body).toEqual({ code: 1, message: "invalid params: name must be 1 to 100 characters", data: null });
    }
    expect((await api.post("/api/keys/create", { name: "x".repeat(100) }, { cookie })).body.code).toBe(0);
  });

  test("at most 25 active keys per user; revoking one makes room", async () => {
    const { cookie } = await api.signUp(uniqueEmail("max"));
    const ids: string[] = [];
    for (let i = 0; i < 25; i++)
      ids.push((await api.post("/api/keys/create", { name: `k${i}` }, { cookie })).body.data.key_id);
    const over = await api.post("/api/keys/create", { name: "26th" }, { cookie });
    expect(over.body).toEqual({ code: 1, message: "invalid params: at most 25 active API keys per user", data: null });
    await api.post("/api/keys/revoke", { key_id: ids[0] }, { cookie });
    expect((await api.post("/api/keys/create", { name: "26th" }, { cookie })).body.code).toBe(0);
  });

  test("not signed in → 'no auth, please sign-in'; GET → 405", async () => {
    for (const path of ["/api/keys/create", "/api/keys/list", "/api/keys/revoke"]) {
      expect((await api.post(path, { name: "x", key_id: "x" })).body).toEqual({
        code: 1,
        message: "no auth, please sign-in",
        data: null,
      });
      expect((await fetch(server.url + path)).status).toBe(405);
    }
  });
});

describe("authentication by key (spec §5)", () => {
  test("a key acts as its owner: get-user-info returns the owner's profile", async () => {
    const { key, email, userId } = await userWithKey("owner");
    const r = await api.post("/api/get-user-info", undefined, { apiKey: key });
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    expect(r.body.data.uuid).toBe(userId);
    expect(r.body.data.email).toBe(email);
  });

  test("wrong, mistyped, empty → 401 'API key not found', even next to a valid session", async () => {
    const { key, cookie } = await userWithKey("bad");
    const mistyped = key.slice(0, 10) + (key[10] === "a" ? "b" : "a") + key.slice(11);
    for (const bad of ["atl_0000000000000000000000000000000", mistyped, key.slice(0, -1), ""]) {
      const r = await api.post("/api/get-user-info", undefined, { apiKey: bad, cookie });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ code: 1, message: "API key not found", data: null });
    }
  });

  test("revoked → 401 'API key revoked'; revocation cannot be undone", async () => {
    const { key, keyId, cookie } = await userWithKey("revoke");
    expect((await api.post("/api/get-user-info", undefined, { apiKey: key })).status).toBe(200);
    const r = await api.post("/api/keys/revoke", { key_id: keyId }, { cookie });
    expect(r.body).toEqual({ code: 0, message: "ok", data: { key_id: keyId, status: "revoked" } });
    const after = await api.post("/api/get-user-info", undefined, { apiKey: key, cookie });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ code: 1, message: "API key revoked", data: null });
    // Revoking again changes nothing; it stays listed as revoked and never works again.
    expect((await api.post("/api/keys/revoke", { key_id: keyId }, { cookie })).body.data.status).toBe("revoked");
    await api.post("/api/keys/create", { name: "new one" }, { cookie });
    const list = (await api.post("/api/keys/list", undefined, { cookie })).body.data.keys;
    expect(list.find((k: any) => k.key_id === keyId).status).toBe("revoked");
    // When (listed for 30 days after it, docs/decisions/088-revoked-keys-listed-30-days.md); null for an active key.
    expect(list.find((k: any) => k.key_id === keyId).revoked_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(list.find((k: any) => k.name === "new one").revoked_at).toBeNull();
    expect((await api.post("/api/get-user-info", undefined, { apiKey: key })).body.message).toBe("API key revoked");
  });

  test("a key cannot manage keys (session-only endpoints answer 'forbidden')", async () => {
    const { key, keyId, cookie } = await userWithKey("mgmt");
    expect((await api.post("/api/keys/create", { name: "from key" }, { apiKey: key })).body).toEqual({
      code: 1,
      message: "forbidden",
      data: null,
    });
    expect((await api.post("/api/keys/list", undefined, { apiKey: key, cookie })).body.message).toBe("forbidden");
    expect((await api.post("/api/keys/revoke", { key_id: keyId }, { apiKey: key })).body.message).toBe("forbidden");
    expect((await api.post("/api/get-user-info", undefined, { apiKey: key })).status).toBe(200);
  });
});

describe("POST /api/keys/list and isolation", () => {
  test("lists name, start, created, last used, status — never the key; last_used_at updates on use", async () => {
    const { key, keyId, cookie, created } = await userWithKey("list");
    let list = (await api.post("/api/keys/list", undefined, { cookie })).body.data.keys;
    expect(list).toEqual([
      {
        key_id: keyId,
        name: "script",
        start: created.start,
        created_at: created.created_at,
        last_used_at: null,
        status: "active",
        revoked_at: null,
        scopes: ["generate", "read", "files", "webhooks", "billing"],
        credit_limit: null,
      },
    ]);
    await api.post("/api/get-user-info", undefined, { apiKey: key });
    list = (await api.post("/api/keys/list", undefined, { cookie })).body.data.keys;
    expect(list[0].last_used_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(Date.parse(list[0].last_used_at)).toBeGreaterThanOrEqual(Date.parse(created.created_at));
    expect(JSON.stringify(list)).not.toContain(key);
  });

  test("users cannot list or revoke each other's keys ('key not found')", async () => {
    const a = await userWithKey("iso-a");
    const b = await userWithKey("iso-b");
    const bList = (await api.post("/api/keys/list", undefined, { cookie: b.cookie })).body.data.keys;
    expect(bList.map((k: any) => k.key_id)).toEqual([b.keyId]);
    const r = await api.post("/api/keys/revoke", { key_id: a.keyId }, { cookie: b.cookie });
    expect(r.body).toEqual({ code: 1, message: "key not found", data: null });
    expect((await api.post("/api/keys/revoke", { key_id: "no-such-key" }, { cookie: b.cookie })).body.message).toBe(
      "key not found",
    );
    expect((await api.post("/api/get-user-info", undefined, { apiKey: a.key })).body.data.uuid).toBe(a.userId);
  });
});

describe("keys at rest", () => {
  sqliteOnly("reads the bytes of the SQLite file and its WAL")(
    "only hashes: the key text is in neither the database file nor its WAL after use",
    async () => {
      const { key } = await userWithKey("rest");
      for (let i = 0; i < 3; i++)
        expect((await api.post("/api/get-user-info", undefined, { apiKey: key })).status).toBe(200);
      const dbFile = join(server.dataDir, "atelier.db");
      const files = [dbFile, `${dbFile}-wal`].filter((f) => existsSync(f));
      expect(files).toContain(`${dbFile}-wal`);
      const bytes = files.map((f) => readFileSync(f));
      // The row was written (its hash is there), the key itself never.
      expect(bytes.some((b) => b.includes(Buffer.from(hashApiKey(key))))).toBe(true);
      for (const b of bytes) {
        expect(b.includes(Buffer.from(key))).toBe(false);
        expect(b.includes(Buffer.from(key.slice(4)))).toBe(false);
      }
      expect(server.logs()).not.toContain(key);
    },
  );
});

describe("rate limits (spec 8.2, docs/design.md §5)", () => {
  test("standard: a burst of 100 passes with headers, then 429 + Retry-After + envelope + headers", async () => {
    const { key } = await userWithKey("rl");
    const t0 = Date.now();
    const first = await api.post("/api/get-user-info", undefined, { apiKey: key });
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-policy")).toBe('"standard";q=100;w=60');
    expect(first.headers.get("x-ratelimit-limit")).toBe("100");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("99");
    expect(first.headers.get("ratelimit")).toMatch(/^"standard";r=99;t=\d+$/);
    expect(Number(first.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    let passed = 1;
    let over;
    for (;;) {
      const r = await api.post("/api/get-user-info", undefined, { apiKey: key });
      if (r.status !== 200) {
        over = r;
        break;
      }
      passed++;
    }
    // GCRA (docs/design.md §5): a burst of 100, then one more every 600 ms — the bound is 100 + elapsed / 600 ms.
    expect(passed).toBeGreaterThanOrEqual(100);
    expect(passed).toBeLessThanOrEqual(100 + Math.floor((Date.now() - t0) / 600));
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ code: 1, message: "Too Many Requests", data: null });
    const retry = Number(over.headers.get("retry-after"));
    expect(retry).toBe(1);
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(over.headers.get("ratelimit")).toBe(`"standard";r=0;t=${retry}`);
  });

  test("session requests are not limited", async () => {
    const { cookie } = await api.signUp(uniqueEmail("sess"));
    const results = await Promise.all(
      Array.from({ length: 120 }, () => api.post("/api/get-user-info", undefined, { cookie })),
    );
    expect(results.every((r) => r.status === 200 && r.body.code === 0)).toBe(true);
    expect(results[0]!.headers.get("ratelimit")).toBeNull();
  });

  test("premium at once: a user who becomes premium gets 500", async () => {
    const { key, userId } = await userWithKey("prem");
    expect((await api.post("/api/get-user-info", undefined, { apiKey: key })).headers.get("x-ratelimit-limit")).toBe(
      "100",
    );
    const db = await openServerDb(server.dataDir);
    await makePremiumIn(db, userId);
    await db.close();
    const r = await api.post("/api/get-user-info", undefined, { apiKey: key });
    expect(r.headers.get("ratelimit-policy")).toBe('"premium";q=500;w=60');
    // The standard request used 1 % of the window (600 ms): 5 premium requests' worth, this one a 6th.
    expect(Number(r.headers.get("x-ratelimit-remaining"))).toBeGreaterThanOrEqual(494);
    expect(Number(r.headers.get("x-ratelimit-remaining"))).toBeLessThanOrEqual(499);
  });

  test("an admin's key gets 1000", async () => {
    const { cookie } = await signUpAdmin(server, ADMIN, { via: "mailbox" });
    const key = (await api.post("/api/keys/create", { name: "admin" }, { cookie })).body.data.key;
    const r = await api.post("/api/get-user-info", undefined, { apiKey: key });
    expect(r.headers.get("ratelimit-policy")).toBe('"admin";q=1000;w=60');
  });

  test("admin key reaches /api/admin/list-users; a standard key gets 'forbidden'", async () => {
    const adminCookie = await api
      .signIn(ADMIN)
      .catch(async () => (await signUpAdmin(server, ADMIN, { via: "mailbox" })).cookie);
    const adminKey = (await api.post("/api/keys/create", { name: "admin2" }, { cookie: adminCookie })).body.data.key;
    const ok = await api.post("/api/admin/list-users", { page: 1, page_size: 10 }, { apiKey: adminKey });
    expect(ok.body.code).toBe(0);
    const { key } = await userWithKey("notadmin");
    const no = await api.post("/api/admin/list-users", { page: 1, page_size: 10 }, { apiKey: key });
    expect(no.body).toEqual({ code: 1, message: "forbidden", data: null });
  });
});

describe("rate limits across processes and windows", () => {
  let dataDir: string;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "atelier-it-shared-"));
    // 10 per 60 s: a burst of 10, then one more every 6 s (slow enough for a busy machine).
    const env = { RATE_LIMIT_STANDARD: "10", RATE_LIMIT_WINDOW_MS: "60000", KEY_CREATE_LIMIT: "3", JOBS: "off" };
    a = await startServer({ dataDir, env });
    b = await startServer({ dataDir, env });
  }, 30_000); // two servers starting on a busy machine can take longer than the default 5 s
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("two server processes sharing one database enforce one limit together, per user over all keys, and it refills", async () => {
    const ca = new Client(a.url);
    const cb = new Client(b.url);
    const { cookie } = await ca.signUp(uniqueEmail("shared"));
    const key = (await cb.post("/api/keys/create", { name: "shared" }, { cookie })).body.data.key;
    const key2 = (await ca.post("/api/keys/create", { name: "second" }, { cookie })).body.data.key;
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await (i % 2 ? ca : cb).post("/api/get-user-info", undefined, { apiKey: key })).status);
    expect(statuses).toEqual(Array(10).fill(200));
    const overA = await ca.post("/api/get-user-info", undefined, { apiKey: key });
    const overB = await cb.post("/api/get-user-info", undefined, { apiKey: key2 }); // the same user's other key
    expect([overA.status, overB.status]).toEqual([429, 429]);
    expect(overA.headers.get("ratelimit-policy")).toBe('"standard";q=10;w=60');
    const wait = Number(overB.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(6);
    await Bun.sleep(wait * 1000 + 50);
    expect((await ca.post("/api/get-user-info", undefined, { apiKey: key2 })).status).toBe(200);
  });

  test("concurrent requests through both processes never exceed the bound", async () => {
    const ca = new Client(a.url);
    const cb = new Client(b.url);
    const { cookie } = await ca.signUp(uniqueEmail("race"));
    const key = (await ca.post("/api/keys/create", { name: "race" }, { cookie })).body.data.key;
    const t0 = Date.now();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? ca : cb).post("/api/get-user-info", undefined, { apiKey: key })),
    );
    const passed = results.filter((r) => r.status === 200).length;
    expect(passed).toBeGreaterThanOrEqual(10);
    expect(passed).toBeLessThanOrEqual(10 + Math.floor((Date.now() - t0) / 6000));
    expect(results.filter((r) => r.status === 429)).toHaveLength(30 - passed);
  });

  test("key creation churn is bounded per user across processes (KEY_CREATE_LIMIT per hour)", async () => {
    const ca = new Client(a.url);
    const cb = new Client(b.url);
    const { cookie } = await ca.signUp(uniqueEmail("churn"));
    for (let i = 0; i < 3; i++) {
      const made = await (i % 2 ? ca : cb).post("/api/keys/create", { name: `churn ${i}` }, { cookie });
      expect(made.body.code).toBe(0);
      expect((await ca.post("/api/keys/revoke", { key_id: made.body.data.key_id }, { cookie })).body.code).toBe(0);
    }
    const over = await cb.post("/api/keys/create", { name: "one too many" }, { cookie });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ code: 1, message: "Too Many Requests", data: null });
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(1100); // 3 per hour: one more every 20 minutes
    expect((await cb.post("/api/keys/list", {}, { cookie })).body.data.keys).toHaveLength(3);
  });

  test("a session signed out through process A fails there at once and in process B within one second (B remembers cookies)", async () => {
    const ca = new Client(a.url);
    const cb = new Client(b.url);
    const { cookie } = await ca.signUp(uniqueEmail("signout"));
    // Both processes have just verified (and remembered) the cookie.
    expect((await ca.post("/api/get-user-credits", undefined, { cookie })).body.code).toBe(0);
    expect((await cb.post("/api/get-user-credits", undefined, { cookie })).body.code).toBe(0);
    const out = await fetch(`${a.url}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie, origin: a.url, "content-type": "application/json" },
      body: "{}",
    });
    expect(out.status).toBe(200);
    const signedOutAt = performance.now();
    const noAuth = { code: 1 as const, message: "no auth, please sign-in", data: null }; // spec §7: HTTP 200
    expect((await ca.post("/api/get-user-credits", undefined, { cookie })).body).toEqual(noAuth); // A: at once (its hook)
    let r;
    for (;;) {
      r = await cb.post("/api/get-user-credits", undefined, { cookie });
      if (r.body.code === 1 || performance.now() - signedOutAt > 5000) break;
      await Bun.sleep(20);
    }
    expect(r.body).toEqual(noAuth);
    // SESSION_RECHECK_MS (1 s) plus one poll and one request on a busy machine.
    expect(performance.now() - signedOutAt).toBeLessThan(1300);
  });

  test("a key revoked through process A fails in process B within one second (B caches keys)", async () => {
    const ca = new Client(a.url);
    const cb = new Client(b.url);
    const { cookie } = await ca.signUp(uniqueEmail("revoke"));
    const made = (await ca.post("/api/keys/create", { name: "to revoke" }, { cookie })).body.data;
    // B has just read (and cached) the key.
    expect((await cb.post("/api/get-user-info", undefined, { apiKey: made.key })).status).toBe(200);
    expect((await ca.post("/api/keys/revoke", { key_id: made.key_id }, { cookie })).body.code).toBe(0);
    const revokedAt = performance.now();
    expect((await ca.post("/api/get-user-info", undefined, { apiKey: made.key })).status).toBe(401); // A: at once
    let r;
    for (;;) {
      r = await cb.post("/api/get-user-info", undefined, { apiKey: made.key });
      // 200 or 429 (this test's limit is 10 per 60 s): B still takes the key.
      if (r.status === 401 || performance.now() - revokedAt > 5000) break;
      await Bun.sleep(20);
    }
    const ms = performance.now() - revokedAt;
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ code: 1, message: "API key revoked", data: null });
    // REVALIDATE_MS (1 s) plus one poll and one request on a busy machine.
    expect(ms).toBeLessThan(1300);
  });
});
