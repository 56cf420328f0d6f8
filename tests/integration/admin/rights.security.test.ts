/**
 * docs/design.md §5 (docs/decisions/033-admin-rights-need-proof.md): admin rights need proof. An ADMIN_EMAILS address
 * counts only once the account has verified it; otherwise only an operator's
 * `atelier admin promote` makes an admin.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { user } from "#db/schema";
import { Client, sessionCookie, uniqueEmail } from "../../support/client";
import { insertApiKey, markVerified, openServerDb } from "../../support/db";
import { runAdmin } from "../../support/fixtures";
import { startServer, type TestServer } from "../../support/server";

// CLI runs start processes: slow on a busy machine.

let server: TestServer;
let api: Client;
let db: Db;
const ADMIN_EMAIL = "chief@admin.test";
const LOG_ADMIN = "ops@admin.test";
const FORBIDDEN = { code: 1 as const, message: "forbidden", data: null };

beforeAll(async () => {
  // LOG_LEVEL=info: with no mail transport the verification links are written to the log.
  server = await startServer({ env: { ADMIN_EMAILS: `${ADMIN_EMAIL},${LOG_ADMIN}`, LOG_LEVEL: "info" } });
  api = new Client(server.url);
  db = await openServerDb(server.dataDir);
});
afterAll(async () => {
  void db?.close();
  await server?.dispose();
});

const listUsers = (auth: { cookie?: string; apiKey?: string }) =>
  api.post("/api/admin/list-users", { page: 1, page_size: 5 }, auth);
const adminPage = async (cookie: string) =>
  (await fetch(`${server.url}/admin`, { headers: { cookie }, redirect: "manual" })).status;

/** `atelier admin …`; promote reads the account's password on stdin: `--password <p>` here, else Client.signUp's. */
function cli(...args: string[]) {
  const at = args.indexOf("--password");
  const password = at >= 0 ? args.splice(at, 2)[1] : undefined;
  return runAdmin(server, args, { ADMIN_EMAILS: ADMIN_EMAIL }, password === undefined ? undefined : `${password}\n`);
}

describe("an ADMIN_EMAILS address proves nothing until it is verified", () => {
  test("unverified sign-up with the admin address in another letter case: no session; its key is forbidden on admin endpoints; verified, an admin", async () => {
    const up = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: ADMIN_EMAIL.toUpperCase(), name: "x", password: "correct-horse-battery" }),
    });
    expect(up.status).toBe(403);
    expect(up.headers.getSetCookie()).toEqual([]);
    const { id: userId } = (await db.one(db.select({ id: user.id }).from(user).where(eq(user.email, ADMIN_EMAIL))))!;
    // A key made for it all the same (say, before the address was put in ADMIN_EMAILS) has no admin rights.
    const key = await insertApiKey(db, userId);
    for (const [path, body] of [
      ["/api/admin/grant-credits", { user_uuid: userId, credits: 1000 }],
      [
        "/api/admin/create-subscription",
        { user_uuid: userId, product_id: "p", product_name: "P", interval: "month", amount: 1 },
      ],
      ["/api/admin/list-users", {}],
    ] as const) {
      expect((await api.post(path, body, { apiKey: key })).body).toEqual(FORBIDDEN);
    }
    // Nothing was granted to itself.
    expect((await api.post("/api/get-user-credits", undefined, { apiKey: key })).body.data.left_credits).toBe(10);
    // Its key runs at the standard tier, not the admin one.
    const r = await api.post("/api/get-user-info", undefined, { apiKey: key });
    expect(r.headers.get("ratelimit-policy")).toBe('"standard";q=100;w=60');

    // Once the address is verified, the same account signs in, and is an admin.
    await markVerified(db, userId);
    const cookie = await api.signIn(ADMIN_EMAIL);
    expect((await listUsers({ cookie })).body.code).toBe(0);
    expect(await adminPage(cookie)).toBe(200);
  });

  test("sign-up and update-user cannot set role or emailVerified", async () => {
    const email = uniqueEmail("sneaky");
    const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email, name: "x", password: "correct-horse-battery", role: "admin", emailVerified: true }),
    });
    expect(res.status).toBe(200);
    const cookie = sessionCookie(res);
    expect((await listUsers({ cookie })).body).toEqual(FORBIDDEN);
    await fetch(`${server.url}/api/auth/update-user`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url, cookie },
      body: JSON.stringify({ role: "admin", emailVerified: true }),
    });
    expect((await listUsers({ cookie })).body).toEqual(FORBIDDEN);
    expect(
      await db.one(
        db.select({ role: user.role, verified: user.emailVerified }).from(user).where(eq(user.email, email)),
      ),
    ).toEqual({ role: "user", verified: false });
  });
});

describe("without a mail transport", () => {
  test("an ADMIN_EMAILS address gets no link in the log (it would verify whoever chose the password); promote makes it an admin", async () => {
    const up = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: LOG_ADMIN, name: "Ops", password: "correct-horse-battery" }),
    });
    expect(up.status).toBe(403);
    await Bun.sleep(200);
    const lines = server.logs().split("\n");
    expect(lines.some((l) => l.includes('"mail not sent') && l.includes(LOG_ADMIN))).toBe(false);
    expect(lines.some((l) => l.includes("verification link not written: an ADMIN_EMAILS address needs SMTP_URL"))).toBe(
      true,
    );
    expect((await cli("promote", "--email", LOG_ADMIN)).code).toBe(0);
    const cookie = await api.signIn(LOG_ADMIN);
    expect((await listUsers({ cookie })).body.code).toBe(0);
  });
});

describe("atelier admin promote / demote", () => {
  test("promote makes an unverified account an admin; demote takes it back", async () => {
    const email = uniqueEmail("operator-pick");
    const { cookie } = await api.signUp(email);
    expect((await listUsers({ cookie })).body).toEqual(FORBIDDEN);

    const up = await cli("promote", "--email", email.toUpperCase(), "--json");
    expect(up.code).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({ email, role: "admin", is_admin: true });
    expect((await listUsers({ cookie })).body.code).toBe(0);
    expect(await adminPage(cookie)).toBe(200);

    const down = await cli("demote", "--email", email);
    expect(down.code).toBe(0);
    expect(down.stdout).toContain("is not an admin");
    expect((await listUsers({ cookie })).body).toEqual(FORBIDDEN);
    expect(await adminPage(cookie)).toBe(404);
  });

  test("demoting a verified ADMIN_EMAILS account warns that the address keeps it admin", async () => {
    const { id } = (await db.one(db.select({ id: user.id }).from(user).where(eq(user.email, ADMIN_EMAIL))))!;
    await markVerified(db, id);
    const r = await cli("demote", "--email", ADMIN_EMAIL);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("stays an admin until removed from ADMIN_EMAILS");
  });

  test("promote asks for the account's password: a wrong one promotes nobody", async () => {
    const email = uniqueEmail("not-yours");
    const { cookie } = await api.signUp(email);
    const r = await cli("promote", "--email", email, "--password", "someone-elses-guess");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("not the password of this account");
    expect((await listUsers({ cookie })).body).toEqual(FORBIDDEN);
  });

  test("unknown e-mail or none → error, exit 1", async () => {
    const r = await cli("promote", "--email", "nobody@nowhere.test");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("user not found");
    const none = await cli("promote");
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("--email is required");
  });

  test("--help lists promote and demote", async () => {
    const r = await cli("--help");
    expect(r.stdout).toContain("promote");
    expect(r.stdout).toContain("demote");
  });
});
