/** Spec 4.8–4.12 and the credit rules of docs/design.md §3, over HTTP against the real server. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { creditGrants, feedback, orders } from "#db/schema";
import { MESSAGES } from "~/domain/account/messages";
import { Client, uniqueEmail } from "../../support/client";
import { insertApiKey, openServerDb } from "../../support/db";
import { startServer, type TestServer } from "../../support/server";

let server: TestServer;
let api: Client;
let db: Db;

const NO_AUTH = { code: 1 as const, message: "no auth, please sign-in", data: null };
const INVALID = { code: 1 as const, message: "invalid params", data: null };
const DAY = 86_400_000;

beforeAll(async () => {
  server = await startServer();
  api = new Client(server.url);
  db = await openServerDb(server.dataDir);
});
afterAll(async () => {
  await db?.close();
  await server?.dispose();
});

const ENDPOINTS = [
  "/api/get-user-credits",
  "/api/get-user-subscription",
  "/api/ping",
  "/api/update-invite",
  "/api/add-feedback",
];

describe("security shared by the account endpoints", () => {
  for (const path of ENDPOINTS) {
    test(`${path}: no session → 'no auth, please sign-in'; a forged cookie too; GET → 405`, async () => {
      expect((await api.post(path, {})).body).toEqual(NO_AUTH);
      expect((await api.post(path, {}, { cookie: "atelier.session_token=forged.value" })).body).toEqual(NO_AUTH);
      const get = await fetch(server.url + path);
      expect(get.status).toBe(405);
    });
    test(`${path}: unknown and revoked API keys → HTTP 401`, async () => {
      const r = await api.post(path, {}, { apiKey: "atl_not-a-real-key" });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ code: 1, message: "API key not found", data: null });
      const { userId } = await api.signUp(uniqueEmail("revoked"));
      const revoked = await insertApiKey(db, userId, "revoked");
      const r2 = await api.post(path, {}, { apiKey: revoked });
      expect(r2.status).toBe(401);
      expect(r2.body.message).toBe("API key revoked");
    });
  }
});

describe("POST /api/get-user-credits (spec 4.8)", () => {
  test("a new account: exactly {left_credits, total_credits}, the sign-up bonus of 10", async () => {
    const { cookie } = await api.signUp(uniqueEmail("credits"));
    const r = await api.post("/api/get-user-credits", undefined, { cookie });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ code: 0, message: "ok", data: { left_credits: 10, total_credits: 10 } });
  });

  test("the sign-up grant expires after 1 year (source signup)", async () => {
    const { userId } = await api.signUp(uniqueEmail("signup-grant"));
    const g = await db.many(db.select().from(creditGrants).where(eq(creditGrants.userId, userId)));
    expect(g).toHaveLength(1);
    expect(g[0]).toMatchObject({ source: "signup", amount: 10, remaining: 10 });
    expect(g[0]!.expiresAt!.getTime() - g[0]!.createdAt.getTime()).toBe(365 * DAY);
  });

  test("an API key acts as its owner", async () => {
    const { cookie, userId } = await api.signUp(uniqueEmail("key-owner"));
    await api.post("/api/ping", undefined, { cookie });
    const key = await insertApiKey(db, userId);
    const r = await api.post("/api/get-user-credits", undefined, { apiKey: key });
    expect(r.body.data).toEqual({ left_credits: 11, total_credits: 11 });
  });

  test("left counts only unexpired grants; total counts every grant ever made", async () => {
    const { cookie, userId } = await api.signUp(uniqueEmail("expired"));
    await db.run(
      db.insert(creditGrants).values([
        {
          id: crypto.randomUUID(),
          userId,
          amount: 4,
          remaining: 4,
          source: "admin",
          expiresAt: new Date(Date.now() - 1000),
          createdAt: new Date(Date.now() - DAY),
        },
        {
          id: crypto.randomUUID(),
          userId,
          amount: 6,
          remaining: 2,
          source: "order",
          expiresAt: null,
          createdAt: new Date(),
        },
      ]),
    );
    const r = await api.post("/api/get-user-credits", undefined, { cookie });
    expect(r.body.data).toEqual({ left_credits: 12, total_credits: 20 });
  });

  test("each user sees only their own balance", async () => {
    const a = await api.signUp(uniqueEmail("iso-a"));
    const b = await api.signUp(uniqueEmail("iso-b"));
    await api.post("/api/ping", undefined, { cookie: a.cookie });
    expect((await api.post("/api/get-user-credits", undefined, { cookie: a.cookie })).body.data.left_credits).toBe(11);
    expect((await api.post("/api/get-user-credits", undefined, { cookie: b.cookie })).body.data.left_credits).toBe(10);
  });
});

describe("POST /api/ping (spec 4.10)", () => {
  test("first call of the day adds 1 credit; further calls add nothing, both code 0", async () => {
    const { cookie, userId } = await api.signUp(uniqueEmail("ping"));
    const first = await api.post("/api/ping", undefined, { cookie });
    expect(first.status).toBe(200);
    expect(first.body.code).toBe(0);
    expect(first.body.message).toBe(MESSAGES.PING_ADDED);
    expect(first.body.message).toBe("ping ok: 1 credit added");
    const today = new Date().toISOString().slice(0, 10);
    expect(first.body.data).toEqual({ added: true, day: today, left_credits: 11, total_credits: 11 });

    for (let i = 0; i < 2; i++) {
      const again = await api.post("/api/ping", undefined, { cookie });
      expect(again.body.code).toBe(0);
      expect(again.body.message).toBe("already pinged today");
      expect(again.body.data).toEqual({ added: false, day: today, left_credits: 11, total_credits: 11 });
    }
    const grants = await db.many(
      db
        .select()
        .from(creditGrants)
        .where(and(eq(creditGrants.userId, userId), eq(creditGrants.source, "checkin"))),
    );
    expect(grants).toHaveLength(1);
    // The credit expires after 1 year.
    expect(grants[0]!.expiresAt!.getTime() - grants[0]!.createdAt.getTime()).toBe(365 * DAY);
  });

  test("20 concurrent pings from two server processes on one database add exactly one credit", async () => {
    const second = await startServer({ dataDir: server.dataDir, env: { JOBS: "off" } });
    try {
      const { cookie } = await api.signUp(uniqueEmail("ping-race"));
      const other = new Client(second.url);
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? other : api).post("/api/ping", undefined, { cookie })),
      );
      expect(replies.every((r) => r.body.code === 0)).toBe(true);
      expect(replies.filter((r) => r.body.message === MESSAGES.PING_ADDED)).toHaveLength(1);
      expect(replies.filter((r) => r.body.message === MESSAGES.PING_ALREADY)).toHaveLength(19);
      expect((await api.post("/api/get-user-credits", undefined, { cookie })).body.data).toEqual({
        left_credits: 11,
        total_credits: 11,
      });
    } finally {
      await second.stop();
    }
  }, 60_000);

  test("one user's check-in is not another's", async () => {
    const a = await api.signUp(uniqueEmail("ping-a"));
    const b = await api.signUp(uniqueEmail("ping-b"));
    expect((await api.post("/api/ping", undefined, { cookie: a.cookie })).body.message).toBe(MESSAGES.PING_ADDED);
    expect((await api.post("/api/ping", undefined, { cookie: b.cookie })).body.message).toBe(MESSAGES.PING_ADDED);
  });
});

describe("POST /api/get-user-subscription (spec 4.9)", () => {
  test("none → code 0 and data null", async () => {
    const { cookie } = await api.signUp(uniqueEmail("nosub"));
    expect((await api.post("/api/get-user-subscription", undefined, { cookie })).body).toEqual({
      code: 0,
      message: "ok",
      data: null,
    });
  });

  test("an active paid order → exactly the fields of spec 2.3; expired or unpaid ones → null; never another user's", async () => {
    const a = await api.signUp(uniqueEmail("sub-a"));
    const b = await api.signUp(uniqueEmail("sub-b"));
    const created = new Date(Date.now() - 1000);
    await db.run(
      db.insert(orders).values([
        {
          orderNo: `O-${a.userId}-old`,
          userId: a.userId,
          productId: "old",
          productName: "Old",
          interval: "month",
          amount: 1,
          status: "paid",
          subId: "s0",
          periodEnd: new Date(Date.now() - 1),
          createdAt: new Date(Date.now() - 40 * DAY),
        },
        {
          orderNo: `O-${a.userId}-x`,
          userId: a.userId,
          productId: "refund",
          productName: "R",
          interval: "month",
          amount: 1,
          status: "refunded",
          subId: "s1",
          periodEnd: new Date(Date.now() + DAY),
          createdAt: new Date(),
        },
      ]),
    );
    expect((await api.post("/api/get-user-subscription", undefined, { cookie: a.cookie })).body.data).toBeNull();

    await db.run(
      db.insert(orders).values({
        orderNo: `O-${a.userId}`,
        userId: a.userId,
        productId: "pro",
        productName: "Pro",
        interval: "month",
        amount: 990,
        status: "paid",
        subId: "sub_123",
        periodEnd: new Date(Date.now() + 30 * DAY),
        createdAt: created,
      }),
    );
    const r = await api.post("/api/get-user-subscription", undefined, { cookie: a.cookie });
    expect(r.body).toEqual({
      code: 0,
      message: "ok",
      data: {
        order_no: `O-${a.userId}`,
        product_id: "pro",
        product_name: "Pro",
        interval: "month",
        amount: 990,
        status: "paid",
        sub_id: "sub_123",
        created_at: created.toISOString(),
      },
    });
    expect((await api.post("/api/get-user-subscription", undefined, { cookie: b.cookie })).body.data).toBeNull();
  });
});

describe("POST /api/update-invite (spec 4.11)", () => {
  test("switches is_affiliate on and off → {uuid, email, is_affiliate}", async () => {
    const email = uniqueEmail("aff");
    const { cookie, userId } = await api.signUp(email);
    const on = await api.post("/api/update-invite", { is_affiliate: true }, { cookie });
    expect(on.body).toEqual({
      code: 0,
      message: MESSAGES.AFFILIATE_UPDATED,
      data: { uuid: userId, email, is_affiliate: true },
    });
    expect((await api.post("/api/get-user-info", undefined, { cookie })).body.data.is_affiliate).toBe(true);
    const again = await api.post("/api/update-invite", { is_affiliate: true }, { cookie });
    expect(again.body.data.is_affiliate).toBe(true);
    const off = await api.post("/api/update-invite", { is_affiliate: false }, { cookie });
    expect(off.body.data).toEqual({ uuid: userId, email, is_affiliate: false });
    expect((await api.post("/api/get-user-info", undefined, { cookie })).body.data.is_affiliate).toBe(false);
  });

  test("only a JSON boolean: strings, numbers, null, missing, arrays and non-JSON → invalid params", async () => {
    const { cookie } = await api.signUp(uniqueEmail("aff-bad"));
    for (const body of [
      { is_affiliate: "true" },
      { is_affiliate: 1 },
      { is_affiliate: 0 },
      { is_affiliate: null },
      {},
      [true],
      "true",
    ]) {
      const r = await api.post("/api/update-invite", body, { cookie });
      expect({ body, reply: r.body }).toEqual({ body, reply: INVALID });
    }
    const garbage = await api.post("/api/update-invite", "{is_affiliate: true", { cookie });
    expect(garbage.body).toEqual({ code: 1, message: "invalid params: body is not valid JSON", data: null });
    expect((await api.post("/api/get-user-info", undefined, { cookie })).body.data.is_affiliate).toBe(false);
  });

  test("changes only the caller's own status", async () => {
    const a = await api.signUp(uniqueEmail("aff-a"));
    const b = await api.signUp(uniqueEmail("aff-b"));
    await api.post("/api/update-invite", { is_affiliate: true, uuid: b.userId }, { cookie: a.cookie });
    expect((await api.post("/api/get-user-info", undefined, { cookie: a.cookie })).body.data.is_affiliate).toBe(true);
    expect((await api.post("/api/get-user-info", undefined, { cookie: b.cookie })).body.data.is_affiliate).toBe(false);
  });
});

describe("POST /api/add-feedback (spec 4.12)", () => {
  test("valid feedback → code 0, a success message, data null; stored with its author", async () => {
    const { cookie, userId } = await api.signUp(uniqueEmail("fb"));
    const r = await api.post("/api/add-feedback", { content: "Lovely foxes.", rating: 5 }, { cookie });
    expect(r.body).toEqual({ code: 0, message: "feedback received, thank you", data: null });
    const rows = await db.many(db.select().from(feedback).where(eq(feedback.userId, userId)));
    expect(rows.map((f) => [f.content, f.rating])).toEqual([["Lovely foxes.", 5]]);
  });

  test("bounds: rating 1 and 5, content of exactly 5000 characters (emoji count as one)", async () => {
    const { cookie } = await api.signUp(uniqueEmail("fb-ok"));
    for (const body of [
      { content: "x", rating: 1 },
      { content: "y".repeat(5000), rating: 5 },
      { content: "🦊".repeat(5000), rating: 3 },
    ]) {
      expect((await api.post("/api/add-feedback", body, { cookie })).body.code).toBe(0);
    }
  });

  const cases: [string, unknown, string][] = [
    ["content missing", { rating: 3 }, "invalid params: content is required"],
    ["content empty", { content: "", rating: 3 }, "invalid params: content is required"],
    ["content blank", { content: "   \n ", rating: 3 }, "invalid params: content is required"],
    [
      "content 5001 characters",
      { content: "z".repeat(5001), rating: 3 },
      "invalid params: content too long (max 5000)",
    ],
    ["content not a string", { content: 42, rating: 3 }, "invalid params: content must be a string"],
    ["rating 0", { content: "ok", rating: 0 }, "invalid params: rating must be an integer from 1 to 5"],
    ["rating 6", { content: "ok", rating: 6 }, "invalid params: rating must be an integer from 1 to 5"],
    ["rating 4.5", { content: "ok", rating: 4.5 }, "invalid params: rating must be an integer from 1 to 5"],
    ["rating as a string", { content: "ok", rating: "5" }, "invalid params: rating must be an integer from 1 to 5"],
    ["rating missing", { content: "ok" }, "invalid params: rating must be an integer from 1 to 5"],
    ["rating null", { content: "ok", rating: null }, "invalid params: rating must be an integer from 1 to 5"],
    ["a JSON array", [{ content: "ok", rating: 3 }], "invalid params"],
    ["not JSON", "content=ok&rating=3", "invalid params: body is not valid JSON"],
    // PostgreSQL cannot store U+0000 in text: refused on both engines before anything is written.
    [
      "a NUL character in the text",
      { content: "a\u0000b", rating: 3 },
      "invalid params: text must not contain NUL characters",
    ],
  ];
  for (const [name, body, message] of cases) {
    test(`${name} → '${message}', nothing stored`, async () => {
      const { cookie, userId } = await api.signUp(uniqueEmail("fb-bad"));
      const r = await api.post("/api/add-feedback", body, { cookie });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ code: 1, message, data: null });
      expect(await db.many(db.select().from(feedback).where(eq(feedback.userId, userId)))).toEqual([]);
    });
  }
});
