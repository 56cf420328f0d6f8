/**
 * The first admin of a server without mail, as the README tells the operator to make it (docs/design.md §5), tried
 * by an attacker who registered the operator's address first: sign up (the address is taken), take the account
 * back with a password reset (the link is in the log), then `atelier admin promote`, which asks for the account's
 * password. The attacker never gains admin rights, and every session, key and webhook it made stops working once
 * the owner takes the account back. And an ADMIN_EMAILS address never signs in before its mailbox is proven: with
 * no mail, never (no link is written to the log), until the operator promotes it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { databaseEnv, runAtelier, startServer, type TestServer } from "../../support/server";

const OWNER = "owner@first-admin.test";
const LISTED = "listed@first-admin.test";
const ATTACKER_PASSWORD = "attacker-knows-this-1";
const OWNER_PASSWORD = "owner-chose-this-2";
const FORBIDDEN = { code: 1 as const, message: "forbidden", data: null };

let server: TestServer;
let api: Client;

beforeAll(async () => {
  // LOG_LEVEL=info: without SMTP_URL the account links are written to the log, which only the operator reads.
  server = await startServer({ env: { LOG_LEVEL: "info", ADMIN_EMAILS: LISTED, WEBHOOK_ALLOW_PRIVATE: "true" } });
  api = new Client(server.url);
});
afterAll(async () => {
  await server?.dispose();
});

const authPost = (path: string, body: unknown, cookie?: string) =>
  fetch(`${server.url}/api/auth${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith("atelier.session_token="))
    ?.split(";")[0];
const promote = (email: string, password: string) =>
  runAtelier(["admin", "promote", "--email", email], {
    cwd: server.dataDir,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? "/tmp",
      DATA_DIR: server.dataDir,
      LOG_LEVEL: "warn",
      ...databaseEnv(server),
    },
    stdin: `${password}\n`,
  });

/** The newest link of this kind written to the log for this address. */
async function linkInLog(email: string, kind: "reset-password" | "verify-email"): Promise<string | undefined> {
  for (let i = 0; i < 200; i++) {
    const line = server
      .logs()
      .split("\n")
      .filter((l) => l.includes('"mail not sent') && l.includes(email) && l.includes(`/${kind}?token=`))
      .at(-1);
    const link = line ? new RegExp(`(http://\\S+/${kind}\\?token=[^\\s"\\\\]+)`).exec(JSON.parse(line).text)?.[1] : "";
    if (link) return link;
    await Bun.sleep(25);
  }
  return undefined;
}

describe("the README's first admin, with an attacker who registered the address first", () => {
  test("promote refuses the attacker's account; the reset takes it back (sessions, keys, webhooks); only the owner is admin", async () => {
    // The attacker signs up with the operator's address and arms it: a session, an API key, a webhook by key.
    const up = await authPost("/sign-up/email", { email: OWNER, password: ATTACKER_PASSWORD, name: "Owner" });
    expect(up.status).toBe(200);
    const attackerCookie = cookieOf(up)!;
    const key = (await api.post("/api/keys/create", { name: "mine" }, { cookie: attackerCookie })).body.data.key;
    expect(key).toStartWith("atl_");
    const hook = await api.post("/api/webhooks/create", { url: "http://127.0.0.1:9/steal" }, { apiKey: key });
    expect(hook.body.code).toBe(0);

    // The operator signs up as the README says: the address is taken.
    const taken = await authPost("/sign-up/email", { email: OWNER, password: OWNER_PASSWORD, name: "Owner" });
    expect(taken.status).toBe(422);
    // Promote asks for the account's password: the operator's own is not it, so nobody is promoted.
    const refused = await promote(OWNER, OWNER_PASSWORD);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("not the password of this account");
    expect((await api.post("/api/admin/list-users", {}, { apiKey: key })).body).toEqual(FORBIDDEN);

    // The owner takes the account back: forgot password → the link in the log → a new password.
    expect((await authPost("/request-password-reset", { email: OWNER, redirectTo: "/reset-password" })).status).toBe(
      200,
    );
    const link = await linkInLog(OWNER, "reset-password");
    expect(link).toStartWith(`${server.url}/reset-password?token=`);
    const token = new URL(link!).searchParams.get("token")!;
    expect((await authPost("/reset-password", { token, newPassword: OWNER_PASSWORD })).status).toBe(200);

    // Everything the attacker made is gone: its session, its key, its webhook.
    expect((await api.post("/api/get-user-info", undefined, { cookie: attackerCookie })).body.message).toBe(
      "no auth, please sign-in",
    );
    expect((await api.post("/api/get-user-info", undefined, { apiKey: key })).body).toMatchObject({ code: 1 });
    const hooks = await queryServerDb<{ status: string }>(
      server.dataDir,
      `SELECT w.status FROM webhook_endpoints w JOIN "user" u ON u.id = w.user_id WHERE u.email = ?`,
      OWNER,
    );
    expect(hooks.map((h) => h.status)).toEqual(["disabled"]);
    expect((await authPost("/sign-in/email", { email: OWNER, password: ATTACKER_PASSWORD })).status).toBe(401);

    // Now promote, with the owner's password, and the owner is the admin; the attacker's key still is nothing.
    const promoted = await promote(OWNER, OWNER_PASSWORD);
    expect(promoted.code).toBe(0);
    const ownerCookie = cookieOf(await authPost("/sign-in/email", { email: OWNER, password: OWNER_PASSWORD }))!;
    expect((await api.post("/api/admin/list-users", {}, { cookie: ownerCookie })).body.code).toBe(0);
    expect((await api.post("/api/admin/list-users", {}, { apiKey: key })).body.code).toBe(1);
    expect(
      (await api.post("/api/admin/grant-credits", { email: OWNER, credits: 1_000_000 }, { apiKey: key })).body.code,
    ).toBe(1);
  }, 60_000);
});

describe("an ADMIN_EMAILS address without mail", () => {
  test("signs in never before its mailbox is proven: no session at sign-up or sign-in, no link in the log, no rights", async () => {
    const up = await authPost("/sign-up/email", { email: LISTED, password: ATTACKER_PASSWORD, name: "Listed" });
    expect(up.status).toBe(403);
    expect(cookieOf(up)).toBeUndefined();
    expect(((await up.json()) as { code: string }).code).toBe("ADMIN_EMAIL_NOT_VERIFIED");
    const signIn = await authPost("/sign-in/email", { email: LISTED, password: ATTACKER_PASSWORD });
    expect(signIn.status).toBe(403);
    expect(cookieOf(signIn)).toBeUndefined();
    // The log is no mailbox: a link there would verify the account of whoever chose its password.
    await Bun.sleep(300);
    expect(server.logs()).toContain("verification link not written: an ADMIN_EMAILS address needs SMTP_URL");
    expect(await linkInLog(LISTED, "verify-email").catch(() => undefined)).toBeUndefined();
    // The operator cannot promote it without its password either.
    expect((await promote(LISTED, OWNER_PASSWORD)).code).toBe(1);
  }, 60_000);
});
