/**
 * Taking an account back (docs/decisions/138-taking-an-account-back.md): a password reset, or a verification link
 * opened by someone who is not signed in to the account, proves the mailbox's owner holds it now, so every way in
 * not proven by the mailbox goes: sessions, API keys and webhooks made before (tests/integration/admin/first-admin
 * .security.test.ts), passkeys, two-factor (secret, backup codes, trusted devices) and linked sign-in providers.
 * The account's own signed-in owner confirming the address loses nothing. The reset page, the page after it and the
 * reset mail say what a reset removes.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Secret, TOTP } from "otpauth";
import { Client, uniqueEmail } from "../../support/client";
import { CookieBrowser } from "../../support/cookie-browser";
import { countIn, queryServerDb } from "../../support/db";
import { startOidcProvider, type TestOidcProvider } from "../../support/oidc-provider";
import { PasskeyAuthenticator } from "../../support/passkey-authenticator";
import { startServer, type TestServer } from "../../support/server";

setDefaultTimeout(60_000);

let server: TestServer;
let api: Client;
let idp: TestOidcProvider;

beforeAll(async () => {
  idp = await startOidcProvider();
  server = await startServer({
    env: {
      LOG_LEVEL: "info",
      WEBHOOK_ALLOW_PRIVATE: "true",
      AUTH_RATE_LIMIT: "off",
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: "atelier-test",
      OIDC_CLIENT_SECRET: "atelier-test-secret",
    },
  });
  api = new Client(server.url);
});
afterAll(async () => {
  await server?.dispose();
  idp?.stop();
});

async function verifyLinkOf(email: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const line = server
      .logs()
      .split("\n")
      .find((l) => l.includes('"mail not sent') && l.includes(email) && l.includes("/verify-email?token="));
    const link = line ? /(http:\/\/\S+\/verify-email\?token=[^\s"\\]+)/.exec(JSON.parse(line).text)?.[1] : undefined;
    if (link) return link;
    await Bun.sleep(25);
  }
  throw new Error(`no verification link for ${email} in the log`);
}

async function armedAccount(tag: string) {
  const email = uniqueEmail(tag);
  const { cookie } = await api.signUp(email);
  const key = (await api.post("/api/keys/create", { name: "k" }, { cookie })).body.data.key as string;
  const hook = await api.post("/api/webhooks/create", { url: "http://127.0.0.1:9/h" }, { cookie });
  expect(hook.body.code).toBe(0);
  return { email, cookie, key };
}

const webhookStatuses = async (cookie: string) =>
  ((await api.post("/api/webhooks/list", {}, { cookie })).body.data?.webhooks ?? []).map(
    (w: { status: string }) => w.status,
  );

describe("a verification that changes who holds the account", () => {
  test("opened by someone not signed in to it: the sessions, keys and webhooks made before are revoked", async () => {
    const holder = await armedAccount("taken-back");
    const link = await verifyLinkOf(holder.email);
    const page = await fetch(link);
    expect(await page.text()).toContain("E-mail confirmed");
    expect((await api.post("/api/get-user-info", undefined, { cookie: holder.cookie })).body.message).toBe(
      "no auth, please sign-in",
    );
    expect((await api.post("/api/get-user-info", undefined, { apiKey: holder.key })).body.code).toBe(1);
    const fresh = await api.signIn(holder.email);
    expect(await webhookStatuses(fresh)).toEqual(["disabled"]);
  });

  test("opened by the account's own signed-in owner: nothing is revoked", async () => {
    const owner = await armedAccount("kept");
    const link = await verifyLinkOf(owner.email);
    const page = await fetch(link, { headers: { cookie: owner.cookie } });
    expect(await page.text()).toContain("E-mail confirmed");
    expect((await api.post("/api/get-user-info", undefined, { cookie: owner.cookie })).body.code).toBe(0);
    expect((await api.post("/api/get-user-info", undefined, { apiKey: owner.key })).body.code).toBe(0);
    expect(await webhookStatuses(owner.cookie)).toEqual(["active"]);
  });
});

describe("what a reset revokes is said before it happens", () => {
  test("the reset page and the reset mail name sessions, API keys and webhooks", async () => {
    const page = await (await fetch(`${server.url}/reset-password?token=anything`)).text();
    expect(page).toContain("signs out every session of this account and revokes its API keys and webhooks");
    expect(page).toContain(
      "removes its passkeys, its two-factor (authenticator app, backup codes, trusted devices) and its linked sign-in providers",
    );
    const { email } = await armedAccount("reset-mail");
    await fetch(`${server.url}/api/auth/request-password-reset`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email, redirectTo: "/reset-password" }),
    });
    let text = "";
    for (let i = 0; i < 200 && !text; i++) {
      const line = server
        .logs()
        .split("\n")
        .find((l) => l.includes('"mail not sent') && l.includes(email) && l.includes("/reset-password?token="));
      text = line ? JSON.parse(line).text : "";
      if (!text) await Bun.sleep(25);
    }
    expect(text).toContain("signs out every session of the\naccount and revokes its API keys and webhooks");
    expect(text.replaceAll("\n", " ")).toContain(
      "removes its passkeys, its two-factor (authenticator app, backup codes, trusted devices) and its linked sign-in providers",
    );
  });
});

const SQUATTER_PASSWORD = "squatters-own-password";
const OWNER_PASSWORD = "owners-new-password";

async function resetLinkOf(email: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const line = server
      .logs()
      .split("\n")
      .filter((l) => l.includes('"mail not sent') && l.includes(email) && l.includes("/reset-password?token="))
      .at(-1);
    const link = line ? /(http:\/\/\S+\/reset-password\?token=[^\s"\\]+)/.exec(JSON.parse(line).text)?.[1] : undefined;
    if (link) return link;
    await Bun.sleep(25);
  }
  throw new Error(`no reset link for ${email} in the log`);
}

/** The owner resets the password from the mailbox, through the pages: where the form lands. */
async function ownerResets(email: string) {
  const owner = new CookieBrowser(server.url);
  await owner.submit("/forgot-password", { email });
  const token = new URL(await resetLinkOf(email)).searchParams.get("token")!;
  return owner.submit(`/reset-password?token=${encodeURIComponent(token)}`, {
    token,
    password: OWNER_PASSWORD,
    confirm: OWNER_PASSWORD,
  });
}

