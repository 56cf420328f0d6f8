/**
 * The public surface holds: result files, the user center's and admin's form posts, webhook URL spellings
 * (docs/decisions/103-payments-webhooks-streams-probes.md). Both engines.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client, uniqueEmail } from "../../support/client";
import { signUpAdmin } from "../../support/fixtures";
import { startServer, type TestServer } from "../../support/server";
import { until } from "../../support/until";

setDefaultTimeout(60_000);

const ADMIN_EMAIL = "r5-root@admin.test";
let server: TestServer;
let api: Client;
beforeAll(async () => {
  server = await startServer({ env: { ADMIN_EMAILS: ADMIN_EMAIL } });
  api = new Client(server.url);
});
afterAll(async () => {
  await server?.dispose();
});

const credits = async (cookie: string) =>
  (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits;
const form = (path: string, cookie: string, fields: Record<string, string>, origin: string | null) =>
  fetch(server.url + path, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded", ...(origin ? { origin } : {}) },
    body: new URLSearchParams(fields).toString(),
  });

describe("result files (/media)", () => {
  let resultUrl: string;
  beforeAll(async () => {
    const { cookie } = await api.signUp(uniqueEmail("r5-media"));
    const gen = (
      await api.post(
        "/api/generator/generate",
        { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "a lighthouse" },
        { cookie },
      )
    ).body.data.gen_id;
    const done = await until("the task completes", async () => {
      const d = (await api.post("/api/generator/query", { gen_id: gen }, { cookie })).body.data;
      return d.status === "completed" ? d : undefined;
    });
    resultUrl = done.result_urls[0];
  });

  test("a result is an image with nosniff, a sandbox CSP and immutable caching; other methods are refused", async () => {
    const r = await fetch(resultUrl);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/png");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("content-security-policy")).toContain("sandbox");
    expect(r.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await fetch(resultUrl, { method: "POST" })).status).toBe(405);
  });

  test("no spelling of a path leaves the media folder (the database, the generated secret, the gen folder listing)", async () => {
    const genDir = new URL(resultUrl).pathname.split("/").slice(0, 3).join("/"); // /media/<gen_id>
    const paths = [
      "/media/..%2fatelier.db",
      "/media/..%2f.auth-secret",
      "/media/%2e%2e/atelier.db",
      "/media/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
      "/media/..%5catelier.db",
      "/media/..%252fatelier.db",
      "/media/.%2e/atelier.db",
      "/media//etc/passwd",
      "/media/%2fetc%2fpasswd",
      `${genDir}/..%2f..%2fatelier.db`,
      `${genDir}/`,
      genDir,
      "/media/demo",
    ];
    for (const p of paths) {
      const r = await fetch(server.url + p);
      const body = new Uint8Array(await r.arrayBuffer());
      expect({ p, status: r.status }).toEqual({ p, status: 404 });
      expect(new TextDecoder().decode(body.slice(0, 16))).not.toContain("SQLite format");
    }
  });
});

describe("form posts of the user center and admin", () => {
  test("a check-in, a key and a webhook posted from another origin change nothing", async () => {
    const { cookie } = await api.signUp(uniqueEmail("r5-forms"));
    for (const origin of ["http://evil.example", "null", server.url.replace("127.0.0.1", "localhost")]) {
      expect((await form("/account", cookie, { intent: "checkin" }, origin)).status).toBe(400);
      expect((await form("/keys", cookie, { intent: "create", name: "planted" }, origin)).status).toBe(400);
      expect(
        (
          await form(
            "/keys",
            cookie,
            { intent: "webhook-create", url: "https://example.com/hook", events: "generation.completed" },
            origin,
          )
        ).status,
      ).toBe(400);
    }
    expect(await credits(cookie)).toBe(10);
    expect((await api.post("/api/keys/list", undefined, { cookie })).body.data.keys).toEqual([]);
    expect((await api.post("/api/webhooks/list", undefined, { cookie })).body.data.webhooks).toEqual([]);
    // From our own pages it works.
    expect((await form("/account", cookie, { intent: "checkin" }, server.url)).status).toBeLessThan(400);
    expect(await credits(cookie)).toBe(11);
  });

  test("/admin's grant form: a member gets the 404 page; the admin's form from another origin is refused", async () => {
    const member = await api.signUp(uniqueEmail("r5-member"));
    const admin = await signUpAdmin(server, ADMIN_EMAIL, { via: "mailbox" });
    const grant = { intent: "grant", email: ADMIN_EMAIL, credits: "500" };
    expect((await form("/admin", member.cookie, { ...grant, email: uniqueEmail("nobody") }, server.url)).status).toBe(
      404,
    );
    expect((await form("/admin", admin.cookie, grant, "http://evil.example")).status).toBe(400);
    expect(await credits(admin.cookie)).toBe(10);
    expect((await form("/admin", admin.cookie, grant, server.url)).status).toBe(200);
    expect(await credits(admin.cookie)).toBe(510);
  });
});

describe("webhook URLs that spell a private address another way", () => {
  test("decimal, octal, hex, short and IPv4-mapped spellings of 127.0.0.1 and the metadata address are refused", async () => {
    const { cookie } = await api.signUp(uniqueEmail("r5-ipforms"));
    for (const url of [
      "http://2130706433/",
      "http://017700000001/",
      "http://0x7f000001/",
      "http://0x7f.1/",
      "http://127.1/",
      "http://0/",
      "http://2852039166/latest/meta-data/",
      "http://0xa9fea9fe/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://[0:0:0:0:0:ffff:7f00:1]/",
      "http://localhost./",
    ]) {
      const r = await api.post("/api/webhooks/create", { url }, { cookie });
      expect({ url, code: r.body.code }).toEqual({ url, code: 1 });
      expect(r.body.message).toStartWith("invalid params: url refused: ");
    }
    expect((await api.post("/api/webhooks/list", undefined, { cookie })).body.data.webhooks).toEqual([]);
  });
});
