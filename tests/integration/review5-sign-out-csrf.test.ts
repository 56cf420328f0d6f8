/**
 * The sign-out form posts to `/sign-out`, a resource route: React Router checks Origin only for page routes'
 * actions, and better-auth's own origin check is bypassed by calling its `signOut` API directly. Any page on the
 * same site (another port, a sibling host: SameSite=Lax cookies ride along) could otherwise sign a user out with one
 * hidden form, so the route refuses a foreign or `null` Origin (docs/decisions/099-sign-out-same-origin.md).
 * Sessions are rows: both engines.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../support/client";
import { serverForFile } from "../support/file-server";

setDefaultTimeout(60_000);

const it = serverForFile();

const signedIn = async (cookie: string) =>
  (await it.api.post("/api/get-user-info", undefined, { cookie })).body.code === 0;
const signOutForm = (cookie: string, headers: Record<string, string>) =>
  fetch(`${it.server.url}/sign-out`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded", ...headers },
    body: "",
  });

test("a sign-out form posted from another site is refused and the session stays", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("r5-signout"));
  const foreign: Record<string, string>[] = [
    { origin: "http://evil.example" },
    { origin: "null" },
    { referer: "http://evil.example/page" },
    { origin: it.server.url.replace("127.0.0.1", "localhost") },
  ];
  for (const headers of foreign) {
    const r = await signOutForm(cookie, headers);
    expect(r.status).toBe(403);
    expect(await r.json()).toEqual({ code: 1, message: "forbidden: cross-site request", data: null });
    expect(r.headers.getSetCookie().join(";")).not.toContain("session_token=;");
    expect(await signedIn(cookie)).toBe(true);
  }
});

test("our own sign-out form still signs out (Origin, or no Origin and no Referer)", async () => {
  for (const headers of [{ origin: it.server.url }, {} as Record<string, string>]) {
    const { cookie } = await it.api.signUp(uniqueEmail("r5-signout-own"));
    const r = await signOutForm(cookie, headers);
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("/?notice=signed-out");
    expect(await signedIn(cookie)).toBe(false);
  }
});