async function signedInAs(browser: CookieBrowser): Promise<string | null> {
  const res = await fetch(`${server.url}/api/get-user-info`, {
    method: "POST",
    headers: { cookie: browser.cookieHeader() },
  });
  const body = (await res.json()) as { code: number; data?: { email: string } };
  return body.code === 0 ? body.data!.email : null;
}

/**
 * A squatter who registered someone else's address and armed it with every way in the account offers: two-factor
 * (a trusted device too), a passkey, a linked provider. Each checked to work before the owner acts.
 */
async function squattedAccount() {
  const email = uniqueEmail("squatted");
  const squatter = new CookieBrowser(server.url);
  await squatter.submit("/sign-up", { name: "Squatter", email, password: SQUATTER_PASSWORD });
  expect(await signedInAs(squatter)).toBe(email);
  const [row] = await queryServerDb<{ id: string }>(server.dataDir, `SELECT id FROM "user" WHERE email = ?`, email);
  const userId = row!.id;

  const passkey = new PasskeyAuthenticator(server.url);
  expect(await passkey.register(squatter)).toBe(200);

  // The provider vouches for the address (a provider the squatter controls): the link is made from the account page.
  idp.person = { sub: `squatter-${crypto.randomUUID()}`, email, email_verified: true, name: "Squatter" };
  const linked = await squatter.submit("/account/sign-in", { intent: "link", provider: "oidc" });
  expect(new URL(linked.url).searchParams.get("signin")).toBe("linked");

  const setup = await squatter.submit("/account/two-factor", { intent: "enable", password: SQUATTER_PASSWORD });
  const secret = /data-testid="totp-secret">([A-Z2-7 ]+)</.exec(setup.text)?.[1]?.replaceAll(" ", "");
  const totp = new TOTP({ secret: Secret.fromBase32(secret!), digits: 6, period: 30, algorithm: "SHA1" });
  expect((await squatter.submit("/account/two-factor", { intent: "verify", code: totp.generate() })).text).toContain(
    "Two-factor is on",
  );
  // A password sign-in now stops at the code; the squatter answers it and asks to trust the device (30 days).
  const device = new CookieBrowser(server.url);
  const step = await device.submit("/sign-in", { email, password: SQUATTER_PASSWORD });
  expect(new URL(step.url).pathname).toBe("/sign-in/two-factor");
  const trusted = await device.go("/api/auth/two-factor/verify-totp", {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url },
    body: JSON.stringify({ code: totp.generate(), trustDevice: true }),
  });
  expect(trusted.status).toBe(200);
  expect([...device.cookies.keys()].some((name) => name.includes("trust_device"))).toBe(true);

  // Before the owner acts, each of them signs in; the link answers for its provider subject whatever address the
  // provider gives later (here the squatter's own).
  expect(await passkey.signIn(new CookieBrowser(server.url))).toBe(200);
  const provider = { ...idp.person, email: uniqueEmail("squatter-own") };
  idp.person = provider;
  const viaProvider = new CookieBrowser(server.url);
  await viaProvider.submit("/sign-in/provider", { provider: "oidc" });
  expect(await signedInAs(viaProvider)).toBe(email);
  return { email, userId, passkey, totp, provider };
}

