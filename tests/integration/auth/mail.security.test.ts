/**
 * Atelier must not be a mail cannon (docs/decisions/068-account-email-limit.md). Without a bound, every account e-mail
 * (verification, reset, "you already have an account") goes out once per request, so anyone could make the server
 * mail one address without end: request-password-reset for a known address, sign-in with the password of an
 * unverified account one created with the victim's address (each sign-in mails a fresh link), or sign-up again with
 * a taken address. better-auth's per-IP limiter (3 a minute) bounds one address of the attacker, not the victim's
 * inbox; an attacker with many addresses (an IPv6 /56 is 256 of them) is modelled by AUTH_RATE_LIMIT=off. Each
 * recipient gets at most ACCOUNT_MAILS_PER_HOUR account mails an hour, whatever asks for them, and the answers do
 * not change.
 */
import { expect, test } from "bun:test";
import { type SmtpFake, startSmtp } from "../../fakes/smtp";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";

/** The documented bound (docs/decisions/068-account-email-limit.md). */
const BOUND = 5;
const PASSWORD = "correct-horse-battery";

let smtp: SmtpFake;
const s = serverForFile(
  async () => {
    smtp = await startSmtp();
    return { env: { SMTP_URL: smtp.url, MAIL_FROM: "Atelier <robot@atelier.test>" } };
  },
  () => smtp?.close(),
);

const post = (path: string, body: unknown) =>
  fetch(s.server.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", origin: s.server.url },
    body: JSON.stringify(body),
  });

const mailsTo = (email: string) => smtp.messages.filter((m) => m.to.toLowerCase().includes(email.toLowerCase()));

/** Waits until no new mail to `email` has arrived for 1.5 s, then returns how many there are. */
async function settledCount(email: string): Promise<number> {
  let last = -1;
  let stableSince = Date.now();
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await Bun.sleep(100)) {
    const n = mailsTo(email).length;
    if (n !== last) {
      last = n;
      stableSince = Date.now();
    } else if (Date.now() - stableSince > 1500) break;
  }
  return last;
}

test("20 password-reset requests for one address mail it at most 5 times; every answer is the same 200", async () => {
  const victim = uniqueEmail("reset-victim");
  expect((await post("/api/auth/sign-up/email", { email: victim, password: PASSWORD, name: "Victim" })).status).toBe(
    200,
  );
  await smtp.take(victim, "Confirm your e-mail address");
  const bodies = new Set<string>();
  for (let i = 0; i < 20; i++) {
    const r = await post("/api/auth/request-password-reset", { email: victim, redirectTo: "/reset-password" });
    expect(r.status).toBe(200);
    bodies.add(await r.text());
  }
  expect(bodies.size).toBe(1);
  const n = await settledCount(victim);
  console.log(`mails to the victim after 1 sign-up and 20 reset requests: ${n}`);
  expect(n).toBeLessThanOrEqual(BOUND);
  // The first reset mail did go out: the bound holds back the flood, not the service.
  expect(mailsTo(victim).some((m) => m.subject.includes("Reset your Atelier password"))).toBe(true);
});

test("sign-ins and sign-ups against an unverified address mail it at most 5 times; another address is not held back", async () => {
  const victim = uniqueEmail("verify-victim");
  expect(
    (await post("/api/auth/sign-up/email", { email: victim, password: PASSWORD, name: "Not the owner" })).status,
  ).toBe(200);
  for (let i = 0; i < 12; i++) {
    const r = await post("/api/auth/sign-in/email", { email: victim, password: PASSWORD });
    expect(r.status).toBe(403); // EMAIL_NOT_VERIFIED: and a fresh link mailed each time
  }
  for (let i = 0; i < 8; i++)
    expect((await post("/api/auth/sign-up/email", { email: victim, password: PASSWORD, name: "Again" })).status).toBe(
      200,
    );
  const n = await settledCount(victim);
  console.log(`mails to the victim after 1 sign-up, 12 sign-ins and 8 repeated sign-ups: ${n}`);
  expect(n).toBeLessThanOrEqual(BOUND);

  const bystander = uniqueEmail("bystander");
  expect(
    (await post("/api/auth/sign-up/email", { email: bystander, password: PASSWORD, name: "Bystander" })).status,
  ).toBe(200);
  await smtp.take(bystander, "Confirm your e-mail address");
});
