/**
 * The production server behind a real nginx (Debian's
 * apt package; `bun run test` installs it) terminating TLS with a certificate
 * made here. The nginx `server` block is read from docs/self-hosting.md, so the
 * documented setup is the tested one: only the name, port, certificate paths and
 * upstream port are replaced.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { documentedNginx, type Nginx, onLocalhost, startNginx } from "../../support/nginx";
import { freePort, startServer, type TestServer } from "../../support/server";

let nginx: Nginx | undefined;
let server: TestServer;
let site: string;
let ca: string;

beforeAll(async () => {
  const [tlsPort, appPort] = [await freePort(), await freePort()];
  site = `https://localhost:${tlsPort}`;
  // The production server, configured as docs/self-hosting.md §3/§5 say (PUBLIC_URL is the proxy's address).
  server = await startServer({
    port: appPort,
    env: {
      NODE_ENV: "production",
      PUBLIC_URL: site,
      TRUST_PROXY: "true",
      BETTER_AUTH_SECRET: "tls-proxy-test-secret-0123456789abcdef",
    },
  });
  nginx = await startNginx(
    documentedNginx("nginx"),
    (block, t) => onLocalhost(block, t).replace("http://127.0.0.1:3000", `http://127.0.0.1:${appPort}`),
    { port: tlsPort },
  );
  ca = nginx.ca;
});

afterAll(async () => {
  await nginx?.stop();
  await server?.dispose();
});

/** Requests through nginx as a browser on the site sends them (Origin = the site). */
function viaProxy(path: string, init: RequestInit & { origin?: string | null } = {}) {
  const headers = new Headers(init.headers);
  if (init.origin !== null) headers.set("origin", init.origin ?? site);
  return fetch(site + path, { ...init, headers, redirect: "manual", tls: { ca } });
}

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields),
});

function cookieOf(res: Response): string {
  const c = res.headers.getSetCookie().find((x) => x.startsWith("__Host-atelier.session_token="));
  if (!c)
    throw new Error(`no secure session cookie: ${JSON.stringify(res.headers.getSetCookie())} (HTTP ${res.status})`);
  expect(c).toContain("Secure");
  return c.split(";")[0]!;
}

describe("behind nginx terminating TLS (PUBLIC_URL=https://…, TRUST_PROXY=true)", () => {
  let cookie = "";

  test("the no-JS sign-up form works and sets a Secure session cookie", async () => {
    const res = await viaProxy(
      "/sign-up",
      form({ name: "Proxy Person", email: `proxy-${Date.now()}@example.test`, password: "correct-horse-battery" }),
    );
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location")!, site).href).toBe(`${site}/studio`); // sign-up lands in the studio
    cookie = cookieOf(res);
    const page = await viaProxy("/account", { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Proxy Person");
  });

  test("one Strict-Transport-Security header, on the app's answers and on nginx's own", async () => {
    for (const path of ["/api/health", "/sign-in"]) {
      const res = await viaProxy(path, { origin: null });
      expect(res.headers.get("strict-transport-security")).toBe("max-age=31536000");
      await res.arrayBuffer();
    }
  });

  test("a no-JS form post (daily check-in) works", async () => {
    const res = await viaProxy("/account", {
      ...form({ intent: "checkin" }),
      headers: { ...form({}).headers, cookie },
    });
    expect(res.status).toBe(200);
    const credits = await viaProxy("/api/get-user-credits", {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: "{}",
    });
    expect((await credits.json()).data.left_credits).toBe(11);
  });

  test("the JSON API answers through the proxy, with a session and with a key", async () => {
    const created = await viaProxy("/api/keys/create", {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ name: "via proxy" }),
    });
    const body = await created.json();
    expect(body.code).toBe(0);
    const info = await viaProxy("/api/get-user-info", {
      origin: null,
      method: "POST",
      headers: { "x-api-key": body.data.key },
    });
    expect(info.status).toBe(200);
    expect((await info.json()).data.nickname).toBe("Proxy Person");
  });

  test("a form post from another origin is still refused and changes nothing", async () => {
    const res = await viaProxy("/account", {
      ...form({ intent: "affiliate", is_affiliate: "true" }),
      headers: { ...form({}).headers, cookie },
      origin: "https://evil.example",
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const info = await viaProxy("/api/get-user-info", {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: "{}",
    });
    expect((await info.json()).data.is_affiliate).toBe(false);
    // The plain-HTTP origin of the socket is foreign too: only PUBLIC_URL is the site.
    const plain = await viaProxy("/account", {
      ...form({ intent: "affiliate", is_affiliate: "true" }),
      headers: { ...form({}).headers, cookie },
      origin: site.replace("https:", "http:"),
    });
    expect(plain.status).toBeGreaterThanOrEqual(400);
  });
});
