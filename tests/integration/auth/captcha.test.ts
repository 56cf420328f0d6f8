/**
 * The captcha on e-mail sign-up (docs/decisions/125-captcha-on-sign-up.md), against a local fake of the provider's
 * siteverify endpoint (tests/fakes/captcha.ts) over real HTTP: the sign-up form post carries the widget's token, a
 * pass makes the account, and a refusal, a broken endpoint or one that never answers refuses the sign-up with a clear
 * message and writes nothing (no account, no credits).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type CaptchaFake, startCaptchaFake } from "../../fakes/captcha";
import { uniqueEmail } from "../../support/client";
import { CookieBrowser } from "../../support/cookie-browser";
import { countIn } from "../../support/db";
import { serverForFile } from "../../support/file-server";

setDefaultTimeout(60_000);

const SECRET = "0x-captcha-secret";
const SITE_KEY = "0x-captcha-site-key";
const TIMEOUT_MS = 1500;
let turnstile: CaptchaFake;
let hcaptcha: CaptchaFake;
beforeAll(async () => {
  turnstile = await startCaptchaFake(SECRET);
  hcaptcha = await startCaptchaFake(SECRET);
});
afterAll(async () => {
  await turnstile?.stop();
  await hcaptcha?.stop();
});

const s = serverForFile(() => ({
  env: {
    JOBS: "off",
    AUTH_RATE_LIMIT: "off",
    SIGNUP_CREDITS: "7",
    CAPTCHA_PROVIDER: "turnstile",
    CAPTCHA_SITE_KEY: SITE_KEY,
    CAPTCHA_SECRET_KEY: SECRET,
    CAPTCHA_VERIFY_URL: turnstile.url,
    CAPTCHA_TIMEOUT_MS: String(TIMEOUT_MS),
  },
}));

const accounts = (email: string) =>
  countIn(s.server.dataDir, `SELECT count(*) AS n FROM "user" WHERE email = ?`, email);
const grants = () => countIn(s.server.dataDir, `SELECT count(*) AS n FROM credit_grants WHERE source = 'signup'`);

/** The sign-up form posted like a browser (the widget's hidden field named as Turnstile names it). */
async function signUp(email: string, token?: string, field = "cf-turnstile-response") {
  const browser = new CookieBrowser(s.server.url);
  const fields: Record<string, string> = { name: "Captcha Person", email, password: "correct-horse-battery" };
  if (token !== undefined) fields[field] = token;
  const end = await browser.submit("/sign-up", fields);
  return { browser, end };
}

async function credits(browser: CookieBrowser) {
  const res = await fetch(`${s.server.url}/api/get-user-credits`, {
    method: "POST",
    headers: { cookie: browser.cookieHeader() },
  });
  return ((await res.json()) as { code: number; data: { left_credits: number } }).data.left_credits;
}

