/**
 * review3: an open redirect on our own origin through better-auth's
 * `callbackURL`. better-auth checks that a relative callbackURL is a path, then
 * normalises it: `/.//evil.example` (and `/..//…`, `/a/..//…`) becomes
 * `//evil.example`, which it sends as `Location` — a browser reads that as
 * another host. A link such as
 *   https://atelier.example/api/auth/verify-email?token=x&callbackURL=/.//evil.example
 * carries our name and lands on the attacker's page (phishing: "your link
 * expired, sign in again"). Now every redirect parameter better-auth reads is
 * resolved on PUBLIC_URL first and refused (403 INVALID_CALLBACK_URL, as
 * better-auth answers a foreign one) unless it stays on the site as a path.
 */
import { expect, test } from "bun:test";
import { serverForFile } from "../../support/file-server";

const s = serverForFile();

const SPELLINGS = [
  "/.//evil.example",
  "/..//evil.example",
  "/a/..//evil.example",
  "/././/evil.example/x",
  "/%2e//evil.example",
];

/** Where a browser goes after this answer: the Location resolved against the page it asked. */
const destination = (res: Response, asked: string) => {
  const loc = res.headers.get("location");
  return loc === null ? null : new URL(loc, asked);
};

for (const cb of SPELLINGS) {
  for (const path of ["/api/auth/verify-email?token=expired", "/api/auth/reset-password/expired"]) {
    test(`${path} with callbackURL=${cb} never sends the browser off the site`, async () => {
      const asked = `${s.server.url}${path}${path.includes("?") ? "&" : "?"}callbackURL=${encodeURIComponent(cb)}`;
      const res = await fetch(asked, { redirect: "manual" });
      await res.text();
      const to = destination(res, asked);
      console.log(`${path} ${cb}: HTTP ${res.status} → ${to?.href ?? "(no redirect)"}`);
      if (to) expect(to.origin).toBe(new URL(s.server.url).origin);
    });
  }
}

test("a callbackURL on the site still works: verify-email with a bad token goes to /verify-email with the error", async () => {
  const asked = `${s.server.url}/api/auth/verify-email?token=expired&callbackURL=${encodeURIComponent("/verify-email")}`;
  const res = await fetch(asked, { redirect: "manual" });
  expect(res.status).toBe(302);
  const to = destination(res, asked)!;
  expect(to.origin).toBe(new URL(s.server.url).origin);
  expect(to.pathname).toBe("/verify-email");
  expect(to.searchParams.get("error")).toBe("INVALID_TOKEN");
});

test("the same spellings in a JSON body (request-password-reset redirectTo) are refused too", async () => {
  const res = await fetch(`${s.server.url}/api/auth/request-password-reset`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: s.server.url },
    body: JSON.stringify({ email: "someone@example.test", redirectTo: "/.//evil.example" }),
  });
  expect(res.status).toBe(403);
  expect(((await res.json()) as { code: string }).code).toBe("INVALID_CALLBACK_URL");
});
