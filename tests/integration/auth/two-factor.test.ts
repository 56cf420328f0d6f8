/**
 * Two-factor with an authenticator app (TOTP, codes computed here by otpauth) and one-time backup codes, through the
 * pages as a browser without JavaScript uses them: set up on /account/two-factor, then every password sign-in stops
 * at /sign-in/two-factor until a right code is given.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { Secret, TOTP } from "otpauth";
import { uniqueEmail } from "../../support/client";
import { CookieBrowser } from "../../support/cookie-browser";
import { serverForFile } from "../../support/file-server";

setDefaultTimeout(60_000);

const s = serverForFile({ env: { JOBS: "off", AUTH_RATE_LIMIT: "off" } });
const PASSWORD = "correct-horse-battery";

async function signedInAs(browser: CookieBrowser): Promise<string | null> {
  const res = await fetch(`${s.server.url}/api/get-user-info`, {
    method: "POST",
    headers: { cookie: browser.cookieHeader() },
  });
  const body = (await res.json()) as { code: number; data?: { email: string } };
  return body.code === 0 ? body.data!.email : null;
}

const totpOf = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" });

/** An account with two-factor on: its e-mail, TOTP generator and backup codes. */
async function accountWithTwoFactor() {
  const email = uniqueEmail("2fa");
  const browser = new CookieBrowser(s.server.url);
  await browser.submit("/sign-up", { name: "Two Factor", email, password: PASSWORD });
  const setup = await browser.submit("/account/two-factor", { intent: "enable", password: PASSWORD });
  const secret = /data-testid="totp-secret">([A-Z2-7 ]+)</.exec(setup.text)?.[1]?.replaceAll(" ", "");
  expect(secret).toBeTruthy();
  const codesList = /data-testid="backup-codes">([\s\S]*?)<\/ul>/.exec(setup.text)?.[1] ?? "";
  const backupCodes = [...codesList.matchAll(/<li[^>]*>([^<]+)<\/li>/g)].map((m) => m[1]!);
  expect(backupCodes.length).toBe(10);
  const totp = totpOf(secret!);
  const wrongFirst = await browser.submit("/account/two-factor", {
    intent: "verify",
    code: "000000" === totp.generate() ? "111111" : "000000",
    totp_uri: totp.toString(),
  });
  expect(wrongFirst.text).toContain("That code is not right");
  const on = await browser.submit("/account/two-factor", { intent: "verify", code: totp.generate() });
  expect(on.text).toContain("Two-factor is on");
  return { email, totp, backupCodes };
}

async function passwordStep(email: string) {
  const browser = new CookieBrowser(s.server.url);
  const end = await browser.submit("/sign-in", { email, password: PASSWORD, next: "/keys" });
  return { browser, end };
}

describe("two-factor (TOTP and backup codes)", () => {
  test("once on, a password sign-in stops at the code; a wrong code is refused, the right one signs in", async () => {
    const { email, totp } = await accountWithTwoFactor();
    const { browser, end } = await passwordStep(email);
    expect(new URL(end.url).pathname).toBe("/sign-in/two-factor");
    expect(await signedInAs(browser)).toBeNull();

    const wrong = await browser.submit("/sign-in/two-factor", { code: "000000", next: "/keys" });
    expect(new URL(wrong.url).pathname).toBe("/sign-in/two-factor");
    expect(await signedInAs(browser)).toBeNull();

    const right = await browser.submit("/sign-in/two-factor", { code: totp.generate(), next: "/keys" });
    expect(new URL(right.url).pathname).toBe("/keys");
    expect(await signedInAs(browser)).toBe(email);

    const account = await browser.go("/account");
    expect(account.text).toContain("Manage two-factor");
  });

  test("a backup code signs in once; the same code again is refused", async () => {
    const { email, backupCodes } = await accountWithTwoFactor();
    const first = await passwordStep(email);
    const used = await first.browser.submit("/sign-in/two-factor", { method: "backup", code: backupCodes[0]! });
    expect(new URL(used.url).pathname).toBe("/studio");
    expect(await signedInAs(first.browser)).toBe(email);

    const second = await passwordStep(email);
    const again = await second.browser.submit("/sign-in/two-factor", { method: "backup", code: backupCodes[0]! });
    expect(again.text).toContain("That backup code is not valid (each one works once)");
    expect(await signedInAs(second.browser)).toBeNull();
  });

  test("a code without the pending sign-in (no password step) signs nobody in", async () => {
    const { totp } = await accountWithTwoFactor();
    const stranger = new CookieBrowser(s.server.url);
    const end = await stranger.submit("/sign-in/two-factor", { code: totp.generate() });
    expect(end.text).toContain("This sign-in has expired");
    expect(await signedInAs(stranger)).toBeNull();
  });

  test("turned off with the password, sign-in asks for no code again", async () => {
    const { email, totp } = await accountWithTwoFactor();
    const { browser } = await passwordStep(email);
    await browser.submit("/sign-in/two-factor", { code: totp.generate() });
    const wrongPassword = await browser.submit("/account/two-factor", { intent: "disable", password: "not-it-at-all" });
    expect(wrongPassword.text).toContain("The password is not right");
    const off = await browser.submit("/account/two-factor", { intent: "disable", password: PASSWORD });
    expect(off.text).toContain("Two-factor is off");
    const plain = await passwordStep(email);
    expect(new URL(plain.end.url).pathname).toBe("/keys");
    expect(await signedInAs(plain.browser)).toBe(email);
  });
});