describe("captcha on the sign-up page", () => {
  test("the page carries the widget's site key and its CSP allows the provider's script and frame", async () => {
    const res = await fetch(`${s.server.url}/sign-up`);
    const html = await res.text();
    expect(html).toContain('data-captcha="turnstile"');
    expect(html).toContain(SITE_KEY);
    expect(html).not.toContain(SECRET);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self' 'nonce-");
    expect(csp).toMatch(/script-src [^;]*https:\/\/challenges\.cloudflare\.com/);
    expect(csp).toMatch(/frame-src [^;]*https:\/\/challenges\.cloudflare\.com/);
  });

  test("a passed check makes the account: signed in, with the sign-up bonus; the secret and token went to siteverify", async () => {
    const email = uniqueEmail("captcha-pass");
    const before = turnstile.calls.length;
    const { browser, end } = await signUp(email, "pass-token-1");
    expect(new URL(end.url).pathname).toBe("/studio");
    expect(await credits(browser)).toBe(7);
    const call = turnstile.calls[before]!;
    expect(call.contentType).toContain("application/json");
    expect(call.fields.secret).toBe(SECRET);
    expect(call.fields.response).toBe("pass-token-1");
  });

  const refusals: [string, string | undefined, string][] = [
    ["no token", undefined, "Complete the captcha check, then sign up again."],
    ["a token the provider refuses", "wrong-answer", "The captcha check failed. Try it again, then sign up."],
    [
      "the verify endpoint failing",
      "broken",
      "The captcha check could not be completed right now. Try again in a moment.",
    ],
  ];
  for (const [what, token, message] of refusals) {
    test(`${what}: refused on the form, no account and no credits`, async () => {
      const email = uniqueEmail("captcha-no");
      const grantsBefore = await grants();
      const { browser, end } = await signUp(email, token);
      expect(new URL(end.url).pathname).toBe("/sign-up");
      expect(end.text).toContain(message);
      expect(browser.cookies.size).toBe(0);
      expect(await accounts(email)).toBe(0);
      expect(await grants()).toBe(grantsBefore);
    });
  }

  test("a verify endpoint that never answers: refused after CAPTCHA_TIMEOUT_MS, nothing made", async () => {
    const email = uniqueEmail("captcha-hang");
    const started = performance.now();
    const { end } = await signUp(email, "hang");
    const took = performance.now() - started;
    expect(end.text).toContain("The captcha check could not be completed right now. Try again in a moment.");
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(took).toBeLessThan(TIMEOUT_MS + 8000);
    expect(await accounts(email)).toBe(0);
  });

  test("better-auth's JSON sign-up is guarded too: the token in X-Captcha-Response, refusals with their own codes", async () => {
    const post = (email: string, headers: Record<string, string> = {}) =>
      fetch(`${s.server.url}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: s.server.url, ...headers },
        body: JSON.stringify({ email, password: "correct-horse-battery", name: "Json Person" }),
      });
    const missing = await post(uniqueEmail("captcha-json"));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      code: "CAPTCHA_REQUIRED",
      message: "Complete the captcha check, then sign up again.",
    });
    const refused = await post(uniqueEmail("captcha-json"), { "x-captcha-response": "wrong-answer" });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe("CAPTCHA_FAILED");
    const email = uniqueEmail("captcha-json");
    const passed = await post(email, { "x-captcha-response": "pass-json" });
    expect(passed.status).toBe(200);
    expect(await accounts(email)).toBe(1);
  });

  test("signing in asks for no captcha", async () => {
    const email = uniqueEmail("captcha-in");
    await signUp(email, "pass-token-2");
    const res = await fetch(`${s.server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: s.server.url },
      body: JSON.stringify({ email, password: "correct-horse-battery" }),
    });
    expect(res.status).toBe(200);
  });
});

describe("hCaptcha", () => {
  const h = serverForFile(() => ({
    env: {
      JOBS: "off",
      AUTH_RATE_LIMIT: "off",
      CAPTCHA_PROVIDER: "hcaptcha",
      CAPTCHA_SITE_KEY: SITE_KEY,
      CAPTCHA_SECRET_KEY: SECRET,
      CAPTCHA_VERIFY_URL: hcaptcha.url,
    },
  }));

  test("the form's h-captcha-response goes to siteverify urlencoded with the site key; a refusal makes nothing", async () => {
    const html = await (await fetch(`${h.server.url}/sign-up`)).text();
    expect(html).toContain('data-captcha="hcaptcha"');
    const browser = new CookieBrowser(h.server.url);
    const email = uniqueEmail("hcaptcha");
    const refused = await browser.submit("/sign-up", {
      name: "H Person",
      email,
      password: "correct-horse-battery",
      "h-captcha-response": "wrong-answer",
    });
    expect(refused.text).toContain("The captcha check failed. Try it again, then sign up.");
    expect(await countIn(h.server.dataDir, `SELECT count(*) AS n FROM "user" WHERE email = ?`, email)).toBe(0);
    const passed = await browser.submit("/sign-up", {
      name: "H Person",
      email,
      password: "correct-horse-battery",
      "h-captcha-response": "pass-h",
    });
    expect(new URL(passed.url).pathname).toBe("/studio");
    const call = hcaptcha.calls.at(-1)!;
    expect(call.contentType).toContain("application/x-www-form-urlencoded");
    expect(call.fields).toMatchObject({ secret: SECRET, response: "pass-h", sitekey: SITE_KEY });
  });
});
