/**
 * A display name is one plain line (docs/design.md §5): no line breaks, control characters or bidirectional
 * overrides, at sign-up and on update — it shows on other people's pages ("<name> invited you"). Mails to an
 * address that has not been proven carry no text its account's creator chose. An invitee sees who invited them by
 * display name only: not the inviter's e-mail, not even masked (its first letters and domain narrow it down).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type SmtpFake, startSmtp } from "../../fakes/smtp";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";

let smtp: SmtpFake;
let server: TestServer;
let mailServer: TestServer;
let api: Client;

beforeAll(async () => {
  smtp = await startSmtp();
  [server, mailServer] = await Promise.all([startServer(), startServer({ env: { SMTP_URL: smtp.url } })]);
  api = new Client(server.url);
});
afterAll(async () => {
  await Promise.all([server?.dispose(), mailServer?.dispose()]);
  await smtp?.close();
});

const postTo = (s: TestServer, path: string, body: unknown, cookie?: string) =>
  fetch(s.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", origin: s.url, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });

const UNSAFE = [
  "Eve\nBcc: all@example.test",
  "Eve\r\nclick",
  "tab\there",
  "bell\u0007",
  "rtl\u202Egnp.exe",
  "ls\u2028x",
];

describe("display names", () => {
  test("line breaks, control characters and bidi overrides are refused at sign-up", async () => {
    for (const name of UNSAFE) {
      const res = await postTo(server, "/api/auth/sign-up/email", {
        email: uniqueEmail("name"),
        password: "correct-horse-battery",
        name,
      });
      expect({ name, status: res.status }).toEqual({ name, status: 400 });
      expect(((await res.json()) as { code: string }).code).toBe("INVALID_NAME");
    }
  });

  test("and on update; a plain name with accents and emoji is fine", async () => {
    const { cookie } = await api.signUp(uniqueEmail("rename"));
    for (const name of UNSAFE) {
      const res = await postTo(server, "/api/auth/update-user", { name }, cookie);
      expect({ name, status: res.status }).toEqual({ name, status: 400 });
    }
    expect((await postTo(server, "/api/auth/update-user", { name: "Zoë 🎨 O'Brien" }, cookie)).status).toBe(200);
    expect((await api.post("/api/get-user-info", undefined, { cookie })).body.data.nickname).toBe("Zoë 🎨 O'Brien");
  });

  test("the sign-up form says so beside the field", async () => {
    const res = await fetch(`${server.url}/sign-up`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
      body: new URLSearchParams({ name: "two\nlines", email: uniqueEmail("form"), password: "correct-horse-battery" }),
    });
    expect(await res.text()).toContain("One line, without control characters");
  });
});

describe("mails to unproven addresses", () => {
  test("carry nothing the account's creator wrote: the verification and reset mails greet no name", async () => {
    const victim = uniqueEmail("victim");
    const words = "Your account is locked call 555-0100";
    expect(
      (await postTo(mailServer, "/api/auth/sign-up/email", { email: victim, password: "pw-123456789", name: words }))
        .status,
    ).toBe(200);
    const verify = await smtp.take(victim, "Confirm your e-mail address");
    expect(verify.text).not.toContain("555-0100");
    await postTo(mailServer, "/api/auth/request-password-reset", { email: victim, redirectTo: "/reset-password" });
    const reset = await smtp.take(victim, "Reset your Atelier password");
    expect(reset.text).not.toContain("555-0100");
  });
});

describe("invites", () => {
  test("the invitee sees the inviter's display name only, no part of the inviter's e-mail", async () => {
    const inviterEmail = uniqueEmail("alice");
    const inviter = await api.signUp(inviterEmail, { name: "Alice" });
    const code = (await api.post("/api/get-user-info", undefined, { cookie: inviter.cookie })).body.data.invite_code;
    const landing = await (await fetch(`${server.url}/sign-up?ref=${code}`)).text();
    expect(landing.replaceAll("<!-- -->", "")).toContain("Alice invited you");
    expect(landing).not.toContain(inviterEmail);
    const invitee = await api.signUp(uniqueEmail("bob"), { ref: code });
    const account = await (await fetch(`${server.url}/account`, { headers: { cookie: invitee.cookie } })).text();
    expect(account).toMatch(/data-field="Invited by"[^>]*>Alice</);
    expect(account).not.toContain("***@");
    expect(account).not.toContain(inviterEmail.split("@")[0]!);
    expect(account).not.toContain(inviterEmail);
  });
});
