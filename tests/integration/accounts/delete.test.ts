/**
 * POST /api/account/delete and the account page's "Delete account" form (docs/privacy.md "Delete",
 * docs/decisions/121-deleted-accounts.md), against the Stripe fake and results in S3 (the s3rver fake) — and on
 * local disk — on both engines (the ATELIER_TEST_PG run too).
 *
 * Afterwards the keys answer 401, the session is signed out, the password no longer signs in, the result URLs
 * answer 404 (gone from the bucket / the disk), the Stripe subscription is canceled, prompts and feedback are gone,
 * and the orders and the credit ledger are kept, anonymised and balanced. The address can sign up again: a new
 * account, no sign-up bonus a second time. A confirmation that is not the account's e-mail, a missing or wrong
 * password, or an API key deletes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type S3Fake, startS3Fake } from "../../fakes/s3";
import { type BillingServer, startBillingServer } from "../../support/billing";
import { Client } from "../../support/client";
import { countIn, queryServerDb } from "../../support/db";
import { png } from "../../support/images";
import { expectLedgerBalanced } from "../faults/support";

const SIGNUP = 30;
const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" } as const; // 3 credits
const PASSWORD = "correct-horse-battery";

let s3: S3Fake;
let onS3: BillingServer;
let onDisk: BillingServer;

beforeAll(async () => {
  s3 = await startS3Fake();
  const env = { SIGNUP_CREDITS: String(SIGNUP), SIMULATOR_DELAY_MS: "20", WEBHOOK_ALLOW_PRIVATE: "true" };
  [onS3, onDisk] = await Promise.all([startBillingServer({ env: { ...env, ...s3.env } }), startBillingServer({ env })]);
});
afterAll(async () => {
  await onS3?.stop();
  await onDisk?.stop();
  await s3?.stop();
});

/** An account with a key, a webhook, feedback and two finished tasks whose results are stored. */
async function fullAccount(b: BillingServer, tag: string) {
  const api = b.api;
  const { email, cookie, userId } = await b.signUp(tag);
  const key = (await api.post("/api/keys/create", { name: "k" }, { cookie })).body.data.key as string;
  expect((await api.post("/api/webhooks/create", { url: "http://127.0.0.1:9/h" }, { cookie })).body.code).toBe(0);
  expect((await api.post("/api/add-feedback", { content: "my secret plans", rating: 4 }, { cookie })).body.code).toBe(
    0,
  );
  const urls: string[] = [];
  for (const prompt of ["a private prompt one", "a private prompt two"]) {
    const gen = (await api.post("/api/generator/generate", { ...IMAGE, prompt }, { apiKey: key })).body.data.gen_id;
    for (let i = 0; ; i++) {
      const q = await api.post("/api/generator/query", { gen_id: gen }, { cookie });
      if (q.body.data.status === "completed") {
        urls.push(...q.body.data.result_urls);
        break;
      }
      if (i > 200) throw new Error("task did not complete");
      await Bun.sleep(30);
    }
  }
  for (const url of urls) expect((await fetch(url)).status).toBe(200);
  // An uploaded input picture.
  const up = await b.api.upload(png(8, 6), { apiKey: key }, { name: "in.png", type: "image/png" });
  const file = up.body.data as { file_id: string; url: string };
  expect((await fetch(file.url, { headers: { "x-api-key": key } })).status).toBe(200);
  return { email, cookie, userId, key, urls, file };
}

const del = (b: BillingServer, body: unknown, auth: { cookie?: string; apiKey?: string }) =>
  b.api.post("/api/account/delete", body, auth);

