/**
 * Sign-in throttling (docs/decisions/036-sign-in-throttling.md), profile fields and the sign-up
 * bonus where an HTTP test would wait (a 15-minute cooldown) or repeat at length (every profile case).
 */
import { describe, expect, test } from "bun:test";
import { openDatabase } from "#db/client";
import { signInAttempts } from "#db/schema";
import { profileProblem } from "~/domain/auth/profile";
import { beginSignIn, clearSignIn, SIGN_IN_POLICY } from "~/domain/auth/sign-in-throttle.server";
import { grantSignupBonus } from "~/domain/credits/signup.server";
import { manualClock } from "~/lib/clock";
import { insertUser } from "../../support/services";

const MIN = 60_000;

describe("per-account sign-in throttle", () => {
  const attempts = async (db: ReturnType<typeof openDatabase>, email: string, n: number, now: number) => {
    const out: boolean[] = [];
    for (let i = 0; i < n; i++) out.push((await beginSignIn(db, email, now)).allowed);
    return out;
  };

  test("10 attempts pass, the 11th is refused for the 15-minute cooldown; then a fresh window", async () => {
    const db = openDatabase(":memory:");
    const t0 = 1_000_000_000_000;
    expect(await attempts(db, "a@x.test", 10, t0)).toEqual(Array(10).fill(true));
    expect(await beginSignIn(db, "a@x.test", t0 + 1)).toEqual({ allowed: false, retryAfterMs: 15 * MIN });
    // Attempts during the cooldown do not extend it.
    expect(await beginSignIn(db, "a@x.test", t0 + 10 * MIN)).toEqual({ allowed: false, retryAfterMs: 5 * MIN + 1 });
    expect(await beginSignIn(db, "A@X.test ", t0 + 15 * MIN)).toEqual({ allowed: false, retryAfterMs: 1 });
    // Cooldown over: a new window of 10.
    expect(await attempts(db, "a@x.test", 10, t0 + 15 * MIN + 1)).toEqual(Array(10).fill(true));
    expect((await beginSignIn(db, "a@x.test", t0 + 15 * MIN + 2)).allowed).toBe(false);
  });

  test("failures older than the 15-minute window do not count", async () => {
    const db = openDatabase(":memory:");
    const t0 = 1_000_000_000_000;
    await attempts(db, "slow@x.test", 9, t0);
    expect(await attempts(db, "slow@x.test", 10, t0 + SIGN_IN_POLICY.windowMs)).toEqual(Array(10).fill(true));
    expect((await beginSignIn(db, "slow@x.test", t0 + SIGN_IN_POLICY.windowMs)).allowed).toBe(false);
  });

  test("a success clears the count; addresses are counted apart; only a hash is stored", async () => {
    const db = openDatabase(":memory:");
    const t = 1_000_000_000_000;
    await attempts(db, "b@x.test", 9, t);
    await clearSignIn(db, "B@x.test");
    expect(await attempts(db, "b@x.test", 10, t)).toEqual(Array(10).fill(true));
    expect((await beginSignIn(db, "c@x.test", t)).allowed).toBe(true);
    const keys = (await db.many(db.select().from(signInAttempts))).map((r) => r.emailHash);
    expect(keys.every((k) => /^[0-9a-f]{64}$/.test(k))).toBe(true);
  });
});

describe("profile fields", () => {
  test.each([
    [{ name: "x".repeat(100) }, null],
    [{ name: "🎨".repeat(100) }, null],
    [{ name: "x".repeat(101) }, "INVALID_NAME"],
    [{ name: 42 }, "INVALID_NAME"],
    [{ image: null }, null],
    [{ image: "" }, null],
    [{ image: "https://cdn.example/a.png" }, null],
    [{ image: "http://cdn.example/a.png" }, "INVALID_IMAGE"],
    [{ image: "https://" }, "INVALID_IMAGE"],
    [{ image: "javascript:alert(1)" }, "INVALID_IMAGE"],
    [{ image: `https://e.x/${"a".repeat(2048 - 12)}` }, null],
    [{ image: `https://e.x/${"a".repeat(2048 - 11)}` }, "INVALID_IMAGE"],
    [{}, null],
  ] as const)("case %#", (fields, code) => {
    expect(profileProblem(fields)?.code ?? null).toBe(code);
  });
});

describe("sign-up bonus", () => {
  test("granted once per user, however often it is asked for", async () => {
    const db = openDatabase(":memory:");
    const clock = manualClock();
    const u = await insertUser(db);
    expect(await grantSignupBonus(db, u.id, 10, clock)).toBe(true);
    expect(await grantSignupBonus(db, u.id, 10, clock)).toBe(false);
    expect(await grantSignupBonus(db, u.id, 0, clock)).toBe(false);
    // The database refuses a second one even past the check.
    expect(() =>
      db.sqlite!.run(
        `INSERT INTO credit_grants (id, user_id, amount, remaining, source) VALUES ('x', '${u.id}', 1, 1, 'signup')`,
      ),
    ).toThrow(/UNIQUE/);
  });

  test("once per provider account: one that came to a bonus holder brings none to another account", async () => {
    const db = openDatabase(":memory:");
    const clock = manualClock();
    const link = (userId: string, accountId: string) =>
      db.sqlite!.run(
        `INSERT INTO account (id, account_id, provider_id, user_id, created_at, updated_at) VALUES (?, ?, 'oidc', ?, 0, 0)`,
        [crypto.randomUUID(), accountId, userId],
      );
    const unlinkAll = (userId: string) => db.sqlite!.run(`DELETE FROM account WHERE user_id = ?`, [userId]);

    // Signed up through the provider: the bonus, and the provider account is remembered with it.
    const a = await insertUser(db);
    link(a.id, "subject-a");
    expect(await grantSignupBonus(db, a.id, 10, clock)).toBe(true);
    unlinkAll(a.id);
    const b = await insertUser(db);
    link(b.id, "subject-a");
    expect(await grantSignupBonus(db, b.id, 10, clock)).toBe(false);

    // Linked to an account that had its bonus already (asked again at the link): remembered too.
    const c = await insertUser(db);
    expect(await grantSignupBonus(db, c.id, 10, clock)).toBe(true);
    link(c.id, "subject-c");
    expect(await grantSignupBonus(db, c.id, 10, clock)).toBe(false);
    unlinkAll(c.id);
    const d = await insertUser(db);
    link(d.id, "subject-c");
    expect(await grantSignupBonus(db, d.id, 10, clock)).toBe(false);

    // The same subject at another provider is another account.
    const e = await insertUser(db);
    db.sqlite!.run(
      `INSERT INTO account (id, account_id, provider_id, user_id, created_at, updated_at) VALUES (?, 'subject-a', 'github', ?, 0, 0)`,
      [crypto.randomUUID(), e.id],
    );
    expect(await grantSignupBonus(db, e.id, 10, clock)).toBe(true);
  });
});
