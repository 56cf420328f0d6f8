/**
 * Single sign-on and the sign-up captcha in Debian's chromium: a second production server configured with an OpenID
 * Connect provider (oauth2-mock-server, tests/support/oidc-provider.ts) and a captcha whose siteverify endpoint is a
 * local fake (tests/fakes/captcha.ts). "Continue with Acme ID" ends signed in with the provider's e-mail; a refusal at
 * the provider ends on the sign-in page with its message; the sign-up form carries the widget's token (the provider's
 * script is served by a stand-in here: the browser has no network).
 */

import { expect, type Page, test } from "@playwright/test";
import { type CaptchaFake, startCaptchaFake, TURNSTILE_STAND_IN } from "../fakes/captcha";
import { startOidcProvider, type TestOidcProvider } from "../support/oidc-provider";
import { auditAndShoot, startSecondServer, unique } from "./support";

test.describe.configure({ mode: "serial" });

const PORT = Number(process.env.E2E_PORT) + 2;
const BASE = `http://localhost:${PORT}`;
const CAPTCHA_SECRET = "e2e-captcha-secret";
let idp: TestOidcProvider;
let verify: CaptchaFake;
let server: { stop(): void } | undefined;

test.beforeAll(async () => {
  test.setTimeout(60_000);
  idp = await startOidcProvider();
  verify = await startCaptchaFake(CAPTCHA_SECRET);
  server = await startSecondServer({
    port: PORT,
    tag: "sso",
    env: {
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: "atelier-e2e",
      OIDC_CLIENT_SECRET: "atelier-e2e-secret",
      OIDC_NAME: "Acme ID",
      CAPTCHA_PROVIDER: "turnstile",
      CAPTCHA_SITE_KEY: "e2e-site-key",
      CAPTCHA_SECRET_KEY: CAPTCHA_SECRET,
      CAPTCHA_VERIFY_URL: verify.url,
    },
  });
});

test.afterAll(async () => {
  server?.stop();
  await idp?.stop();
  await verify?.stop();
});

/** The signed-in person's e-mail, as the API sees the page's session. */
async function signedInEmail(page: Page): Promise<string | null> {
  const res = await page.request.post(`${BASE}/api/get-user-info`);
  const body = (await res.json()) as { code: number; data?: { email: string } };
  return body.code === 0 ? body.data!.email : null;
}

test("Continue with Acme ID: the provider's round trip ends signed in with its e-mail", async ({ page }) => {
  const email = unique("sso");
  idp.person = { sub: `sub-${email}`, email, email_verified: true, name: "Sally Sso" };
  await page.goto(`${BASE}/sign-in`);
  await page.getByRole("button", { name: "Continue with Acme ID" }).click();
  await page.waitForURL((url) => url.origin === BASE && url.pathname === "/studio");
  expect(await signedInEmail(page)).toBe(email);
  await page.goto(`${BASE}/account`);
  await expect(page.locator('[data-field="Email"]')).toHaveText(email);
});

test("a refusal at the provider ends on the sign-in page with a clear message, signed out", async ({ page }) => {
  idp.refuseNext();
  await page.goto(`${BASE}/sign-in`);
  await page.getByRole("button", { name: "Continue with Acme ID" }).click();
  await page.waitForURL((url) => url.origin === BASE && url.pathname === "/sign-in" && url.search.includes("error="));
  await expect(
    page.getByText("The sign-in was cancelled or refused at the provider. Nothing was changed."),
  ).toBeVisible();
  expect(await signedInEmail(page)).toBeNull();
});

test("sign-up with the captcha: the widget's token goes with the form and the account is made", async ({ page }) => {
  await page.route("https://challenges.cloudflare.com/**", (route) =>
    route.fulfill({ contentType: "text/javascript", body: TURNSTILE_STAND_IN }),
  );
  await page.goto(`${BASE}/sign-in`);
  await auditAndShoot(page, "sign-in-providers");
  await page.goto(`${BASE}/sign-up`);
  // Drawn after hydration, once the provider's script has loaded under the page's CSP.
  await expect(page.getByRole("status").filter({ hasText: "Success!" })).toBeVisible();
  await auditAndShoot(page, "sign-up-captcha");
  const email = unique("captcha");
  await page.getByLabel("Name").fill("Casey Captcha");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  const calls = verify.calls.length;
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL((url) => url.pathname === "/studio");
  expect(await signedInEmail(page)).toBe(email);
  expect(verify.calls.slice(calls).map((c) => c.fields.response)).toEqual(["pass-e2e-site-key"]);
});
