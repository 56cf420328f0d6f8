/**
 * Account e-mails in the recipient's language (issue #44): the account keeps the language it signed up in (the lng
 * cookie, else Accept-Language), the language menu changes it, and every account mail follows it.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type SmtpFake, startSmtp } from "../../fakes/smtp";
import { sessionCookie, uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { startServer, type TestServer } from "../../support/server";

setDefaultTimeout(60_000);

let smtp: SmtpFake;
let server: TestServer;
const PASSWORD = "correct-horse-battery";

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({ env: { SMTP_URL: smtp.url, MAIL_FROM: "Atelier <robot@atelier.test>" } });
});
afterAll(async () => {
  await server?.dispose();
  await smtp?.close();
});

const form = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(server.url + path, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url, ...headers },
    body: new URLSearchParams(body),
  });
const languageOf = async (email: string) =>
  (await queryServerDb(server.dataDir, `SELECT language FROM "user" WHERE email = ?`, email))[0]?.language ?? null;

test("sign-up on the German page: the account is German, and so is its confirmation mail", async () => {
  const email = uniqueEmail("lng-de");
  const r = await form("/sign-up", { name: "Grete", email, password: PASSWORD }, { cookie: "lng=de" });
  expect(r.status).toBe(200);
  const mail = await smtp.take(email, "Bestätige deine E-Mail-Adresse für Atelier");
  expect(mail.text).toContain("Der Link gilt 24 Stunden.");
  expect(smtp.linkIn(mail, `${server.url}/verify-email?token=`)).toBeTruthy();
  expect(await languageOf(email)).toBe("de");
});

test("sign-up through the API with Accept-Language ja: Japanese; with no preference: English, no language kept", async () => {
  const ja = uniqueEmail("lng-ja");
  const post = (email: string, headers: Record<string, string>) =>
    fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url, ...headers },
      body: JSON.stringify({ email, password: PASSWORD, name: "Kei" }),
    });
  expect((await post(ja, { "accept-language": "ja-JP,ja;q=0.9" })).status).toBe(200);
  await smtp.take(ja, "Atelier のメールアドレスを確認してください");
  expect(await languageOf(ja)).toBe("ja");
  const en = uniqueEmail("lng-none");
  expect((await post(en, {})).status).toBe(200);
  const mail = await smtp.take(en, "Confirm your e-mail address for Atelier");
  expect(mail.text.startsWith("Hello,")).toBe(true);
  expect(await languageOf(en)).toBeNull();
});

test("the language menu while signed in changes the account's language: the reset mail comes in French", async () => {
  const email = uniqueEmail("lng-switch");
  await form("/sign-up", { name: "Ana", email, password: PASSWORD }, { cookie: "lng=es" });
  const confirm = await smtp.take(email, "Confirma tu correo electrónico en Atelier");
  expect((await fetch(smtp.linkIn(confirm, `${server.url}/verify-email?token=`))).status).toBe(200);
  const signIn = await fetch(`${server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  const cookie = sessionCookie(signIn);
  const menu = await form("/language", { lng: "fr", redirectTo: "/account" }, { cookie });
  expect(menu.status).toBe(302);
  expect(await languageOf(email)).toBe("fr");
  // Asked from an English page: the mail still follows the account's language.
  expect((await form("/forgot-password", { email })).status).toBe(200);
  const reset = await smtp.take(email, "Réinitialisez votre mot de passe Atelier");
  expect(reset.text).toContain("Le lien est valable 1 heure et une seule fois.");
  // Another account is untouched by this one's choice.
  const other = uniqueEmail("lng-other");
  await form("/sign-up", { name: "Bo", email: other, password: PASSWORD });
  await smtp.take(other, "Confirm your e-mail address for Atelier");
  expect(await languageOf(other)).toBeNull();
});
