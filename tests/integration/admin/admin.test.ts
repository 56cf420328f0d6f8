/** docs/design.md §6: admin endpoints (admin session or admin key) and the admin CLI. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { creditGrants } from "#db/schema";
import { Client, uniqueEmail } from "../../support/client";
import { insertApiKey, openServerDb } from "../../support/db";
import { runAdmin, signUpAdmin } from "../../support/fixtures";
import { runAtelier, startServer, type TestServer } from "../../support/server";

let server: TestServer;
let api: Client;
let db: Db;
let admin: { cookie: string; userId: string; key: string };
let member: { cookie: string; userId: string; key: string; email: string };

const ADMIN_EMAIL = "root@admin.test";
const DAY = 86_400_000;

beforeAll(async () => {
  server = await startServer({ env: { ADMIN_EMAILS: `someone@else.test, ${ADMIN_EMAIL.toUpperCase()}` } });
  api = new Client(server.url);
  db = await openServerDb(server.dataDir);
  // Admin by ADMIN_EMAILS (matched without case) once the mailbox confirmed the address.
  const a = await signUpAdmin(server, ADMIN_EMAIL, { via: "mailbox" });
  admin = { ...a, key: await insertApiKey(db, a.userId) };
  const email = uniqueEmail("member");
  const m = await api.signUp(email);
  member = { ...m, email, key: await insertApiKey(db, m.userId) };
});
afterAll(async () => {
  void db?.close();
  await server?.dispose();
});

const ADMIN_ENDPOINTS: [string, unknown][] = [
  ["/api/admin/grant-credits", { email: "x@y.test", credits: 1 }],
  [
    "/api/admin/create-subscription",
    { email: "x@y.test", product_id: "p", product_name: "P", interval: "month", amount: 1 },
  ],
  ["/api/admin/list-users", {}],
];

describe("who may call the admin endpoints", () => {
  for (const [path, body] of ADMIN_ENDPOINTS) {
    test(`${path}: anonymous → no auth; member session or key → forbidden; GET → 405`, async () => {
      expect((await api.post(path, body)).body).toEqual({ code: 1, message: "no auth, please sign-in", data: null });
      const bySession = await api.post(path, body, { cookie: member.cookie });
      expect(bySession.status).toBe(200);
      expect(bySession.body).toEqual({ code: 1, message: "forbidden", data: null });
      expect((await api.post(path, body, { apiKey: member.key })).body).toEqual({
        code: 1,
        message: "forbidden",
        data: null,
      });
      expect((await api.post(path, body, { apiKey: "atl_bogus" })).status).toBe(401);
      expect((await fetch(server.url + path)).status).toBe(405);
    });
  }

  test("a forbidden grant changes nothing", async () => {
    await api.post("/api/admin/grant-credits", { user_uuid: member.userId, credits: 1000 }, { cookie: member.cookie });
    expect((await api.post("/api/get-user-credits", undefined, { cookie: member.cookie })).body.data.left_credits).toBe(
      10,
    );
  });
});

describe("POST /api/admin/grant-credits", () => {
  test("by email with the admin session → the new balance; credits never expire by default", async () => {
    const email = uniqueEmail("grant");
    const u = await api.signUp(email);
    const r = await api.post(
      "/api/admin/grant-credits",
      { email: email.toUpperCase(), credits: 25 },
      { cookie: admin.cookie },
    );
    expect(r.body).toEqual({
      code: 0,
      message: "credits granted",
      data: { uuid: u.userId, email, granted: 25, expires_at: null, left_credits: 35, total_credits: 35 },
    });
    expect((await api.post("/api/get-user-credits", undefined, { cookie: u.cookie })).body.data).toEqual({
      left_credits: 35,
      total_credits: 35,
    });
    const g = (await db.many(db.select().from(creditGrants).where(eq(creditGrants.userId, u.userId)))).find(
      (x) => x.source === "admin",
    )!;
    expect(g).toMatchObject({ amount: 25, remaining: 25, expiresAt: null });
  });

  test("by user_uuid with an admin API key, expiring after expires_in_days", async () => {
    const u = await api.signUp(uniqueEmail("grant-key"));
    const before = Date.now();
    const r = await api.post(
      "/api/admin/grant-credits",
      { user_uuid: u.userId, credits: 3, expires_in_days: 30 },
      { apiKey: admin.key },
    );
    expect(r.body.code).toBe(0);
    expect(r.body.data).toMatchObject({ uuid: u.userId, granted: 3, left_credits: 13, total_credits: 13 });
    const exp = Date.parse(r.body.data.expires_at);
    expect(exp).toBeGreaterThanOrEqual(before + 30 * DAY);
    expect(exp).toBeLessThanOrEqual(Date.now() + 30 * DAY);
  });

  test("unknown user → 'user not found'", async () => {
    expect(
      (
        await api.post(
          "/api/admin/grant-credits",
          { email: "ghost@nowhere.test", credits: 1 },
          { cookie: admin.cookie },
        )
      ).body,
    ).toEqual({
      code: 1,
      message: "user not found",
      data: null,
    });
    expect(
      (
        await api.post(
          "/api/admin/grant-credits",
          { user_uuid: crypto.randomUUID(), credits: 1 },
          { cookie: admin.cookie },
        )
      ).body.message,
    ).toBe("user not found");
  });

  const bad: [unknown, string][] = [
    [{ credits: 5 }, "invalid params: give either email or user_uuid"],
    [{ email: "a@b.test", user_uuid: "u", credits: 5 }, "invalid params: give either email or user_uuid"],
    [{ email: "a@b.test" }, "invalid params: credits must be an integer from 1 to 1000000"],
    [{ email: "a@b.test", credits: 0 }, "invalid params: credits must be an integer from 1 to 1000000"],
    [{ email: "a@b.test", credits: "5" }, "invalid params: credits must be an integer from 1 to 1000000"],
    [{ email: "a@b.test", credits: 1.5 }, "invalid params: credits must be an integer from 1 to 1000000"],
    [
      { email: "a@b.test", credits: 1, expires_in_days: -1 },
      "invalid params: expires_in_days must be an integer from 1 to 36500",
    ],
    [{ email: 7, credits: 1 }, "invalid params: email must be a string"],
    [[], "invalid params"],
  ];
  for (const [body, message] of bad) {
    test(`${JSON.stringify(body)} → '${message}'`, async () => {
      expect((await api.post("/api/admin/grant-credits", body, { cookie: admin.cookie })).body).toEqual({
        code: 1,
        message,
        data: null,
      });
    });
  }
});

describe("POST /api/admin/create-subscription", () => {
  test("records a paid monthly order → the subscription; the user sees it and becomes premium", async () => {
    const email = uniqueEmail("subscriber");
    const u = await api.signUp(email);
    const r = await api.post(
      "/api/admin/create-subscription",
      { email, product_id: "pro", product_name: "Pro", interval: "month", amount: 990, sub_id: "sub_abc" },
      { cookie: admin.cookie },
    );
    expect(r.body.code).toBe(0);
    expect(r.body.message).toBe("subscription created");
    const s = r.body.data;
    expect(s).toMatchObject({
      user_uuid: u.userId,
      email,
      product_id: "pro",
      product_name: "Pro",
      interval: "month",
      amount: 990,
      status: "paid",
      sub_id: "sub_abc",
    });
    expect(s.order_no).toMatch(/^ORD-\d{8}-[0-9A-F]{12}$/);
    const created = new Date(s.created_at);
    const end = new Date(s.period_end);
    expect(end.getUTCMonth()).toBe((created.getUTCMonth() + 1) % 12);

    const mine = await api.post("/api/get-user-subscription", undefined, { cookie: u.cookie });
    const { user_uuid, email: _e, period_end, ...spec23 } = s;
    expect(mine.body.data).toEqual(spec23);
    const list = await api.post("/api/admin/list-users", { page_size: 100 }, { cookie: admin.cookie });
    expect(list.body.data.users.find((x: { uuid: string }) => x.uuid === u.userId).tier).toBe("premium");
  });

  test("a period_end in the past records the order but the user has no active subscription", async () => {
    const u = await api.signUp(uniqueEmail("lapsed"));
    const r = await api.post(
      "/api/admin/create-subscription",
      {
        user_uuid: u.userId,
        product_id: "pro",
        product_name: "Pro",
        interval: "year",
        amount: 1,
        period_end: "2020-01-01T00:00:00Z",
      },
      { apiKey: admin.key },
    );
    expect(r.body.data.period_end).toBe("2020-01-01T00:00:00.000Z");
    expect((await api.post("/api/get-user-subscription", undefined, { cookie: u.cookie })).body.data).toBeNull();
  });

  test("invalid interval or amount, unknown user", async () => {
    const base = { user_uuid: member.userId, product_id: "p", product_name: "P", interval: "month", amount: 1 };
    const send = (b: unknown) => api.post("/api/admin/create-subscription", b, { cookie: admin.cookie });
    expect((await send({ ...base, interval: "weekly" })).body.message).toBe(
      "invalid params: interval must be one of month, year, one-time",
    );
    expect((await send({ ...base, amount: -5 })).body.message).toBe(
      "invalid params: amount must be a non-negative integer",
    );
    expect((await send({ ...base, product_name: undefined })).body.message).toBe(
      "invalid params: product_name must be a string",
    );
    expect((await send({ ...base, user_uuid: "nope" })).body).toEqual({
      code: 1,
      message: "user not found",
      data: null,
    });
    expect((await api.post("/api/get-user-subscription", undefined, { cookie: member.cookie })).body.data).toBeNull();
  });
});

describe("POST /api/admin/list-users", () => {
  test("users newest first with balance and tier; pages; page_size clamped to 100", async () => {
    const r = await api.post("/api/admin/list-users", {}, { apiKey: admin.key });
    expect(r.body.code).toBe(0);
    const d = r.body.data;
    expect(d.page).toBe(1);
    expect(d.page_size).toBe(20);
    expect(d.total).toBeGreaterThanOrEqual(2);
    const me = d.users.find((u: { email: string }) => u.email === ADMIN_EMAIL);
    expect(me).toMatchObject({ uuid: admin.userId, tier: "admin", left_credits: 10, total_credits: 10 });
    const m = d.users.find((u: { uuid: string }) => u.uuid === member.userId);
    expect(Object.keys(m).sort()).toEqual([
      "created_at",
      "email",
      "left_credits",
      "nickname",
      "suspended",
      "tier",
      "total_credits",
      "uuid",
    ]);
    expect(m.tier).toBe("standard");
    const times = d.users.map((u: { created_at: string }) => Date.parse(u.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const p1 = await api.post("/api/admin/list-users", { page: 1, page_size: 1 }, { cookie: admin.cookie });
    const p2 = await api.post("/api/admin/list-users", { page: 2, page_size: 1 }, { cookie: admin.cookie });
    expect(p1.body.data.users).toHaveLength(1);
    expect(p2.body.data.users[0].uuid).not.toBe(p1.body.data.users[0].uuid);
    expect(
      (await api.post("/api/admin/list-users", { page_size: 5000 }, { cookie: admin.cookie })).body.data.page_size,
    ).toBe(100);
    expect((await api.post("/api/admin/list-users", { page: 0 }, { cookie: admin.cookie })).body.message).toBe(
      "invalid params: page must be an integer ≥ 1",
    );
    expect((await api.post("/api/admin/list-users", { page_size: "10" }, { cookie: admin.cookie })).body.message).toBe(
      "invalid params: page_size must be an integer ≥ 1",
    );
  });
});

describe("admin CLI (bun app/cli.ts admin …) against the same DATA_DIR", () => {
  const cli = (...args: string[]) => runAdmin(server, args, { ADMIN_EMAILS: ADMIN_EMAIL });

  test("--help lists the actions", async () => {
    const r = await cli("--help");
    expect(r.code).toBe(0);
    for (const a of ["grant-credits", "create-subscription", "list-users", "--expires-in-days"])
      expect(r.stdout).toContain(a);
    const top = await runAtelier(["--help"], { env: { PATH: process.env.PATH!, DATA_DIR: server.dataDir } });
    expect(top.stdout).toContain("admin <action>");
  }, 30_000);

  test("grant-credits by email: the running server sees the new balance", async () => {
    const email = uniqueEmail("cli");
    const u = await api.signUp(email);
    const r = await cli("grant-credits", "--email", email, "--credits", "7", "--expires-in-days", "10");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^granted 7 credits to ${email.replace(/[.]/g, "\\.")} \\(expires \\d{4}-.+Z\\): balance 17, lifetime 17\\n$`,
      ),
    );
    expect((await api.post("/api/get-user-credits", undefined, { cookie: u.cookie })).body.data).toEqual({
      left_credits: 17,
      total_credits: 17,
    });
  }, 30_000);

  test("create-subscription and list-users --json", async () => {
    const email = uniqueEmail("cli-sub");
    const u = await api.signUp(email);
    const s = await cli(
      "create-subscription",
      "--user-uuid",
      u.userId,
      "--product-id",
      "pro",
      "--product-name",
      "Pro",
      "--interval",
      "year",
      "--amount",
      "9900",
      "--json",
    );
    expect(s.code).toBe(0);
    const sub = JSON.parse(s.stdout);
    expect(sub).toMatchObject({
      user_uuid: u.userId,
      product_id: "pro",
      interval: "year",
      amount: 9900,
      status: "paid",
    });
    expect((await api.post("/api/get-user-subscription", undefined, { cookie: u.cookie })).body.data.order_no).toBe(
      sub.order_no,
    );

    const l = await cli("list-users", "--page-size", "100", "--json");
    expect(l.code).toBe(0);
    const users = JSON.parse(l.stdout).users as { uuid: string; tier: string; email: string }[];
    expect(users.find((x) => x.uuid === u.userId)!.tier).toBe("premium");
    expect(users.find((x) => x.email === ADMIN_EMAIL)!.tier).toBe("admin");
    const table = await cli("list-users");
    expect(table.stdout).toContain(ADMIN_EMAIL);
    expect(table.stdout).toMatch(/page 1 \(\d+ of \d+ users, page size 20\)/);
  }, 30_000);

  test("errors: unknown user (exit 1), invalid value (exit 1), unknown action or flag (exit 2)", async () => {
    const ghost = await cli("grant-credits", "--email", "ghost@nowhere.test", "--credits", "1");
    expect(ghost).toEqual({ code: 1, stdout: "", stderr: "error: user not found\n" });
    const badCredits = await cli("grant-credits", "--email", member.email, "--credits", "lots");
    expect(badCredits.code).toBe(1);
    expect(badCredits.stderr).toBe("error: invalid params: credits must be an integer from 1 to 1000000\n");
    expect((await cli("frobnicate")).code).toBe(2);
    expect((await cli("list-users", "--no-such-flag")).code).toBe(2);
    expect((await api.post("/api/get-user-credits", undefined, { cookie: member.cookie })).body.data.left_credits).toBe(
      10,
    );
  }, 60_000);
});
