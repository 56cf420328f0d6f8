/**
 * Sign-in with an OpenID Connect provider found by discovery (OIDC_ISSUER), against a real provider started here
 * (tests/support/oidc-provider.ts), walked over plain HTTP like a browser without JavaScript: the "Continue with …"
 * form post, the provider's redirect, better-auth's callback (state and PKCE checked), the session.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { CookieBrowser } from "../../support/cookie-browser";
import { countIn, markVerifiedIn, queryServerDb } from "../../support/db";
import { serverForFile } from "../../support/file-server";
import { startOidcProvider, type TestOidcProvider } from "../../support/oidc-provider";

setDefaultTimeout(60_000);

/** An administrator address (ADMIN_EMAILS) a squatter tries to take through the provider before its owner signs up. */
const ADMIN_ADDRESS = uniqueEmail("sso-admin");

let idp: TestOidcProvider;
beforeAll(async () => {
  idp = await startOidcProvider();
});
afterAll(() => idp?.stop());

const s = serverForFile(() => ({
  env: {
    JOBS: "off",
    AUTH_RATE_LIMIT: "off",
    SIGNUP_CREDITS: "7",
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: "atelier-test",
    OIDC_CLIENT_SECRET: "atelier-test-secret",
    OIDC_NAME: "Acme ID",
    ADMIN_EMAILS: ADMIN_ADDRESS,
  },
}));

let people = 0;
const person = (verified = true, email = uniqueEmail("sso")) => ({
  sub: `sub-${Date.now().toString(36)}-${people++}`,
  email,
  email_verified: verified,
  name: "Sso Person",
});

/** The signed-in user's profile, or the refusal. */
async function userInfo(browser: CookieBrowser) {
  const res = await fetch(`${s.server.url}/api/get-user-info`, {
    method: "POST",
    headers: { cookie: browser.cookieHeader() },
  });
  return (await res.json()) as { code: number; data?: { uuid: string; email: string; invited_by: string } };
}

async function credits(browser: CookieBrowser) {
  const res = await fetch(`${s.server.url}/api/get-user-credits`, {
    method: "POST",
    headers: { cookie: browser.cookieHeader() },
  });
  return ((await res.json()) as { data: { left_credits: number } }).data.left_credits;
}

/** Signs up with a password; the browser then holds that session. */
async function passwordAccount(email: string) {
  const browser = new CookieBrowser(s.server.url);
  const end = await browser.submit("/sign-up", { name: "Pw Person", email, password: "correct-horse-battery" });
  expect(new URL(end.url).pathname).toBe("/studio");
  return { browser, userId: (await userInfo(browser)).data!.uuid };
}

