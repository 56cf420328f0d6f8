/**
 * The web surface over HTTP against the real server: page headers, redirects after sign-in, page parameters, session
 * rate-limit buckets, CSRF on the JSON API, and pages kept out of shared caches.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client, sessionCookie, uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";
import { signUpAdmin } from "../../support/fixtures";
import { startServer, type TestServer } from "../../support/server";

setDefaultTimeout(60_000);

let server: TestServer;
let api: Client;
let member: { cookie: string; userId: string; email: string };
let admin: { cookie: string; userId: string };
const ADMIN_EMAIL = "boss@security.test";

beforeAll(async () => {
  server = await startServer({ env: { SESSION_RATE_LIMITS: "true", ADMIN_EMAILS: ADMIN_EMAIL } });
  api = new Client(server.url);
  const email = uniqueEmail("sec");
  member = { ...(await api.signUp(email)), email };
  admin = await signUpAdmin(server, ADMIN_EMAIL, { via: "mailbox" });
});
afterAll(async () => {
  await server?.dispose();
});

/** A no-JS form post, as a browser on the site itself sends it. */
function formPost(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(server.url + path, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url, ...headers },
    body: new URLSearchParams(fields),
  });
}

describe("security headers", () => {
  for (const path of ["/", "/sign-in", "/account", "/docs"]) {
    test(`${path}: no framing, no sniffing, a referrer policy and a CSP whose nonce is on every script`, async () => {
      const res = await fetch(server.url + path, { headers: { cookie: member.cookie } });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-inline");
      const nonce = /script-src [^;]*'nonce-([^']+)'/.exec(csp)?.[1];
      expect(nonce).toBeTruthy();
      const html = await res.text();
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    });
  }

  test("two pages get two different nonces", async () => {
    const a = (await fetch(`${server.url}/`)).headers.get("content-security-policy");
    const b = (await fetch(`${server.url}/`)).headers.get("content-security-policy");
    expect(a).not.toBe(b);
  });

  test("JSON answers and static files are not sniffed or framed either", async () => {
    for (const res of [await fetch(`${server.url}/api/health`), await fetch(`${server.url}/favicon.svg`)]) {
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
  });
});

describe("redirect after sign-in stays on the site", () => {
  const signIn = (next: string) =>
    formPost("/sign-in", { email: member.email, password: "correct-horse-battery", next });

  for (const next of [
    "/\\evil.example",
    "/\t/evil.example",
    "//evil.example",
    "/.//evil.example",
    "https://evil.example/",
    "javascript:alert(1)",
  ]) {
    test(`next=${JSON.stringify(next)} falls back to the studio`, async () => {
      const res = await signIn(next);
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get("location")!, server.url);
      expect(location.origin).toBe(server.url);
      expect(location.pathname).toBe("/studio");
    });
  }

  test("the same spellings in the sign-in URL of a signed-in visitor fall back too", async () => {
    for (const next of ["/\\evil.example", "/%09/evil.example"]) {
      const res = await fetch(`${server.url}/sign-in?next=${next}`, {
        redirect: "manual",
        headers: { cookie: member.cookie },
      });
      expect(res.status).toBe(302);
      expect(new URL(res.headers.get("location")!, server.url).origin).toBe(server.url);
    }
  });

  test("a path that normalizes to //host stays a path on the site", async () => {
    const res = await signIn("/.//evil.example");
    expect(new URL(res.headers.get("location")!, server.url).origin).toBe(server.url);
  });

  test("a path on the site is followed", async () => {
    const res = await signIn("/studio?type=image");
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!, server.url);
    expect(location.origin).toBe(server.url);
    expect(location.pathname + location.search).toBe("/studio?type=image");
    expect(sessionCookie(res)).toBeTruthy();
  });
});

describe("page parameters are clamped", () => {
  for (const page of ["1e308", "9007199254740993", "Infinity", "-5", "abc", "1.5"]) {
    test(`/studio?page=${page} and /admin?page=${page} render`, async () => {
      expect((await fetch(`${server.url}/studio?page=${page}`, { headers: { cookie: member.cookie } })).status).toBe(
        200,
      );
      expect((await fetch(`${server.url}/admin?page=${page}`, { headers: { cookie: admin.cookie } })).status).toBe(200);
    });
  }

  test("the JSON lists refuse or clamp huge pages, never 500", async () => {
    const history = await api.post("/api/generator/history", { page: 1e308 }, { cookie: member.cookie });
    expect(history.status).toBe(200);
    const users = await api.post("/api/admin/list-users", { page: 9007199254740991 }, { cookie: admin.cookie });
    expect(users.status).toBe(200);
    const big = await api.post("/api/generator/history", { page: 9007199254740991 }, { cookie: member.cookie });
    expect(big.status).toBe(200);
    expect(big.body.code).toBe(0);
    expect(big.body.data.generations).toEqual([]);
  });
});

describe("session rate limits follow the route, not the URL spelling", () => {
  test("/api/ping, /API/ping and /api/%70ing share one daily bucket", async () => {
    const { cookie } = await api.signUp(uniqueEmail("ping"));
    expect((await api.post("/api/ping", undefined, { cookie })).status).toBe(200);
    for (const spelling of ["/api/ping", "/API/ping", "/api/%70ing", "/api/ping/", "/Api/PING"]) {
      const r = await api.post(spelling, undefined, { cookie });
      expect([spelling, r.status]).toEqual([spelling, 429]);
    }
  });
});

