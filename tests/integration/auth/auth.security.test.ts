/**
 * The account endpoints cannot be turned against the server or its users: better-auth's redirect parameters stay on
 * the site, its bodies are capped at AUTH_MAX_BODY_BYTES before they are read, and the sign-out form refuses a post
 * from another origin.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";

setDefaultTimeout(60_000);

/**
 * better-auth normalises a relative callbackURL such as `/.//evil.example` into `//evil.example`, which a browser reads
 * as another host: a link carrying our name would land on another site. Every redirect parameter better-auth reads is
 * resolved on PUBLIC_URL first and refused (403 INVALID_CALLBACK_URL) unless it stays on the site as a path.
 */
describe("redirect parameters stay on the site", () => {
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
});

/**
 * better-auth reads its JSON bodies itself, past the 1 MiB cap of our JSON API: a 3 MB nested body costs the server
 * ~0.45 s of CPU. Account requests are tiny, so a body over AUTH_MAX_BODY_BYTES (256 KiB) is refused with 413 before it
 * is read, declared or chunked (docs/decisions/082-auth-body-limit.md).
 */
describe("bodies are capped before they are read", () => {
  const s = serverForFile();

  const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(s.server.url + path, {
      method: "POST",
      headers: { "content-type": "application/json", origin: s.server.url, ...headers },
      body,
    });

  test("a 3 MB nested body to sign-up and sign-in is refused with 413 before it is parsed", async () => {
    const body = `{"email":"a@b.co","password":"xxxxxxxx","name":${"[".repeat(3_000_000)}}`;
    for (const path of ["/api/auth/sign-up/email", "/api/auth/sign-in/email", "/api/auth/request-password-reset"]) {
      const t0 = performance.now();
      const r = await post(path, body);
      await r.text();
      console.log(`${path}: HTTP ${r.status} in ${(performance.now() - t0).toFixed(0)} ms`);
      expect({ path, status: r.status }).toEqual({ path, status: 413 });
    }
  });

  test("a chunked body (no Content-Length) past the cap is refused too", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent === 0) c.enqueue(new TextEncoder().encode('{"email":"a@b.co","password":"xxxxxxxx","name":"x"'));
        if (sent++ < 200) c.enqueue(chunk);
        else {
          c.enqueue(new TextEncoder().encode("}"));
          c.close();
        }
      },
    });
    const r = await fetch(`${s.server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: s.server.url },
      body: stream,
      // @ts-expect-error Bun/undici: a streamed request body
      duplex: "half",
    });
    await r.text();
    expect(r.status).toBe(413);
  });

  test("ordinary account requests still work", async () => {
    const r = await post(
      "/api/auth/sign-up/email",
      JSON.stringify({ email: `cap-${Date.now()}@example.test`, password: "correct-horse-battery", name: "Cap" }),
    );
    expect(r.status).toBe(200);
    const bad = await post(
      "/api/auth/sign-in/email",
      JSON.stringify({ email: "nobody@example.test", password: "wrong-password" }),
    );
    expect(bad.status).toBe(401);
  });
});

/**
 * The sign-out form posts to a resource route, where React Router checks no Origin, and better-auth's own origin check
 * is not on that path: any page of a sibling site (SameSite=Lax cookies ride along) could sign a user out with a hidden
 * form. A foreign or `null` Origin is refused; our own form still signs out. Sessions are rows: both engines
 * (docs/decisions/099-sign-out-same-origin.md).
 */
describe("the sign-out form refuses other origins", () => {
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
      // Another port on the same machine is another site (localhost itself is an alias of 127.0.0.1: ADR 137).
      { origin: it.server.url.replace(/:(\d+)$/, (_, p) => `:${Number(p) + 1}`) },
      { origin: "http://localhost.evil.example" },
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
});
