/**
 * Scoped keys (docs/decisions/115-scoped-keys-and-caps.md): each scope × each endpoint a key can reach — the JSON
 * API, the OpenAI-compatible `/v1` endpoints and every MCP tool. A key holding only one scope reaches exactly the
 * endpoints that need only that scope; every other one is refused with `forbidden: this key lacks the <scope> scope`
 * in its protocol's shape (the envelope with HTTP 403 and code 1; OpenAI's 403 `permission_error`; an MCP tool
 * error) and does nothing (a read-only key creates no task).
 */
import { describe, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";

// Literal copy of the documented table (docs/usage.md "Scopes"): endpoint → the scopes it needs (all of them).
const TABLE: [path: string, needs: string | string[], method?: "GET"][] = [
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
  ["/v1/images/generations", "generate"],
  ["/v1/images/edits", ["generate", "files"]],
  ["/mcp#list_models", "read"],
  ["/mcp#generate", "generate"],
  ["/mcp#get_generation", "read"],
  ["/mcp#list_generations", "read"],
  ["/mcp#upload_image", "files"],
  ["/mcp#get_credits", "read"],
];
const SCOPES = ["generate", "read", "files", "webhooks", "billing"];

const it = serverForFile({ env: { SIGNUP_CREDITS: "50" } });

/** Arguments that pass each tool's input schema, so the call reaches the scope check. */
const TOOL_ARGS: Record<string, Record<string, unknown>> = {
  generate: { ai_type: "image", provider: "kling", model: "kling-v1", prompt: "scoped" },
  get_generation: { gen_id: "x" },
  upload_image: { data: "AAAA" },
};

/** One call of a table row; `refusal` is what it answered in its protocol's refusal shape (null when not refused). */
async function call(path: string, key: string, method: "POST" | "GET" = "POST") {
  const tool = path.startsWith("/mcp#") ? path.slice("/mcp#".length) : null;
  const res = await fetch(`${it.server.url}${tool ? "/mcp" : path}${method === "GET" ? "?gen_id=x" : ""}`, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body:
      method === "GET"
        ? undefined
        : tool
          ? JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: tool, arguments: TOOL_ARGS[tool] ?? {} },
            })
          : "{}",
  });
  const text = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {}
  const message: string | undefined = tool
    ? body?.result?.isError
      ? body.result.content[0].text
      : undefined
    : path.startsWith("/v1/")
      ? body?.error?.message
      : body?.message;
  return { status: res.status, body, message };
}

/** The refusal a key holding only `scope` gets from a row (null: the row needs nothing else). */
function expectedRefusal(path: string, needs: string[], scope: string) {
  const lacking = needs.find((n) => n !== scope);
  if (!lacking) return null;
  const message = `forbidden: this key lacks the ${lacking} scope`;
  if (path.startsWith("/mcp#")) return { status: 200, message };
  if (path.startsWith("/v1/"))
    return {
      status: 403,
      message,
      body: { error: { message, type: "permission_error", param: null, code: "insufficient_permissions" } },
    };
  return { status: 403, message, body: { code: 1, message, data: null } };
}

describe("each scope × each endpoint", () => {
  for (const scope of SCOPES) {
    test(`a key with only ${scope}`, async () => {
      // One user per scope: the 37 calls stay under the per-user rate limit.
      const { cookie } = await it.api.signUp(uniqueEmail(`scope-${scope}`));
      const made = await it.api.post("/api/keys/create", { name: scope, scopes: [scope] }, { cookie });
      expect(made.body.data.scopes).toEqual([scope]);
      const key = made.body.data.key as string;
      for (const [path, needs, method] of TABLE) {
        const r = await call(path, key, method);
        const refused = expectedRefusal(path, typeof needs === "string" ? [needs] : needs, scope);
        if (refused === null) {
          expect({ path, status: r.status }).not.toEqual({ path, status: 403 });
          const forbidden = (r.message ?? "").startsWith("forbidden: this key lacks");
          expect({ path, forbidden }).toEqual({ path, forbidden: false });
        } else if ("body" in refused) {
          expect({ path, status: r.status, body: r.body }).toEqual({
            path,
            status: refused.status,
            body: refused.body,
          });
        } else {
          expect({ path, status: r.status, message: r.message }).toEqual({ path, ...refused });
        }
      }
    });
  }

  test("an endpoint needing two scopes is reached by a key holding both", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("scope-both"));
    const key = (await it.api.post("/api/keys/create", { name: "both", scopes: ["generate", "files"] }, { cookie }))
      .body.data.key as string;
    const r = await call("/v1/images/edits", key);
    // A JSON body is not the multipart form: refused for what it is, past the scopes.
    expect(r.status).toBe(400);
    expect(r.message).toStartWith("invalid params");
  });

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
