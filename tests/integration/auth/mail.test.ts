/**
 * Account basics with a mail transport (docs/decisions/035-mail-transport-modes.md): SMTP_URL
 * points at a local SMTP server that keeps every message. Verification before
 * sign-in, the sign-up bonus on verification, a sign-up that does not tell
 * whether an address is taken, and password reset.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { creditGrants, user } from "#db/schema";
import { type SmtpFake, startSmtp } from "../../fakes/smtp";
import { Client, uniqueEmail } from "../../support/client";
import { openServerDb } from "../../support/db";
import { startServer, type TestServer } from "../../support/server";

let smtp: SmtpFake;
let server: TestServer;
let api: Client;
let db: Db;
const ADMIN = "boss@mail-admin.test";
const PASSWORD = "correct-horse-battery";

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    env: { SMTP_URL: smtp.url, MAIL_FROM: "Atelier <robot@atelier.test>", ADMIN_EMAILS: ADMIN },
  });
  api = new Client(server.url);
  db = await openServerDb(server.dataDir);
});
afterAll(async () => {
  void db?.close();
  await server?.dispose();
  await smtp?.close();
});

const post = (path: string, body: unknown, cookie?: string) =>
  fetch(server.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
const signUp = (email: string, password = PASSWORD, name = "Mail Test") =>
  post("/api/auth/sign-up/email", { email, password, name });
const signIn = (email: string, password = PASSWORD) => post("/api/auth/sign-in/email", { email, password });
const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith("atelier.session_token="))
    ?.split(";")[0];
const grants = (email: string) =>
  db.many(
    db
      .select({ source: creditGrants.source, amount: creditGrants.amount })
      .from(creditGrants)
      .innerJoin(user, eq(user.id, creditGrants.userId))
      .where(eq(user.email, email)),
  );

describe("sign-up with a mail transport", () => {
  test("no session until the address is verified; the bonus and the ADMIN_EMAILS rights come with verification", async () => {
    const up = await signUp(ADMIN.toUpperCase());
    expect(up.status).toBe(200);
    expect(cookieOf(up)).toBeUndefined();
    expect(((await up.json()) as { token: unknown }).token).toBeNull();
    expect(await grants(ADMIN)).toEqual([]);

    const mail = await smtp.take(ADMIN, "Confirm your e-mail address");
    expect(mail.from).toContain("robot@atelier.test");
    const link = smtp.linkIn(mail, `${server.url}/verify-email?token=`);

    // Right password, unverified address: refused, and a fresh link is mailed.
    const early = await signIn(ADMIN);
    expect(early.status).toBe(403);
    expect(((await early.json()) as { code: string }).code).toBe("EMAIL_NOT_VERIFIED");
    await smtp.take(ADMIN, "Confirm your e-mail address");

    const landing = await fetch(link);
    expect(landing.status).toBe(200);
    expect(await landing.text()).toContain("E-mail confirmed");
    expect(await grants(ADMIN)).toEqual([{ source: "signup", amount: 10 }]);
    // Following the link again grants nothing more.
    await fetch(link);
    expect(await grants(ADMIN)).toEqual([{ source: "signup", amount: 10 }]);

    const inRes = await signIn(ADMIN);
    expect(inRes.status).toBe(200);
    const cookie = cookieOf(inRes)!;
    expect((await api.post("/api/get-user-credits", undefined, { cookie })).body.data).toEqual({
      left_credits: 10,
      total_credits: 10,
    });
    expect((await api.post("/api/admin/list-users", {}, { cookie })).body.code).toBe(0);
  });

  test("sign-up answers a taken address exactly like a new one; the owner is mailed instead", async () => {
    const email = uniqueEmail("taken");
    const first = await signUp(email, PASSWORD, "Same Name");
    const again = await signUp(email, "another-password-1", "Same Name");
    const fresh = await signUp(uniqueEmail("fresh"), PASSWORD, "Same Name");
    const shape = async (r: Response) => {
      const body = (await r.json()) as { token: unknown; user: Record<string, unknown> };
      return {
        status: r.status,
        cookie: cookieOf(r) ?? null,
        token: body.token,
        keys: Object.keys(body.user).sort(),
        verified: body.user.emailVerified,
        name: body.user.name,
      };
    };
    const [a, b, c] = [await shape(first), await shape(again), await shape(fresh)];
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(a).toMatchObject({ status: 200, cookie: null, token: null, verified: false });
    const notice = await smtp.take(email, "You already have an Atelier account");
    expect(notice.text).toContain(`${server.url}/forgot-password`);
    // The second attempt changed nothing: the first password still belongs to the account.
    expect(await db.many(db.select({ id: user.id }).from(user).where(eq(user.email, email)))).toHaveLength(1);
  });
});

describe("password reset", () => {
  test("forgot → link by mail → new password; the old one and the used link stop working; unknown addresses get the same answer", async () => {
    const email = uniqueEmail("reset");
    await signUp(email);
    await fetch(
      smtp.linkIn(await smtp.take(email, "Confirm your e-mail address"), `${server.url}/verify-email?token=`),
    );
    const session = cookieOf(await signIn(email))!;

    const ask = await post("/api/auth/request-password-reset", { email, redirectTo: "/reset-password" });
    const askUnknown = await post("/api/auth/request-password-reset", {
      email: uniqueEmail("nobody"),
      redirectTo: "/reset-password",
    });
    expect(ask.status).toBe(200);
    expect(askUnknown.status).toBe(200);
    expect(await askUnknown.json()).toEqual(await ask.json());

    const mail = await smtp.take(email, "Reset your Atelier password");
    const link = smtp.linkIn(mail, `${server.url}/reset-password?token=`);
    const token = new URL(link).searchParams.get("token")!;
    // The landing page carries the token into its form.
    expect(await (await fetch(link)).text()).toContain(token);

    expect((await post("/api/auth/reset-password", { token, newPassword: "brand-new-secret-9" })).status).toBe(200);
    expect((await signIn(email)).status).toBe(401);
    expect((await signIn(email, "brand-new-secret-9")).status).toBe(200);
    // Sessions from before the reset are gone; the link works once.
    expect((await api.post("/api/get-user-info", undefined, { cookie: session })).body.message).toBe(
      "no auth, please sign-in",
    );
    const reuse = await post("/api/auth/reset-password", { token, newPassword: "third-secret-123" });
    expect(reuse.status).toBe(400);
  });
});
