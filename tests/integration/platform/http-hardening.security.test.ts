/**
 * Requests no client should be able to turn into a 500 (an error line pages an operator), and HTTPS hardening:
 * - an HTTP/1.0 request with an empty Host header has no URL to route: 400, one access line, no error or stack;
 * - a signed-in studio form that hides a result that does not exist: the envelope's not-found (404), no error;
 * - with an https PUBLIC_URL every response carries Strict-Transport-Security, and the cookies are `__Host-`
 *   (Secure, Path=/, no Domain: a sibling subdomain cannot plant one); with http neither.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { type TOTP, URI } from "otpauth";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";

const HTTPS_ORIGIN = "https://atelier.example";
let server: TestServer;
let https: TestServer;
let api: Client;

beforeAll(async () => {
  [server, https] = await Promise.all([
    startServer({ env: { LOG_LEVEL: "info" } }),
    startServer({ env: { PUBLIC_URL: HTTPS_ORIGIN } }),
  ]);
  api = new Client(server.url);
});
afterAll(async () => {
  await Promise.all([server?.dispose(), https?.dispose()]);
});

/** Raw bytes to the server, the whole answer back. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    let out = "";
    socket.on("data", (d) => {
      out += d.toString();
    });
    socket.on("end", () => resolve(out));
    socket.on("error", reject);
    setTimeout(() => {
      socket.destroy();
      resolve(out);
    }, 3000);
  });
}

const errorLines = (s: TestServer) =>
  s
    .logs()
    .split("\n")
    .filter((l) => l.includes('"level":"error"') || l.includes("    at "));

describe("requests that must not be a 500", () => {
  test("HTTP/1.0 with an empty Host: 400, one access line, no error", async () => {
    const answer = await raw(
      server.port,
      "GET /api/health HTTP/1.0\r\nHost:\r\nX-Request-Id: empty-host-probe\r\n\r\n",
    );
    expect(answer).toStartWith("HTTP/1.1 400");
    await Bun.sleep(200);
    const access = server
      .logs()
      .split("\n")
      .filter((l) => l.includes('"empty-host-probe"'));
    expect(access).toHaveLength(1);
    expect(JSON.parse(access[0]!)).toMatchObject({ msg: "request", status: 400 });
    expect(errorLines(server)).toEqual([]);
  });

  test("hiding a result that does not exist from the studio: the envelope's not-found, no error", async () => {
    const { cookie } = await api.signUp(uniqueEmail("hider"));
    for (const intent of ["hide", "unhide"]) {
      const res = await fetch(`${server.url}/studio`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url, cookie },
        body: new URLSearchParams({ intent, gen_id: "00000000-0000-0000-0000-000000000000" }),
        redirect: "manual",
      });
      expect(res.status).toBe(404);
      await res.arrayBuffer();
      const data = await fetch(`${server.url}/studio.data`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url, cookie },
        body: new URLSearchParams({ intent, gen_id: "no-such-id" }),
      });
      expect(data.status).toBe(404);
      expect(await data.text()).toContain("generation not found");
    }
    expect(errorLines(server)).toEqual([]);
  });
});

describe("HTTPS hardening", () => {
  test("an https PUBLIC_URL: HSTS on every response, __Host- session cookie that works", async () => {
    const health = await fetch(`${https.url}/api/health`);
    expect(health.headers.get("strict-transport-security")).toBe("max-age=31536000");
    const page = await fetch(`${https.url}/sign-in`);
    expect(page.headers.get("strict-transport-security")).toBe("max-age=31536000");

    const up = await fetch(`${https.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: HTTPS_ORIGIN },
      body: JSON.stringify({ email: uniqueEmail("host"), password: "correct-horse-battery", name: "H" }),
    });
    expect(up.status).toBe(200);
    const set = up.headers.getSetCookie().find((c) => c.startsWith("__Host-atelier.session_token="));
    expect(set).toBeDefined();
    expect(set).toContain("Secure");
    expect(set).toContain("Path=/");
    expect(set!.toLowerCase()).not.toContain("domain=");
    expect(up.headers.getSetCookie().some((c) => c.startsWith("__Secure-"))).toBe(false);
    const me = await new Client(https.url).post("/api/get-user-info", undefined, { cookie: set!.split(";")[0] });
    expect(me.body.code).toBe(0);
  });

  test("an https PUBLIC_URL: every auth cookie is __Host- and Secure (two-factor, trusted device, passkey challenge too)", async () => {
    const jar = new Map<string, string>();
    const seen: string[] = [];
    const call = async (path: string, body?: unknown) => {
      const res = await fetch(`${https.url}/api/auth${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          origin: HTTPS_ORIGIN,
          cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      for (const set of res.headers.getSetCookie()) {
        seen.push(set);
        const [pair] = set.split(";");
        const at = pair!.indexOf("=");
        jar.set(pair!.slice(0, at), pair!.slice(at + 1));
      }
      return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, any> | null };
    };
    const email = uniqueEmail("host-2fa");
    const password = "correct-horse-battery";
    expect((await call("/sign-up/email", { email, password, name: "H" })).status).toBe(200);
    const enabled = await call("/two-factor/enable", { password });
    expect(enabled.status).toBe(200);
    const totp = URI.parse(enabled.body!.totpURI) as TOTP;
    expect((await call("/two-factor/verify-totp", { code: totp.generate() })).status).toBe(200);

    jar.clear();
    const step = await call("/sign-in/email", { email, password });
    expect(step.body?.twoFactorRedirect).toBe(true);
    const later = totp.generate({ timestamp: Date.now() + 30_000 });
    expect((await call("/two-factor/verify-totp", { code: later, trustDevice: true })).status).toBe(200);
    expect((await call("/passkey/generate-authenticate-options")).status).toBe(200);

    const names = seen.map((c) => c.slice(0, c.indexOf("=")));
    for (const cookie of ["two_factor", "trust_device", "better-auth-passkey", "session_token"])
      expect(names).toContain(`__Host-atelier.${cookie}`);
    for (const set of seen) {
      expect(set).toStartWith("__Host-");
      expect(set).toContain("; Secure");
      expect(set).toContain("Path=/");
      expect(set.toLowerCase()).not.toContain("domain=");
    }
  });

  test("an http PUBLIC_URL: no HSTS", async () => {
    expect((await fetch(`${server.url}/api/health`)).headers.get("strict-transport-security")).toBeNull();
  });
});
