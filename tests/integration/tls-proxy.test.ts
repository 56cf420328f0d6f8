/**
 * Issue 13, launch blocker: the production server behind a real nginx (Debian's
 * apt package; `bun run test` installs it) terminating TLS with a certificate
 * made here. The nginx `server` block is read from docs/self-hosting.md, so the
 * documented setup is the tested one: only the name, port, certificate paths and
 * upstream port are replaced.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort, ROOT, startServer, type TestServer } from "../support/server";

const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx";

let dir: string;
let nginx: Subprocess | undefined;
let server: TestServer;
let site: string;
let ca: string;
let nginxLog = "";

/** The nginx block of docs/self-hosting.md §5, adapted to this run. */
export function documentedServerBlock(): string {
  const doc = readFileSync(join(ROOT, "docs/self-hosting.md"), "utf8");
  const block = /<!-- nginx: tested by tests\/integration\/tls-proxy\.test\.ts -->\s*```nginx\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error("docs/self-hosting.md has no tested nginx block");
  return block;
}

beforeAll(async () => {
  if (!existsSync(NGINX)) throw new Error(`${NGINX} is missing: apt-get install nginx (bun run test installs it)`);
  dir = mkdtempSync(join(tmpdir(), "atelier-tls-"));
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  const made = Bun.spawnSync(
    ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-days", "1", "-keyout", key, "-out", cert],
    { stderr: "pipe" },
  );
  if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
  ca = readFileSync(cert, "utf8");

  const [tlsPort, appPort] = [await freePort(), await freePort()];
  site = `https://localhost:${tlsPort}`;
  const block = documentedServerBlock()
    .replace(/listen 443 ssl( http2)?;/, `listen 127.0.0.1:${tlsPort} ssl$1;`)
    .replaceAll("atelier.example.com", "localhost")
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${cert};`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${key};`)
    .replace("http://127.0.0.1:3000", `http://127.0.0.1:${appPort}`);
  for (const d of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, "tmp", d), { recursive: true });
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((d) => `  ${d}_temp_path ${join(dir, "tmp", d)};`).join("\n");
  writeFileSync(
    join(dir, "nginx.conf"),
    `daemon off;\nmaster_process off;\npid ${join(dir, "nginx.pid")};\nerror_log stderr warn;\nevents { worker_connections 64; }\nhttp {\n  access_log off;\n${temp}\n${block}\n}\n`,
  );

  // The production server, configured as docs/self-hosting.md §3/§5 say (PUBLIC_URL is the proxy's address).
  server = await startServer({
    port: appPort,
    env: { NODE_ENV: "production", PUBLIC_URL: site, TRUST_PROXY: "true", BETTER_AUTH_SECRET: "tls-proxy-test-secret-0123456789abcdef" },
  });

  nginx = Bun.spawn([NGINX, "-p", dir, "-c", join(dir, "nginx.conf")], { stdout: "pipe", stderr: "pipe" });
  void new Response(nginx.stderr as ReadableStream).text().then((t) => (nginxLog += t));
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${site}/api/health`, { tls: { ca } })).ok) break;
    } catch {}
    if (nginx.exitCode !== null || i > 200) throw new Error(`nginx did not come up (exit ${nginx.exitCode}): ${nginxLog}`);
    await Bun.sleep(25);
  }
});

afterAll(async () => {
  nginx?.kill();
  await nginx?.exited;
  await server?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
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
  const c = res.headers.getSetCookie().find((x) => x.startsWith("__Secure-atelier.session_token="));
  if (!c) throw new Error(`no secure session cookie: ${JSON.stringify(res.headers.getSetCookie())} (HTTP ${res.status})`);
  expect(c).toContain("Secure");
  return c.split(";")[0]!;
}

describe("behind nginx terminating TLS (PUBLIC_URL=https://…, TRUST_PROXY=true)", () => {
  let cookie = "";

  test("the no-JS sign-up form works and sets a Secure session cookie", async () => {
    const res = await viaProxy("/sign-up", form({ name: "Proxy Person", email: `proxy-${Date.now()}@example.test`, password: "correct-horse-battery" }));
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location")!, site).href).toBe(`${site}/studio`); // sign-up lands in the studio
    cookie = cookieOf(res);
    const page = await viaProxy("/account", { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Proxy Person");
  });

  test("a no-JS form post (daily check-in) works", async () => {
    const res = await viaProxy("/account", { ...form({ intent: "checkin" }), headers: { ...form({}).headers, cookie } });
    expect(res.status).toBe(200);
    const credits = await viaProxy("/api/get-user-credits", { method: "POST", headers: { cookie, "content-type": "application/json" }, body: "{}" });
    expect((await credits.json()).data.left_credits).toBe(11);
  });

  test("the JSON API answers through the proxy, with a session and with a key", async () => {
    const created = await viaProxy("/api/keys/create", { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify({ name: "via proxy" }) });
    const body = await created.json();
    expect(body.code).toBe(0);
    const info = await viaProxy("/api/get-user-info", { origin: null, method: "POST", headers: { "x-api-key": body.data.key } });
    expect(info.status).toBe(200);
    expect((await info.json()).data.nickname).toBe("Proxy Person");
  });

  test("a form post from another origin is still refused and changes nothing", async () => {
    const res = await viaProxy("/account", { ...form({ intent: "affiliate", is_affiliate: "true" }), headers: { ...form({}).headers, cookie }, origin: "https://evil.example" });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const info = await viaProxy("/api/get-user-info", { method: "POST", headers: { cookie, "content-type": "application/json" }, body: "{}" });
    expect((await info.json()).data.is_affiliate).toBe(false);
    // The plain-HTTP origin of the socket is foreign too: only PUBLIC_URL is the site.
    const plain = await viaProxy("/account", { ...form({ intent: "affiliate", is_affiliate: "true" }), headers: { ...form({}).headers, cookie }, origin: site.replace("https:", "http:") });
    expect(plain.status).toBeGreaterThanOrEqual(400);
  });
});