describe("Continue with <OIDC_NAME>", () => {
  test("the sign-in and sign-up pages show the button, a form post that works without JavaScript", async () => {
    for (const page of ["/sign-in", "/sign-up"]) {
      const html = await (await fetch(`${s.server.url}${page}`)).text();
      expect(html).toContain("Continue with Acme ID");
      expect(html).toContain(`<form action="/sign-in/provider" method="post">`);
      expect(html).toContain('name="provider" value="oidc"');
    }
  });

  test("a new account: the round trip ends signed in with the provider's e-mail, the bonus and the invite code", async () => {
    const { browser: inviterBrowser, userId: inviterId } = await passwordAccount(uniqueEmail("inviter"));
    const inviteCode = (await fetch(`${s.server.url}/api/get-user-info`, {
      method: "POST",
      headers: { cookie: inviterBrowser.cookieHeader() },
    })
      .then((r) => r.json())
      .then((b) => (b as { data: { invite_code: string } }).data.invite_code)) as string;

    idp.person = person();
    const browser = new CookieBrowser(s.server.url);
    const end = await browser.submit("/sign-in/provider", { provider: "oidc", ref: inviteCode });
    // Our form → the provider's /authorize (state and an S256 PKCE challenge) → our callback → the studio.
    expect(browser.hops[1]).toStartWith(`${idp.issuer}/authorize`);
    expect(idp.lastAuthorize?.get("state")).toBeTruthy();
    expect(idp.lastAuthorize?.get("code_challenge_method")).toBe("S256");
    expect(idp.lastAuthorize?.get("redirect_uri")).toBe(`${s.server.url}/api/auth/callback/oidc`);
    expect(new URL(end.url).pathname).toBe("/studio");
    const me = await userInfo(browser);
    expect(me.code).toBe(0);
    expect(me.data!.email).toBe(idp.person.email);
    expect(me.data!.invited_by).toBe(inviterId);
    expect(await credits(browser)).toBe(7);

    // Signing in again finds the same account, and no second bonus.
    const again = new CookieBrowser(s.server.url);
    await again.submit("/sign-in/provider", { provider: "oidc" });
    expect((await userInfo(again)).data!.uuid).toBe(me.data!.uuid);
    expect(await credits(again)).toBe(7);
  });

  test("`next` is where the round trip lands", async () => {
    idp.person = person();
    const browser = new CookieBrowser(s.server.url);
    const end = await browser.submit("/sign-in/provider", { provider: "oidc", next: "/keys" });
    expect(new URL(end.url).pathname).toBe("/keys");
  });

  test("a replayed callback (state already used) signs nobody in and ends on the sign-in page", async () => {
    idp.person = person();
    const browser = new CookieBrowser(s.server.url);
    await browser.submit("/sign-in/provider", { provider: "oidc" });
    const callback = browser.hops.find((h) => h.includes("/api/auth/callback/oidc"))!;
    expect(callback).toBeTruthy();

    // Another browser replaying the same callback URL (a leaked link), and the same browser replaying it.
    for (const replayer of [new CookieBrowser(s.server.url), browser]) {
      if (replayer === browser) browser.cookies.clear();
      const end = await replayer.go(callback);
      expect(new URL(end.url).pathname).toBe("/sign-in");
      expect(new URL(end.url).searchParams.get("error")).toBeTruthy();
      expect((await userInfo(replayer)).code).not.toBe(0);
      expect(end.text).toContain("expired or was already used");
    }
  });

  test("a state forged by the browser is refused", async () => {
    idp.person = person();
    const browser = new CookieBrowser(s.server.url);
    await browser.submit("/sign-in/provider", { provider: "oidc" });
    const callback = new URL(browser.hops.find((h) => h.includes("/api/auth/callback/oidc"))!);
    callback.searchParams.set("state", "forged-state-value");
    const fresh = new CookieBrowser(s.server.url);
    const end = await fresh.go(callback.href);
    expect(new URL(end.url).pathname).toBe("/sign-in");
    expect((await userInfo(fresh)).code).not.toBe(0);
  });

  test("an error from the provider (access denied) ends on the sign-in page with a clear message", async () => {
    idp.person = person();
    idp.refuseNext();
    const browser = new CookieBrowser(s.server.url);
    const end = await browser.submit("/sign-in/provider", { provider: "oidc" });
    expect(new URL(end.url).pathname).toBe("/sign-in");
    expect(new URL(end.url).searchParams.get("error")).toBe("access_denied");
    expect(end.text).toContain("cancelled or refused at the provider");
    expect((await userInfo(browser)).code).not.toBe(0);
  });

  test("an unknown provider and a post from another site are refused before any round trip", async () => {
    const browser = new CookieBrowser(s.server.url);
    const unknown = await browser.submit("/sign-in/provider", { provider: "facebook" });
    expect(new URL(unknown.url).searchParams.get("error")).toBe("provider_not_configured");
    const cross = await browser.go("/sign-in/provider", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      body: "provider=oidc",
    });
    expect(new URL(cross.url).searchParams.get("error")).toBe("cross_site");
    expect(browser.hops.some((h) => h.startsWith(idp.issuer))).toBe(false);
  });
});

