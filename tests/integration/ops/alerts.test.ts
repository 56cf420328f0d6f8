/**
 * Alerts mailed to the admins: a provider that starts failing is mailed once (not once per check), listed on the
 * dashboard, and resolved when it stops; Stripe signature failures fire after the threshold. A real SMTP server
 * (tests/fakes/smtp.ts) receives the mail.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type SmtpFake, startSmtp } from "../../fakes/smtp";
import { Client, uniqueEmail } from "../../support/client";
import { markVerifiedIn, queryServerDb } from "../../support/db";
import { databaseEnv, runAtelier, startServer, type TestServer } from "../../support/server";
import { until } from "../../support/until";

let smtp: SmtpFake;
let server: TestServer;
let api: Client;
const admin = uniqueEmail("alerts-admin");
let adminCookie = "";

/** With SMTP_URL set a new account waits for its mailed link: verified here in the database, then signed in. */
async function verifiedAccount(email: string): Promise<string> {
  const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url },
    body: JSON.stringify({ email, password: "correct-horse-battery", name: "Alerts" }),
  });
  expect(res.ok).toBe(true);
  const [row] = await queryServerDb<{ id: string }>(server.dataDir, `SELECT id FROM "user" WHERE email = ?`, email);
  await markVerifiedIn(server.dataDir, row!.id);
  return await api.signIn(email);
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    env: {
      SMTP_URL: smtp.url,
      ALERT_CHECK_MS: "200",
      ALERT_PROVIDER_MIN_TASKS: "4",
      ALERT_PROVIDER_ERROR_RATE: "50",
      ALERT_STRIPE_SIGNATURE_FAILURES: "3",
      STRIPE_SECRET_KEY: "sk_test_alerts",
      STRIPE_WEBHOOK_SECRET: "whsec_alerts_test_secret",
      SIMULATOR_DELAY_MS: "50",
      JOB_TICK_MS: "25",
      SIGNUP_CREDITS: "100",
    },
  });
  api = new Client(server.url);
  await verifiedAccount(admin);
  const promoted = await runAtelier(["admin", "promote", "--email", admin], {
    // promote asks for the account's password (the one verifiedAccount signs up with).
    stdin: "correct-horse-battery\n",
    cwd: server.dataDir,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? "/tmp",
      DATA_DIR: server.dataDir,
      LOG_LEVEL: "warn",
      ...databaseEnv(server),
    },
  });
  expect(promoted.code).toBe(0);
  adminCookie = await api.signIn(admin);
});
afterAll(async () => {
  await server?.dispose();
  await smtp?.close();
});

const alertMails = (subject: string) => smtp.messages.filter((m) => m.to === admin && m.subject.includes(subject));

describe("alerts", () => {
  test("a provider failing most tasks is mailed once to the admins and listed on /admin", async () => {
    const email = uniqueEmail("alerts-user");
    const cookie = await verifiedAccount(email);
    // Verified in the database, not by the mailed link: the sign-up bonus is the admin's grant here.
    expect(
      (await api.post("/api/admin/grant-credits", { email, credits: 100 }, { cookie: adminCookie })).body.code,
    ).toBe(0);
    for (let i = 0; i < 4; i++) {
      const r = await api.post(
        "/api/generator/generate",
        {
          ai_type: "image",
          provider: "replicate",
          model: "black-forest-labs/flux-schnell",
          prompt: `boom ${i} [simulate:fail]`,
        },
        { cookie },
      );
      expect(r.body.code).toBe(0);
    }
    const mail = await smtp.take(admin, "alert: replicate", 20_000);
    expect(mail.text).toContain("replicate: 4 of 4 tasks failed in the last 10 minutes (100 %)");
    expect(mail.text).toContain("/admin#alerts");
    // Many more checks run (every 200 ms): still one mail.
    await Bun.sleep(1_500);
    expect(alertMails("alert: replicate")).toHaveLength(1);

    const page = await (await fetch(`${server.url}/admin`, { headers: { cookie: adminCookie } })).text();
    expect(page).toContain("replicate: 4 of 4 tasks failed");
    expect(page).toContain("mailed 1×");
  });

  test("Stripe signature failures past the threshold fire an alert", async () => {
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${server.url}/api/billing/webhook/stripe`, {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=deadbeef" },
        body: JSON.stringify({ id: `evt_${i}`, type: "checkout.session.completed" }),
      });
      expect(r.status).toBe(400);
    }
    const mail = await smtp.take(admin, "alert: 3 Stripe webhook events with a bad signature", 20_000);
    expect(mail.text).toContain("STRIPE_WEBHOOK_SECRET");
  });

  test("a member is not mailed", async () => {
    await until("the checks to have run", async () => (alertMails("alert:").length >= 2 ? true : undefined));
    expect(smtp.messages.filter((m) => m.subject.includes("alert:") && m.to !== admin)).toEqual([]);
  });
});
