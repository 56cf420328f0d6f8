/**
 * Redemption codes (docs/payments.md "Redemption codes"), real HTTP against a started server: an admin creates a code
 * (shown once, stored hashed), a user redeems it once, unknown and expired codes change nothing, members cannot
 * create, concurrent redemptions of the last use grant once, a re-created account cannot redeem again, and guessing
 * is rate-limited. Both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { redemptionCodes, user } from "#db/schema";
import { Client, uniqueEmail } from "../../support/client";
import { markVerified, openServerDb } from "../../support/db";
import { startServer, type TestServer } from "../../support/server";

let server: TestServer;
let api: Client;
let db: Db;
let admin: { cookie: string; userId: string };

beforeAll(async () => {
  server = await startServer({ env: { SIGNUP_CREDITS: "10" } });
  api = new Client(server.url);
  db = await openServerDb(server.dataDir);
  admin = await api.signUp("codes-admin@admin.test");
  await markVerified(db, admin.userId);
  await db.run(db.update(user).set({ role: "admin" }).where(eq(user.id, admin.userId)));
});
afterAll(async () => {
  void db?.close();
  await server?.dispose();
});

const create = async (body: Record<string, unknown>) => {
  const r = await api.post("/api/admin/codes/create", body, { cookie: admin.cookie });
  expect(r.body.code).toBe(0);
  return r.body.data.code as string;
};
const redeem = (cookie: string, code: string) => api.post("/api/redeem", { code }, { cookie });
const balance = async (cookie: string) =>
  (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits as number;

describe("the contract", () => {
  test("create → code shown once and stored hashed; redeem raises the balance; the same user again is refused", async () => {
    const code = await create({ credits: 50, max_uses: 10 });
    expect(code).toMatch(/^ATL-[A-Z2-9]{5}(-[A-Z2-9]{5}){3}$/);
    const stored = await db.many(db.select().from(redemptionCodes));
    expect(JSON.stringify(stored)).not.toContain(code);
    const u = await api.signUp(uniqueEmail("codes"));
    expect(await balance(u.cookie)).toBe(10);
    const first = await redeem(u.cookie, code);
    expect(first.body).toEqual({ code: 0, message: "code redeemed", data: { credits: 50, left_credits: 60 } });
    const again = await redeem(u.cookie, code);
    expect(again.body).toEqual({ code: 1, message: "code already redeemed", data: null });
    expect(await balance(u.cookie)).toBe(60);
  });

  test("an unknown or expired code → code 1, balance unchanged", async () => {
    const u = await api.signUp(uniqueEmail("codes"));
    expect((await redeem(u.cookie, "ATL-NOPE0-NOPE0-NOPE0-NOPE0")).body).toMatchObject({
      code: 1,
      message: "invalid or expired code",
    });
    const code = await create({ credits: 5, max_uses: 5, expires_at: new Date(Date.now() + 60_000).toISOString() });
    await db.run(db.update(redemptionCodes).set({ expiresAt: new Date(Date.now() - 1) }));
    expect((await redeem(u.cookie, code)).body).toMatchObject({ code: 1, message: "invalid or expired code" });
    expect(await balance(u.cookie)).toBe(10);
  });

  test("non-admins get forbidden on create; anonymous redeem is no auth", async () => {
    const u = await api.signUp(uniqueEmail("codes"));
    expect((await api.post("/api/admin/codes/create", { credits: 5, max_uses: 1 }, { cookie: u.cookie })).body).toEqual(
      { code: 1, message: "forbidden", data: null },
    );
    expect((await api.post("/api/redeem", { code: "x" })).body.message).toBe("no auth, please sign-in");
  });
});

describe("security", () => {
  test("concurrent redemptions of the last use grant once", async () => {
    const code = await create({ credits: 7, max_uses: 1 });
    const users = await Promise.all(Array.from({ length: 6 }, () => api.signUp(uniqueEmail("race"))));
    const answers = await Promise.all(users.map((u) => redeem(u.cookie, code)));
    expect(answers.filter((a) => a.body.code === 0)).toHaveLength(1);
    const balances = await Promise.all(users.map((u) => balance(u.cookie)));
    expect(balances.filter((b) => b === 17)).toHaveLength(1);
    expect(balances.filter((b) => b === 10)).toHaveLength(5);
  });

  test("an account deleted and re-created with the same e-mail cannot redeem a per-user code again", async () => {
    const code = await create({ credits: 9, max_uses: 100 });
    const email = uniqueEmail("again");
    const first = await api.signUp(email);
    expect((await redeem(first.cookie, code)).body.code).toBe(0);
    await db.run(db.delete(user).where(eq(user.id, first.userId)));
    const second = await api.signUp(email);
    expect((await redeem(second.cookie, code)).body).toMatchObject({ code: 1, message: "code already redeemed" });
  });

  test("ten refused guesses, then 429 — even for a valid code", async () => {
    const u = await api.signUp(uniqueEmail("guess"));
    for (let i = 0; i < 10; i++) expect((await redeem(u.cookie, `ATL-GUESS-${i}`)).body.code).toBe(1);
    const code = await create({ credits: 3, max_uses: 5 });
    const limited = await redeem(u.cookie, code);
    expect(limited.status).toBe(429);
    expect(await balance(u.cookie)).toBe(10);
  });
});