describe("linking to an existing account", () => {
  test("a confirmed account is linked when the provider says the e-mail is verified; the account page lists both", async () => {
    const email = uniqueEmail("link");
    const { userId } = await passwordAccount(email);
    await markVerifiedIn(s.server.dataDir, userId);
    idp.person = person(true, email);
    const browser = new CookieBrowser(s.server.url);
    const end = await browser.submit("/sign-in/provider", { provider: "oidc" });
    expect(new URL(end.url).pathname).toBe("/studio");
    expect((await userInfo(browser)).data!.uuid).toBe(userId);
    expect(await credits(browser)).toBe(7);

    const page = await browser.go("/account");
    expect(page.text).toContain("Sign-in methods");
    expect(page.text).toContain('data-method="credential"');
    expect(page.text).toContain('data-method="oidc"');

    // Unlink the provider while the password remains; the last method cannot go.
    const oidcRow = /data-method="oidc"[\s\S]*?name="account" value="([^"]+)"/.exec(page.text)?.[1];
    expect(oidcRow).toBeTruthy();
    const unlinked = await browser.submit("/account/sign-in", { intent: "unlink", account: oidcRow! });
    expect(new URL(unlinked.url).searchParams.get("signin")).toBe("unlinked");
    expect(unlinked.text).not.toContain('data-method="oidc"');
    expect(unlinked.text).toContain('data-method="credential"');
    expect(unlinked.text).not.toContain(">Unlink<");
  });

  test("the provider saying the e-mail is NOT verified does not link: the account keeps its owner", async () => {
    const email = uniqueEmail("nolink");
    const { userId } = await passwordAccount(email);
    await markVerifiedIn(s.server.dataDir, userId);
    idp.person = person(false, email);
    const browser = new CookieBrowser(s.server.url);
    const end = await browser.submit("/sign-in/provider", { provider: "oidc" });
    expect(new URL(end.url).pathname).toBe("/sign-in");
    expect(new URL(end.url).searchParams.get("error")).toBe("provider_sign_in_refused");
    expect((await userInfo(browser)).code).not.toBe(0);
  });

  test("an account whose own address is unconfirmed is not joined by a provider (whoever set its password keeps no way in)", async () => {
    const email = uniqueEmail("squat");
    await passwordAccount(email);
    idp.person = person(true, email);
    const browser = new CookieBrowser(s.server.url);
    const end = await browser.submit("/sign-in/provider", { provider: "oidc" });
    expect(new URL(end.url).searchParams.get("error")).toBe("provider_sign_in_refused");
    expect((await userInfo(browser)).code).not.toBe(0);
  });

  test("a taken address and a free one get the same answer: the same redirect and the same neutral message", async () => {
    const confirmed = uniqueEmail("taken-confirmed");
    await markVerifiedIn(s.server.dataDir, (await passwordAccount(confirmed)).userId);
    const unconfirmed = uniqueEmail("taken-unconfirmed");
    await passwordAccount(unconfirmed);
    const visitors = [
      person(false, confirmed), // taken, the provider does not vouch
      person(true, unconfirmed), // taken, the account's own address unconfirmed
      person(false, uniqueEmail("free")), // free, the provider does not vouch
    ];
    const answers: { callback: string | null; end: string; notice: string | undefined }[] = [];
    for (const visitor of visitors) {
      idp.person = visitor;
      const browser = new CookieBrowser(s.server.url);
      const end = await browser.submit("/sign-in/provider", { provider: "oidc" });
      const callbackAt = browser.hops.findIndex((h) => h.includes("/api/auth/callback/oidc"));
      answers.push({
        // Where the callback sent the browser (the hop after it), and the page's message.
        callback: browser.hops[callbackAt + 1] ?? null,
        end: end.url,
        notice: /role="alert"[^>]*>[\s\S]*?<div[^>]*>([^<]+)</.exec(end.text)?.[1],
      });
      expect((await userInfo(browser)).code).not.toBe(0);
    }
    expect(answers[0]!.end).toBe(`${s.server.url}/sign-in?error=provider_sign_in_refused`);
    expect(answers[0]!.callback).toBe(answers[0]!.end);
    expect(answers[1]).toEqual(answers[0]!);
    expect(answers[2]).toEqual(answers[0]!);
    expect(answers[0]!.notice).toContain("Nothing was made or linked for this address");
    expect(answers[0]!.notice).not.toContain("already exists");
  });

  test("a signed-in account links the provider from the account page", async () => {
    const email = uniqueEmail("explicit");
    const { browser, userId } = await passwordAccount(email);
    idp.person = person(true, email);
    const page = await browser.go("/account");
    expect(page.text).toContain("Link Acme ID");
    const end = await browser.submit("/account/sign-in", { intent: "link", provider: "oidc" });
    expect(new URL(end.url).pathname).toBe("/account");
    expect(new URL(end.url).searchParams.get("signin")).toBe("linked");
    expect(end.text).toContain('data-method="oidc"');
    // The provider now signs in to the same account.
    const other = new CookieBrowser(s.server.url);
    await other.submit("/sign-in/provider", { provider: "oidc" });
    expect((await userInfo(other)).data!.uuid).toBe(userId);
  });
});

/** What the database holds for an address and a provider subject: user rows, provider links. */
async function storedFor(email: string, sub: string) {
  return {
    users: await countIn(s.server.dataDir, `SELECT count(*) AS n FROM "user" WHERE email = ?`, email.toLowerCase()),
    links: await countIn(s.server.dataDir, "SELECT count(*) AS n FROM account WHERE account_id = ?", sub),
  };
}

