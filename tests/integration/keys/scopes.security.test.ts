/**
 * Scoped keys (docs/decisions/115-scoped-keys-and-caps.md): each scope × each endpoint a key can reach. A key holding
 * only one scope reaches exactly the endpoints of that scope; every other one answers HTTP 403, code 1,
 * `forbidden: this key lacks the <scope> scope`, and does nothing (a read-only key creates no task).
 */
import { describe, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";

// Literal copy of the documented table (docs/usage.md "Scopes"): endpoint → the scope it needs.
const TABLE: [path: string, scope: string, method?: "GET"][] = [
  ["/api/generator/generate", "generate"],
  ["/api/generator/cancel", "generate"],
  ["/api/demo/gen-text", "generate"],
  ["/api/demo/gen-image", "generate"],
  ["/api/demo/gen-stream-text", "generate"],
  ["/api/add-feedback", "generate"],
  ["/api/generator/query", "read"],
  ["/api/generator/history", "read"],
  ["/api/generator/stream", "read", "GET"],
  ["/api/get-user-info", "read"],
  ["/api/get-user-credits", "read"],
  ["/api/get-user-subscription", "read"],
  ["/api/usage", "read"],
  ["/api/admin/list-users", "read"],
  ["/api/models", "read"],
  ["/api/files", "files"],
  ["/api/files/list", "files"],
  ["/api/files/delete", "files"],
  ["/api/webhooks/create", "webhooks"],
  ["/api/webhooks/list", "webhooks"],
  ["/api/webhooks/delete", "webhooks"],
  ["/api/webhooks/rotate-secret", "webhooks"],
  ["/api/webhooks/deliveries", "webhooks"],
  ["/api/webhooks/resend", "webhooks"],
  ["/api/billing/checkout", "billing"],
  ["/api/ping", "billing"],
  ["/api/update-invite", "billing"],
  ["/api/admin/grant-credits", "billing"],
  ["/api/admin/create-subscription", "billing"],
];
const SCOPES = ["generate", "read", "files", "webhooks", "billing"];

const it = serverForFile({ env: { SIGNUP_CREDITS: "50" } });

async function call(path: string, key: string, method: "POST" | "GET" = "POST") {
  const res = await fetch(`${it.server.url}${path}${method === "GET" ? "?gen_id=x" : ""}`, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: method === "POST" ? "{}" : undefined,
  });
  const text = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

describe("each scope × each endpoint", () => {
  for (const scope of SCOPES) {
    test(`a key with only ${scope}`, async () => {
      // One user per scope: the 25 calls stay under the per-user rate limit.
      const { cookie } = await it.api.signUp(uniqueEmail(`scope-${scope}`));
      const made = await it.api.post("/api/keys/create", { name: scope, scopes: [scope] }, { cookie });
      expect(made.body.data.scopes).toEqual([scope]);
      const key = made.body.data.key as string;
      for (const [path, needed, method] of TABLE) {
        const r = await call(path, key, method);
        if (needed === scope) {
          expect({ path, status: r.status }).not.toEqual({ path, status: 403 });
          expect(r.body?.message ?? "").not.toStartWith("forbidden: this key lacks");
        } else {
          expect({ path, status: r.status, body: r.body }).toEqual({
            path,
            status: 403,
            body: { code: 1, message: `forbidden: this key lacks the ${needed} scope`, data: null },
          });
        }
      }
    });
  }

  test("a read-only key reads credits; its generate is refused with 403 and creates nothing", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("read-only"));
    const key = (await it.api.post("/api/keys/create", { name: "ro", scopes: ["read"] }, { cookie })).body.data.key;
    const credits = await it.api.post("/api/get-user-credits", undefined, { apiKey: key });
    expect(credits.body).toEqual({
      code: 0,
      message: expect.any(String),
      data: { left_credits: 50, total_credits: 50 },
    });
    const gen = await it.api.post(
      "/api/generator/generate",
      { ai_type: "image", provider: "kling", model: "kling-v1", prompt: "not allowed" },
      { apiKey: key },
    );
    expect(gen.status).toBe(403);
    expect(gen.body).toEqual({ code: 1, message: "forbidden: this key lacks the generate scope", data: null });
    const history = await it.api.post("/api/generator/history", {}, { cookie });
    expect(history.body.data.total).toBe(0);
  });

  test("a key made without scopes has every scope (today's behaviour); sessions are never scoped", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("all-scopes"));
    const made = (await it.api.post("/api/keys/create", { name: "all" }, { cookie })).body.data;
    expect(made.scopes).toEqual(SCOPES);
    expect(made.credit_limit).toBeNull();
    const r = await it.api.post("/api/webhooks/list", {}, { apiKey: made.key });
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
  });

  test("scopes change without rotating the key (POST /api/keys/update); refused bodies say which field", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("update-scopes"));
    const made = (await it.api.post("/api/keys/create", { name: "k", scopes: ["generate"] }, { cookie })).body.data;
    expect((await it.api.post("/api/get-user-credits", undefined, { apiKey: made.key })).status).toBe(403);
    const up = await it.api.post("/api/keys/update", { key_id: made.key_id, scopes: ["read"] }, { cookie });
    expect(up.body.data.scopes).toEqual(["read"]);
    // Every process sees the change within a second (this one at once).
    expect((await it.api.post("/api/get-user-credits", undefined, { apiKey: made.key })).status).toBe(200);
    const bad = await it.api.post("/api/keys/create", { name: "x", scopes: ["everything"] }, { cookie });
    expect(bad.body.message).toBe(
      "invalid params: scopes must be a non-empty list of generate, read, files, webhooks, billing",
    );
    const empty = await it.api.post("/api/keys/create", { name: "x", scopes: [] }, { cookie });
    expect(empty.body.code).toBe(1);
    // A key cannot change keys (session only).
    const byKey = await it.api.post("/api/keys/update", { key_id: made.key_id, scopes: SCOPES }, { apiKey: made.key });
    expect(byKey.body.message).toStartWith("forbidden");
    // Another user's key is not found.
    const other = await it.api.signUp(uniqueEmail("update-other"));
    const theirs = await it.api.post(
      "/api/keys/update",
      { key_id: made.key_id, scopes: SCOPES },
      {
        cookie: other.cookie,
      },
    );
    expect(theirs.body.message).toBe("key not found");
  });
});