describe("CSRF on the JSON API", () => {
  const CROSS = { code: 1, message: "forbidden: cross-site request", data: null };
  const send = (path: string, headers: Record<string, string>, body?: string) =>
    fetch(server.url + path, { method: "POST", headers, body }).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));
  const balance = async () =>
    (await api.post("/api/get-user-credits", undefined, { cookie: admin.cookie })).body.data.left_credits;

  test("a session POST from another origin is refused and changes nothing (an admin's grant)", async () => {
    const before = await balance();
    const r = await send(
      "/api/admin/grant-credits",
      { cookie: admin.cookie, origin: "http://127.0.0.1:1", "content-type": "application/json" },
      JSON.stringify({ user_uuid: admin.userId, credits: 500 }),
    );
    expect(r).toEqual({ status: 403, body: CROSS });
    expect(await balance()).toBe(before);
  });

  test("a session POST with a text/plain body is refused even from the site itself", async () => {
    const before = await balance();
    const r = await send(
      "/api/admin/grant-credits",
      { cookie: admin.cookie, origin: server.url, "content-type": "text/plain" },
      JSON.stringify({ user_uuid: admin.userId, credits: 500 }),
    );
    expect(r).toEqual({ status: 403, body: CROSS });
    expect(await balance()).toBe(before);
  });

  test("form-encoded and multipart session bodies are refused", async () => {
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const r = await send(
        "/api/update-invite",
        { cookie: member.cookie, origin: server.url, "content-type": type },
        "invite_code=X",
      );
      expect(r.status).toBe(403);
    }
  });

  test("reading endpoints are guarded too; without Origin the Referer decides; Origin: null is foreign", async () => {
    expect((await send("/api/get-user-info", { cookie: member.cookie, origin: "https://evil.example" })).status).toBe(
      403,
    );
    expect(
      (await send("/api/get-user-info", { cookie: member.cookie, referer: "https://evil.example/page" })).status,
    ).toBe(403);
    expect((await send("/api/get-user-info", { cookie: member.cookie, origin: "null" })).status).toBe(403);
    const ok = await send("/api/get-user-info", { cookie: member.cookie, referer: `${server.url}/account` });
    expect(ok.status).toBe(200);
    expect(ok.body.data.uuid).toBe(member.userId);
  });

  test("our own pages (Origin = PUBLIC_URL, JSON) and non-browser clients (no Origin, no Referer) keep working", async () => {
    const own = await send(
      "/api/keys/list",
      { cookie: member.cookie, origin: server.url, "content-type": "application/json" },
      "{}",
    );
    expect(own.status).toBe(200);
    expect(own.body.code).toBe(0);
    const script = await send(
      "/api/keys/list",
      { cookie: member.cookie, "content-type": "application/json; charset=utf-8" },
      "{}",
    );
    expect(script.body.code).toBe(0);
    const bare = await send("/api/get-user-credits", { cookie: member.cookie });
    expect(bare.body.code).toBe(0);
  });

  test("X-API-Key requests are not browser-ambient: any origin, any content type", async () => {
    const created = await send(
      "/api/keys/create",
      { cookie: member.cookie, origin: server.url, "content-type": "application/json" },
      JSON.stringify({ name: "csrf" }),
    );
    const key = created.body.data.key as string;
    const r = await send(
      "/api/get-user-info",
      { "x-api-key": key, origin: "https://evil.example", "content-type": "text/plain" },
      "{}",
    );
    expect(r.status).toBe(200);
    expect(r.body.data.uuid).toBe(member.userId);
  });
});

/**
 * Pages show a signed-in person's e-mail, balance, API keys and webhooks (and /admin every user's e-mail); a shared
 * cache or a cache-everything CDN rule must never keep /account for the next visitor. Anything that names no caching
 * of its own is `private, no-store`; static files, media and the API keep theirs (docs/decisions/101-pages-not-cached.md).
 */
describe("pages are not cached", () => {
  const it = serverForFile();

  test("a signed-in person's pages and page data are private, no-store", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("r5-cache"));
    for (const path of ["/account", "/keys", "/studio", "/pricing", "/account.data", "/keys.data"]) {
      const r = await fetch(it.server.url + path, { headers: { cookie } });
      expect({ path, status: r.status, cacheControl: r.headers.get("cache-control") }).toEqual({
        path,
        status: 200,
        cacheControl: "private, no-store",
      });
    }
    // The sign-in redirect of a signed-out visitor too.
    expect((await fetch(`${it.server.url}/account`, { redirect: "manual" })).headers.get("cache-control")).toBe(
      "private, no-store",
    );
  });

  test("static files and the API keep their own caching", async () => {
    expect((await fetch(`${it.server.url}/favicon.svg`)).headers.get("cache-control")).toBe("public, max-age=3600");
    expect((await it.api.post("/api/health")).headers.get("cache-control")).toBe("no-store");
  });
});