/** What is left of each way in for the account, in its rows. */
async function waysIn(userId: string) {
  const dir = server.dataDir;
  return {
    passkeys: await countIn(dir, "SELECT count(*) AS n FROM passkey WHERE user_id = ?", userId),
    twoFactorRows: await countIn(dir, "SELECT count(*) AS n FROM two_factor WHERE user_id = ?", userId),
    twoFactorOn: await countIn(dir, `SELECT count(*) AS n FROM "user" WHERE id = ? AND two_factor_enabled = 1`, userId),
    trustedDevices: await countIn(
      dir,
      "SELECT count(*) AS n FROM verification WHERE value = ? AND identifier LIKE 'trust-device-%'",
      userId,
    ),
    providers: await countIn(
      dir,
      "SELECT count(*) AS n FROM account WHERE user_id = ? AND provider_id <> 'credential'",
      userId,
    ),
  };
}

describe("a password reset takes everything back", () => {
  test("the squatter's TOTP no longer guards the account and the squatter's passkey no longer signs in", async () => {
    const { email, userId, passkey } = await squattedAccount();
    expect(await waysIn(userId)).toEqual({
      passkeys: 1,
      twoFactorRows: 1,
      twoFactorOn: 1,
      trustedDevices: 1,
      providers: 1,
    });

    const done = await ownerResets(email);
    expect(new URL(done.url).pathname).toBe("/sign-in");

    // The owner's sign-in with the new password gives a session, no two-factor step.
    const owner = new CookieBrowser(server.url);
    const end = await owner.submit("/sign-in", { email, password: OWNER_PASSWORD, next: "/keys" });
    expect(new URL(end.url).pathname).toBe("/keys");
    expect(await signedInAs(owner)).toBe(email);

    const again = new CookieBrowser(server.url);
    expect(await passkey.signIn(again)).not.toBe(200);
    expect(await signedInAs(again)).toBeNull();
    expect(await waysIn(userId)).toEqual({
      passkeys: 0,
      twoFactorRows: 0,
      twoFactorOn: 0,
      trustedDevices: 0,
      providers: 0,
    });
  });

  test("the squatter's linked provider no longer signs in; the page after the reset says what went", async () => {
    const { email, provider } = await squattedAccount();
    const done = await ownerResets(email);
    expect(done.text).toContain("Every other way into the account is gone");
    expect(done.text).toContain(
      "passkeys, two-factor (authenticator, backup codes, trusted devices) and linked sign-in providers",
    );

    idp.person = provider;
    const viaProvider = new CookieBrowser(server.url);
    await viaProvider.submit("/sign-in/provider", { provider: "oidc" });
    // The same provider subject now finds no link: at most an account of its own address, never the owner's.
    expect(await signedInAs(viaProvider)).not.toBe(email);
    expect(
      await countIn(
        server.dataDir,
        `SELECT count(*) AS n FROM account a JOIN "user" u ON u.id = a.user_id WHERE a.account_id = ? AND u.email = ?`,
        provider.sub,
        email,
      ),
    ).toBe(0);
  });

  test("a verification opened by someone not signed in removes passkeys, two-factor and links too", async () => {
    const { email, userId } = await squattedAccount();
    const link = await verifyLinkOf(email);
    expect(await (await fetch(link)).text()).toContain("E-mail confirmed");
    expect(await waysIn(userId)).toEqual({
      passkeys: 0,
      twoFactorRows: 0,
      twoFactorOn: 0,
      trustedDevices: 0,
      providers: 0,
    });
  });

  test("another account's passkeys, two-factor and links are untouched by this account's reset", async () => {
    const bystander = await squattedAccount();
    const { email } = await squattedAccount();
    await ownerResets(email);
    expect(await waysIn(bystander.userId)).toEqual({
      passkeys: 1,
      twoFactorRows: 1,
      twoFactorOn: 1,
      trustedDevices: 1,
      providers: 1,
    });
    expect(await bystander.passkey.signIn(new CookieBrowser(server.url))).toBe(200);
  });
});