describe("an e-mail the provider does not vouch for", () => {
  test("a sign-in with email_verified false makes nothing: no user, no link, no session; told what to do", async () => {
    idp.person = person(false);
    const browser = new CookieBrowser(s.server.url);
    const end = await browser.submit("/sign-in/provider", { provider: "oidc" });
    expect(new URL(end.url).pathname).toBe("/sign-in");
    expect(end.text).toContain("Verify the address with the provider");
    expect(end.text).toContain("sign up with your e-mail and a password");
    expect((await userInfo(browser)).code).not.toBe(0);
    expect(await storedFor(idp.person.email, idp.person.sub)).toEqual({ users: 0, links: 0 });
  });

  test("a sign-in with no email_verified claim at all is refused the same way", async () => {
    const { email_verified: _, ...noClaim } = person();
    idp.person = noClaim as ReturnType<typeof person>;
    const browser = new CookieBrowser(s.server.url);
    const end = await browser.submit("/sign-in/provider", { provider: "oidc" });
    expect(new URL(end.url).pathname).toBe("/sign-in");
    expect((await userInfo(browser)).code).not.toBe(0);
    expect(await storedFor(noClaim.email, noClaim.sub)).toEqual({ users: 0, links: 0 });
  });

  test("an ADMIN_EMAILS address: the squatter's provider sign-in leaves nothing that the owner's confirmation would promote", async () => {
    const squatter = person(false, ADMIN_ADDRESS);
    idp.person = squatter;
    const first = new CookieBrowser(s.server.url);
    await first.submit("/sign-in/provider", { provider: "oidc" });
    expect(await storedFor(ADMIN_ADDRESS, squatter.sub)).toEqual({ users: 0, links: 0 });

    // The owner signs up with a password and confirms the mailbox: the account is theirs alone.
    const owner = new CookieBrowser(s.server.url);
    await owner.submit("/sign-up", { name: "Owner", email: ADMIN_ADDRESS, password: "correct-horse-battery" });
    const [row] = await queryServerDb<{ id: string }>(
      s.server.dataDir,
      `SELECT id FROM "user" WHERE email = ?`,
      ADMIN_ADDRESS,
    );
    expect(row).toBeTruthy();
    await markVerifiedIn(s.server.dataDir, row!.id);

    // The squatter comes back through the provider: still no link, no session.
    idp.person = squatter;
    const again = new CookieBrowser(s.server.url);
    const end = await again.submit("/sign-in/provider", { provider: "oidc" });
    expect(new URL(end.url).pathname).toBe("/sign-in");
    expect((await userInfo(again)).code).not.toBe(0);
    expect(await storedFor(ADMIN_ADDRESS, squatter.sub)).toEqual({ users: 1, links: 0 });
  });
});

describe("disposable addresses", () => {
  test("a password sign-up and a provider sign-up with a throwaway mailbox are refused, no account made", async () => {
    const email = `someone-${Date.now().toString(36)}@mailinator.com`;
    const form = new CookieBrowser(s.server.url);
    const page = await form.submit("/sign-up", { name: "Throwaway", email, password: "correct-horse-battery" });
    expect(new URL(page.url).pathname).toBe("/sign-up");
    expect(page.text).toContain("disposable e-mail addresses are not accepted");
    expect((await userInfo(form)).code).not.toBe(0);

    idp.person = person(true, email);
    const browser = new CookieBrowser(s.server.url);
    const end = await browser.submit("/sign-in/provider", { provider: "oidc" });
    expect(new URL(end.url).pathname).toBe("/sign-in");
    expect(end.text).toContain("disposable e-mail addresses are not accepted");
    expect((await userInfo(browser)).code).not.toBe(0);
  });
});

describe("the sign-up bonus once per provider account", () => {
  test("a provider account back with another e-mail after its account was deleted makes an account without a bonus", async () => {
    const first = person();
    idp.person = first;
    const browser = new CookieBrowser(s.server.url);
    await browser.submit("/sign-in/provider", { provider: "oidc" });
    expect(await credits(browser)).toBe(7);
    const deleted = await fetch(`${s.server.url}/api/account/delete`, {
      method: "POST",
      headers: { cookie: browser.cookieHeader(), origin: s.server.url, "content-type": "application/json" },
      body: JSON.stringify({ confirm: first.email }),
    });
    expect(((await deleted.json()) as { code: number }).code).toBe(0);

    // The same person at the provider (same subject), now with an address this site never saw.
    idp.person = { ...first, email: uniqueEmail("sso-new-address") };
    const again = new CookieBrowser(s.server.url);
    const end = await again.submit("/sign-in/provider", { provider: "oidc" });
    expect(new URL(end.url).pathname).toBe("/studio");
    const me = await userInfo(again);
    expect(me.data!.email).toBe(idp.person.email);
    expect(await credits(again)).toBe(0);

    // Another subject with a new address still gets it.
    idp.person = person();
    const other = new CookieBrowser(s.server.url);
    await other.submit("/sign-in/provider", { provider: "oidc" });
    expect(await credits(other)).toBe(7);
  });
});
