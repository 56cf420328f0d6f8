/**
 * Screens of the sign-in pages and the account's sign-in methods (docs/screens/README.md): /sign-in and /sign-up with
 * Google, GitHub and an OpenID Connect provider configured and the sign-up captcha (a stand-in for Turnstile's script:
 * no network here), /account's sign-in methods with a passkey, and /account/two-factor before and during setup — at
 * 1440×900 and 390×844, light and dark, each after an axe-core audit and a check that nothing overflows sideways.
 * Run after `bun run build`: `bun scripts/screens-accounts.ts` (SHOTS_DIR to write elsewhere).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { startCaptchaFake, TURNSTILE_STAND_IN } from "../tests/fakes/captcha";
import { sessionCookie } from "../tests/support/client";
import { startOidcProvider } from "../tests/support/oidc-provider";
import { startServer } from "../tests/support/server";
import { checkScreen, forEachScreen, launchChromium } from "./screens-support";

const OUT = process.env.SHOTS_DIR ?? join(import.meta.dir, "../docs/screens");
mkdirSync(OUT, { recursive: true });
const idp = await startOidcProvider();
const verify = await startCaptchaFake("screens-secret");
const server = await startServer({
  env: {
    AUTH_RATE_LIMIT: "off",
    GOOGLE_CLIENT_ID: "screens.apps.googleusercontent.com",
    GOOGLE_CLIENT_SECRET: "screens",
    GITHUB_CLIENT_ID: "screens",
    GITHUB_CLIENT_SECRET: "screens",
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: "screens",
    OIDC_CLIENT_SECRET: "screens",
    OIDC_NAME: "Acme ID",
    CAPTCHA_PROVIDER: "turnstile",
    CAPTCHA_SITE_KEY: "screens-site-key",
    CAPTCHA_SECRET_KEY: "screens-secret",
    CAPTCHA_VERIFY_URL: verify.url,
  },
});

async function shoot(page: Page, shot: string, label: string, scheme: string) {
  await checkScreen(page, shot, label, scheme);
  await page.screenshot({ path: join(OUT, `${shot}-${label}-${scheme}.png`), fullPage: true, animations: "disabled" });
}

try {
  const email = `shots-${Date.now()}@example.test`;
  const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url, "x-captcha-response": "pass-screens" },
    body: JSON.stringify({ email, password: "correct-horse-battery", name: "Sam Shots" }),
  });
  if (!res.ok) throw new Error(`sign-up: ${res.status} ${await res.text()}`);
  const [name, value] = sessionCookie(res).split("=");

  const browser = await launchChromium();
  await forEachScreen(
    browser,
    server.url,
    async (page, label, scheme) => {
      await page.goto("/sign-in");
      await shoot(page, "sign-in-all-providers", label, scheme);
      await page.goto("/sign-up");
      await page.getByText("Success!").waitFor();
      await shoot(page, "sign-up-all-providers-captcha", label, scheme);

      const url = new URL(server.url);
      await page.context().addCookies([{ name: name!, value: value!, domain: url.hostname, path: "/" }]);
      await page.goto("/account#sign-in-methods");
      // "Add a passkey" is drawn once the page runs its script (WebAuthn needs it).
      await page.getByRole("button", { name: "Add a passkey" }).waitFor();
      await page.evaluate(() => document.getElementById("sign-in-methods")?.scrollIntoView({ block: "start" }));
      await page.screenshot({ path: join(OUT, `account-sign-in-methods-all-${label}-${scheme}.png`) });
      await page.goto("/account/two-factor");
      await shoot(page, "account-two-factor", label, scheme);
      await page.getByLabel("Your password").fill("correct-horse-battery");
      await page.getByRole("button", { name: "Set up" }).click();
      await page.getByText("Scan this code").waitFor();
      await shoot(page, "account-two-factor-setup", label, scheme);
    },
    (context) =>
      context.route("https://challenges.cloudflare.com/**", (route) =>
        route.fulfill({ contentType: "text/javascript", body: TURNSTILE_STAND_IN }),
      ),
  );
  await browser.close();
} finally {
  await server.dispose();
  await idp.stop();
  await verify.stop();
}
