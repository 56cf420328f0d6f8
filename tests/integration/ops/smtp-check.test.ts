/**
 * A wrong SMTP_URL is said at start, with what to do (docs/decisions/109-smtp-check-at-start.md). A server with an SMTP_URL it
 * cannot use (a placeholder copied from the example .env, a typo in the port) must not start without a word: with
 * SMTP_URL set, a new account cannot sign in before it opens the mailed link, and a sign-up would otherwise only log
 * `mail delivery failed` with the socket error. So serve checks the mail server in the background at start
 * (connect + login, nothing sent), and every failure names the settings to check.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { type SmtpFake, startSmtp } from "../../fakes/smtp";
import { freePort, startServer, type TestServer } from "../../support/server";
import { until } from "../../support/until";

const HINT =
  "check SMTP_URL (host, port, user name with @ written %40, password) and MAIL_FROM; the person can ask for a new link on /verify-email or /forgot-password";
const servers: TestServer[] = [];
let smtp: SmtpFake | undefined;
afterAll(async () => {
  for (const s of servers) await s.dispose();
  await smtp?.close();
});

const lines = (s: TestServer) =>
  s
    .logs()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, any>);

describe("SMTP_URL checked at start", () => {
  test("a mail server nobody answers on: one warning at start naming the server, the error and what to check; each failed mail carries the same hint", async () => {
    const closed = await freePort();
    const server = await startServer({
      env: { SMTP_URL: `smtp://atelier%40example.com:secret@127.0.0.1:${closed}`, LOG_LEVEL: "info" },
    });
    servers.push(server);
    const warning = await until(
      "the start-up warning",
      async () => lines(server).find((l) => String(l.msg).startsWith("mail server check failed")),
      15_000,
    );
    expect(warning).toMatchObject({
      level: "warn",
      msg: "mail server check failed: confirmation and password-reset e-mails will not arrive, and new accounts cannot sign in until they do",
      server: `smtp://127.0.0.1:${closed}`,
      hint: HINT,
    });
    expect(warning.error).toContain("ECONNREFUSED");
    expect(server.logs()).not.toContain("secret"); // the password stays out of the log

    const up = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "waiting@example.test", password: "correct-horse-battery", name: "Waiting" }),
    });
    expect(up.status).toBe(200);
    const failed = await until(
      "the failed mail",
      async () => lines(server).find((l) => l.msg === "mail delivery failed"),
      15_000,
    );
    expect(failed.hint).toBe(HINT);
  });

  test("a working mail server: no warning", async () => {
    smtp = await startSmtp();
    const server = await startServer({ env: { SMTP_URL: smtp.url, LOG_LEVEL: "debug" } });
    servers.push(server);
    await until(
      "the check's result",
      async () => lines(server).find((l) => l.msg === "mail server accepts our login"),
      15_000,
    );
    expect(lines(server).filter((l) => String(l.msg).startsWith("mail server check failed"))).toEqual([]);
    expect(smtp.messages).toEqual([]); // nothing was sent by the check
  });
});