async function signInStatus(b: BillingServer, email: string, password = PASSWORD) {
  const res = await fetch(`${b.server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: b.server.url },
    body: JSON.stringify({ email, password }),
  });
  return res.status;
}

describe("refusals delete nothing", () => {
  test("confirm mismatch, a missing or wrong password, an API key, anonymous", async () => {
    const b = onDisk;
    const { email, cookie, userId } = await b.signUp("del-refused");
    const key = (await b.api.post("/api/keys/create", { name: "k" }, { cookie })).body.data.key as string;
    const cases: [unknown, { cookie?: string; apiKey?: string }, string][] = [
      [
        { confirm: "someone@else.test", password: PASSWORD },
        { cookie },
        "invalid params: confirm must be your account's e-mail address",
      ],
      [{ password: PASSWORD }, { cookie }, "invalid params: confirm must be your account's e-mail address"],
      [{ confirm: email }, { cookie }, "invalid params: password required"],
      [{ confirm: email, password: "not-the-password" }, { cookie }, "invalid params: password is incorrect"],
      [{ confirm: email, password: PASSWORD }, { apiKey: key }, "forbidden"],
      [{ confirm: email, password: PASSWORD }, {}, "no auth, please sign-in"],
    ];
    for (const [body, auth, message] of cases)
      expect((await del(b, body, auth)).body).toEqual({ code: 1, message, data: null });
    expect((await b.api.post("/api/get-user-info", undefined, { apiKey: key })).body.data.email).toBe(email);
    expect((await b.api.post("/api/get-user-info", undefined, { cookie })).body.data.uuid).toBe(userId);
    expect(await signInStatus(b, email)).toBe(200);
  });

  test("wrong passwords count toward the sign-in throttle: past it, 429 and the right password is refused too", async () => {
    const b = onDisk;
    const { email, cookie } = await b.signUp("del-guess");
    let last = 0;
    for (let i = 0; i < 11; i++)
      last = (await del(b, { confirm: email, password: `guess-${i}-wrong` }, { cookie })).status;
    expect(last).toBe(429);
    expect((await del(b, { confirm: email, password: PASSWORD }, { cookie })).status).toBe(429);
    expect((await b.api.post("/api/get-user-info", undefined, { cookie })).body.data.email).toBe(email);
  });
});

describe("an account without a password (single sign-on only)", () => {
  test("needs a sign-in within 10 minutes: an older session is refused, a fresh one deletes", async () => {
    const b = onDisk;
    const { email, cookie, userId } = await b.signUp("del-sso");
    // As a provider-only account: no credential method, a linked provider instead.
    await queryServerDb(
      b.server.dataDir,
      "UPDATE account SET provider_id = 'oidc', account_id = 'sub-1', password = NULL WHERE user_id = ?",
      userId,
    );
    await queryServerDb(
      b.server.dataDir,
      "UPDATE session SET created_at = ? WHERE user_id = ?",
      Date.now() - 11 * 60_000,
      userId,
    );
    expect((await del(b, { confirm: email }, { cookie })).body).toEqual({
      code: 1,
      message: "invalid params: sign in again, then delete the account within 10 minutes",
      data: null,
    });
    await queryServerDb(
      b.server.dataDir,
      "UPDATE session SET created_at = ? WHERE user_id = ?",
      Date.now() - 60_000,
      userId,
    );
    const done = await del(b, { confirm: email, password: "ignored-without-one" }, { cookie });
    expect(done.body.code).toBe(0);
    expect(await countIn(b.server.dataDir, "SELECT count(*) AS n FROM account WHERE user_id = ?", userId)).toBe(0);
  });
});

describe("deleting an account", () => {
  test("with S3 and a Stripe subscription: keys 401, signed out, password refused, results 404 and gone from the bucket, subscription canceled, ledger kept and balanced; the address signs up anew without a second bonus", async () => {
    const b = onS3;
    const a = await fullAccount(b, "del-s3");
    // A subscription bought through the Stripe fake.
    const session = b.stripe.sessions.get(await b.checkoutSessionId(a.cookie, "pro-monthly"))!;
    await b.deliverOk(await b.stripe.pay(session.id));
    const subId = b.stripe.sessions.get(session.id)!.subscription as string;
    expect(b.stripe.subscriptions.get(subId)!.status).toBe("active");
    const ledgerBefore = await queryServerDb<{ amount: number }>(
      b.server.dataDir,
      "SELECT amount FROM credit_grants WHERE user_id = ? ORDER BY amount",
      a.userId,
    );

    const r = await del(b, { confirm: a.email.toUpperCase(), password: PASSWORD }, { cookie: a.cookie });
    expect(r.body).toMatchObject({
      code: 0,
      message: "account deleted",
      data: { uuid: a.userId, canceled_tasks: 0, canceled_subscriptions: 1, removed_results: 2 },
    });

    expect((await b.api.post("/api/get-user-info", undefined, { apiKey: a.key })).status).toBe(401);
    expect((await b.api.post("/api/get-user-info", undefined, { cookie: a.cookie })).body.message).toBe(
      "no auth, please sign-in",
    );
    expect(await signInStatus(b, a.email)).toBe(401);
    for (const url of a.urls) {
      expect(url.startsWith(`${s3.endpoint}/${s3.bucket}/`)).toBe(true);
      expect((await fetch(url)).status).toBe(404);
    }
    expect(s3.log.some((l) => l.method === "DELETE" || l.method === "POST")).toBe(true);
    expect(b.stripe.subscriptions.get(subId)!.status).toBe("canceled");

    // Money records kept, anonymised; personal data gone.
    const dir = b.server.dataDir;
    const [row] = await queryServerDb<{ email: string; name: string; deleted_at: number }>(
      dir,
      'SELECT email, name, deleted_at FROM "user" WHERE id = ?',
      a.userId,
    );
    expect(row).toMatchObject({ email: `deleted-${a.userId}@deleted.invalid`, name: "Deleted user" });
    expect(Number(row!.deleted_at)).toBeGreaterThan(0);
    const [order] = await queryServerDb<{ status: string; amount: number }>(
      dir,
      "SELECT status, amount FROM orders WHERE user_id = ?",
      a.userId,
    );
    expect(order).toEqual({ status: "canceled", amount: 1900 });
    expect(
      await queryServerDb<{ amount: number }>(
        dir,
        "SELECT amount FROM credit_grants WHERE user_id = ? ORDER BY amount",
        a.userId,
      ),
    ).toEqual(ledgerBefore);
    expect(await countIn(dir, "SELECT count(*) AS n FROM credit_debits WHERE user_id = ?", a.userId)).toBe(2);
    expect(
      await countIn(dir, "SELECT count(*) AS n FROM generations WHERE user_id = ? AND prompt <> ''", a.userId),
    ).toBe(0);
    // The uploaded picture: its row and its object in the bucket are gone.
    expect(s3.log.some((l) => l.method === "DELETE" && l.path.includes("/files/"))).toBe(true);
    for (const table of ["feedback", "api_keys", "webhook_endpoints", "session", "account", "files"])
      expect({
        table,
        n: await countIn(dir, `SELECT count(*) AS n FROM ${table} WHERE user_id = ?`, a.userId),
      }).toEqual({
        table,
        n: 0,
      });
    await expectLedgerBalanced(dir);

    // The address is free again: a new account, without the bonus a second time.
    const again = await new Client(b.server.url).signUp(a.email);
    expect(again.userId).not.toBe(a.userId);
    expect(await b.credits(again.cookie)).toEqual({ left_credits: 0, total_credits: 0 });
    // Another new address still gets it.
    expect((await b.credits((await b.signUp("del-fresh")).cookie)).left_credits).toBe(SIGNUP);
  }, 60_000);

  test("on local disk, through the account page's form (no JavaScript): redirected home signed out, results 404 and gone from disk", async () => {
    const b = onDisk;
    const a = await fullAccount(b, "del-page");
    const page = await (await fetch(`${b.server.url}/account`, { headers: { cookie: a.cookie } })).text();
    expect(page).toContain('name="intent" value="delete-account"');
    const post = (fields: Record<string, string>) =>
      fetch(`${b.server.url}/account`, {
        method: "POST",
        headers: { cookie: a.cookie, origin: b.server.url, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "delete-account", ...fields }),
        redirect: "manual",
      });
    const wrong = await post({ confirm: "not-me@example.test", password: PASSWORD });
    expect(wrong.status).toBe(200);
    expect(await wrong.text()).toContain("confirm must be your account&#x27;s e-mail address");
    expect((await b.api.post("/api/get-user-info", undefined, { apiKey: a.key })).status).toBe(200);

    const done = await post({ confirm: a.email, password: PASSWORD });
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe("/?notice=account-deleted");
    expect(done.headers.getSetCookie().some((c) => /session_token=;.*Max-Age=0/.test(c))).toBe(true);
    expect((await b.api.post("/api/get-user-info", undefined, { apiKey: a.key })).status).toBe(401);
    for (const url of a.urls) expect((await fetch(url)).status).toBe(404);
    const media = join(b.server.dataDir, "media");
    const left = existsSync(media) ? readdirSync(media, { recursive: true }).map(String) : [];
    for (const url of a.urls) {
      const genDir = new URL(url).pathname.split("/")[2]!;
      expect(left.filter((p) => p.startsWith(genDir))).toEqual([]);
    }
    await expectLedgerBalanced(b.server.dataDir);
  }, 60_000);
});
