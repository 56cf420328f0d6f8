import { describe, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { sqliteOnly } from "../../support/engine";
import { serverForFile } from "../../support/file-server";

const s = serverForFile();

describe("GET /api/health", () => {
  test("status, version, database and each provider's mode", async () => {
    const res = await fetch(`${s.server.url}/api/health`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.code).toBe(0);
    expect(body.data.status).toBe("ok");
    expect(body.data.database).toBe("ok");
    expect(body.data.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(body.data.providers).toEqual({
      openai: "simulated",
      replicate: "simulated",
      kling: "simulated",
      runway: "simulated",
      fal: "simulated",
      google: "simulated",
    });
  });

  test("every response carries a request id", async () => {
    const res = await fetch(`${s.server.url}/api/health`);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await fetch(`${s.server.url}/api/health`, { headers: { "x-request-id": "proxy-id-123" } });
    expect(echoed.headers.get("x-request-id")).toBe("proxy-id-123");
  });
});

describe("POST /api/get-user-info (spec 4.7)", () => {
  test("not signed in: code 1, 'no auth, please sign-in', data null", async () => {
    const r = await s.api.post("/api/get-user-info");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ code: 1, message: "no auth, please sign-in", data: null });
  });

  test("a forged session cookie is not a session", async () => {
    const r = await s.api.post("/api/get-user-info", undefined, { cookie: "atelier.session_token=forged.value" });
    expect(r.body).toEqual({ code: 1, message: "no auth, please sign-in", data: null });
  });

  test("signed in: code 0 and exactly the fields of spec 2.1", async () => {
    const email = uniqueEmail("info");
    const { cookie, userId } = await s.api.signUp(email, { name: "Ada Lovelace" });
    const r = await s.api.post("/api/get-user-info", undefined, { cookie });
    expect(r.body.code).toBe(0);
    expect(typeof r.body.message).toBe("string");
    const d = r.body.data;
    expect(Object.keys(d).sort()).toEqual([
      "avatar_url",
      "created_at",
      "email",
      "invite_code",
      "invited_by",
      "is_affiliate",
      "nickname",
      "uuid",
    ]);
    expect(d.uuid).toBe(userId);
    expect(d.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(d.email).toBe(email);
    expect(d.nickname).toBe("Ada Lovelace");
    expect(d.avatar_url).toBe("");
    expect(d.invite_code).toMatch(/^[A-Z2-9]{8}$/);
    expect(d.invited_by).toBe("");
    expect(d.is_affiliate).toBe(false);
    expect(d.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  test("a body is ignored (the endpoint takes none)", async () => {
    const { cookie } = await s.api.signUp(uniqueEmail("body"));
    const r = await s.api.post("/api/get-user-info", "{not json", { cookie });
    expect(r.body.code).toBe(0);
  });

  test("sign-up through an invite code records invited_by; an unknown code records nothing", async () => {
    const a = await s.api.signUp(uniqueEmail("referrer"));
    const aInfo = (await s.api.post("/api/get-user-info", undefined, { cookie: a.cookie })).body.data;
    const b = await s.api.signUp(uniqueEmail("invitee"), { ref: aInfo.invite_code });
    const bInfo = (await s.api.post("/api/get-user-info", undefined, { cookie: b.cookie })).body.data;
    expect(bInfo.invited_by).toBe(aInfo.uuid);
    expect(bInfo.invite_code).not.toBe(aInfo.invite_code);
    const c = await s.api.signUp(uniqueEmail("stranger"), { ref: "NOSUCHCODE" });
    const cInfo = (await s.api.post("/api/get-user-info", undefined, { cookie: c.cookie })).body.data;
    expect(cInfo.invited_by).toBe("");
  });

  test("each user sees only their own profile", async () => {
    const a = await s.api.signUp(uniqueEmail("iso-a"));
    const b = await s.api.signUp(uniqueEmail("iso-b"));
    const ra = await s.api.post("/api/get-user-info", undefined, { cookie: a.cookie });
    const rb = await s.api.post("/api/get-user-info", undefined, { cookie: b.cookie });
    expect(ra.body.data.uuid).toBe(a.userId);
    expect(rb.body.data.uuid).toBe(b.userId);
  });

  test("sign-out ends the session", async () => {
    const { cookie } = await s.api.signUp(uniqueEmail("out"));
    const out = await fetch(`${s.server.url}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie, origin: s.server.url },
    });
    expect(out.status).toBe(200);
    const r = await s.api.post("/api/get-user-info", undefined, { cookie });
    expect(r.body.message).toBe("no auth, please sign-in");
  });
});

describe("API plumbing", () => {
  test("GET on a POST endpoint → 405 envelope with Allow: POST", async () => {
    const res = await fetch(`${s.server.url}/api/get-user-info`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(await res.json()).toEqual({ code: 1, message: "method not allowed", data: null });
  });

  test("unknown /api path → 404 envelope, not an HTML page", async () => {
    const r = await s.api.post("/api/no-such-endpoint", {});
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 1, message: "not found", data: null });
  });

  test("better-auth's own origin check refuses a sign-up posted from a foreign origin (the JSON API's CSRF rule has its own tests)", async () => {
    const { cookie } = await s.api.signUp(uniqueEmail("csrf"));
    const res = await fetch(`${s.server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://evil.example", cookie },
      body: JSON.stringify({ email: uniqueEmail("evil"), password: "correct-horse-battery", name: "x" }),
    });
    expect(res.status).toBe(403);
  });
});

/**
 * Each error's stable code travels in the Atelier-Error-Code header (docs/api.md §7,
 * docs/decisions/116-machine-readable-error-codes.md); the envelope keeps exactly its three fields.
 */
describe("machine-readable error codes", () => {
  test("each error names its code in Atelier-Error-Code; the body stays {code, message, data}", async () => {
    const cases: [string, RequestInit, number, string, string][] = [
      ["/api/get-user-info", { method: "POST" }, 200, "UNAUTHENTICATED", "no auth, please sign-in"],
      ["/api/get-user-info", { method: "GET" }, 405, "METHOD_NOT_ALLOWED", "method not allowed"],
      ["/api/no-such-endpoint", { method: "POST" }, 404, "NOT_FOUND", "not found"],
      [
        "/api/get-user-info",
        { method: "POST", headers: { "x-api-key": "atl_unknown" } },
        401,
        "API_KEY_NOT_FOUND",
        "API key not found",
      ],
    ];
    for (const [path, init, status, code, message] of cases) {
      const res = await fetch(`${s.server.url}${path}`, init);
      expect(res.status).toBe(status);
      expect(res.headers.get("atelier-error-code")).toBe(code);
      expect(await res.json()).toEqual({ code: 1, message, data: null });
    }
    const { cookie } = await s.api.signUp(uniqueEmail("codes"));
    const res = await fetch(`${s.server.url}/api/generator/generate`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: s.server.url, cookie },
      body: JSON.stringify({ ai_type: "video", provider: "runway", model: "gen4.5" }),
    });
    expect(res.headers.get("atelier-error-code")).toBe("GENERATION_FIELDS_REQUIRED");
    expect(await res.json()).toEqual({
      code: 1,
      message: "invalid params: ai_type, provider, model, prompt required",
      data: null,
    });
  });

  test("a success carries no error code", async () => {
    const res = await fetch(`${s.server.url}/api/health`);
    expect(res.headers.get("atelier-error-code")).toBeNull();
  });
});

describe("start-up", () => {
  test("a bad configuration value stops start-up with one line naming the variable", async () => {
    const proc = Bun.spawn(["bun", "app/cli.ts", "serve"], {
      cwd: `${import.meta.dir}/../../..`,
      env: { PATH: process.env.PATH!, PORT: "not-a-port", DATA_DIR: s.server.dataDir },
      stderr: "pipe",
      stdout: "pipe",
    });
    const code = await proc.exited;
    const err = await new Response(proc.stderr).text();
    expect(code).toBe(1);
    expect(err.trim().split("\n")).toHaveLength(1);
    expect(err).toStartWith("invalid configuration: PORT:");
  });

  sqliteOnly("a single SQLite node generates its secret; on PostgreSQL BETTER_AUTH_SECRET is required")(
    "the auth secret is generated once into DATA_DIR outside production",
    async () => {
      const file = Bun.file(`${s.server.dataDir}/.auth-secret`);
      expect(await file.exists()).toBe(true);
      expect((await file.text()).length).toBeGreaterThanOrEqual(32);
    },
  );
});
