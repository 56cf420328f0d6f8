/**
 * The OpenAPI document against real traffic, judged by a third-party
 * validator (ajv, JSON Schema 2020-12, on the document dereferenced by
 * swagger-parser): a script of real calls — successes and errors, sign-up and
 * sign-in failures, streams, bodies the document calls optional, extra fields
 * — is recorded over HTTP, then every exchange is replayed through the
 * validator: the status and content type must be documented, the body must
 * match the documented schema, and a request the server accepted must be one
 * the document allows. So the document and the server cannot drift apart.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { uniqueEmail } from "../../support/client";
import { signUpAdmin } from "../../support/fixtures";
import { png } from "../../support/images";
import { startServer, type TestServer } from "../../support/server";
import { until } from "../../support/until";
import { type Receiver, startReceiver } from "../../support/webhook-receiver";

interface Exchange {
  method: string;
  path: string;
  reqBody?: string;
  status: number;
  contentType: string;
  resBody: string;
}

let server: TestServer;
let receiver: Receiver;
let doc: any;
const recorded: Exchange[] = [];

async function call(
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string>; raw?: string } = {},
): Promise<{ status: number; json: any; text: string }> {
  const headers: Record<string, string> = { origin: server.url, ...opts.headers };
  const reqBody = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  if (reqBody !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(server.url + path, { method, headers, body: reqBody });
  const text = await res.text();
  const url = new URL(server.url + path);
  recorded.push({
    method: method.toLowerCase(),
    path: url.pathname,
    reqBody,
    status: res.status,
    contentType: res.headers.get("content-type") ?? "",
    resBody: text,
  });
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, text };
}

function cookieOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .find((c) => c.includes("session_token="))!
    .split(";")[0]!;
}

/**
 * A response schema closed to fields it does not name. The document lets clients accept fields added later
 * (docs/decisions/116-machine-readable-error-codes.md); the server itself must still send only documented ones.
 */
const closedCache = new WeakMap<object, unknown>();
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== "object") return schema;
  const hit = closedCache.get(schema);
  if (hit) return hit;
  const out: Record<string, unknown> = {};
  closedCache.set(schema, out);
  for (const [k, v] of Object.entries(schema)) out[k] = closed(v);
  if ("properties" in out && !("additionalProperties" in out)) out.additionalProperties = false;
  return out;
}

/** Replays exchanges through ajv; returns what does not conform. */
function validate(exchanges: Exchange[]): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const problems: string[] = [];
  const cache = new Map<object, ReturnType<typeof ajv.compile>>();
  const check = (schema: object, value: unknown) => {
    let v = cache.get(schema);
    if (!v) cache.set(schema, (v = ajv.compile(schema)));
    return v(value) ? null : ajv.errorsText(v.errors, { separator: "; " });
  };
  for (const x of exchanges) {
    const where = `${x.method.toUpperCase()} ${x.path} → ${x.status}`;
    const op = doc.paths[x.path]?.[x.method];
    if (!op) continue; // not part of the documented API (catch-alls)
    const resp = op.responses[String(x.status)] ?? op.responses.default;
    if (!resp) {
      problems.push(`${where}: status not documented`);
      continue;
    }
    let json: unknown;
    const base = x.contentType.split(";")[0]!.trim();
    if (resp.content) {
      const key = Object.keys(resp.content).find((k) => k.split(";")[0]!.trim() === base);
      if (!key) {
        problems.push(
          `${where}: content type ${base || "(none)"} not documented (${Object.keys(resp.content).join(", ")})`,
        );
        continue;
      }
      if (base === "application/json") {
        json = JSON.parse(x.resBody);
        const err = check(closed(resp.content[key].schema) as object, json);
        if (err) problems.push(`${where}: response does not match: ${err}: ${x.resBody.slice(0, 200)}`);
      }
    }
    // A request the server accepted must be one the document allows.
    const accepted = x.status < 300 && (json === undefined || (json as { code?: number }).code !== 1);
    // Multipart uploads (POST /api/files) are not JSON: their responses are checked above.
    if (accepted && op.requestBody?.content["application/json"]) {
      const schema = op.requestBody.content["application/json"].schema;
      if (x.reqBody === undefined) {
        if (op.requestBody.required) problems.push(`${where}: accepted without a body, documented as required`);
      } else {
        const err = check(schema, JSON.parse(x.reqBody));
        if (err) problems.push(`${where}: accepted a body the document forbids: ${err}: ${x.reqBody.slice(0, 200)}`);
      }
    }
  }
  return problems;
}

beforeAll(async () => {
  server = await startServer({
    env: { ADMIN_EMAILS: "root@admin.test", WEBHOOK_ALLOW_PRIVATE: "true", SIGNUP_CREDITS: "100" },
  });
  receiver = startReceiver();
  doc = await SwaggerParser.dereference(await (await fetch(`${server.url}/api/openapi.json`)).json());
});
afterAll(async () => {
  await server?.dispose();
  await receiver?.stop();
});

describe("the OpenAPI document matches recorded traffic (ajv)", () => {
  test("record: a script of real calls over every documented area", async () => {
    const email = uniqueEmail("oas");
    const signUp = (body: unknown) => call("POST", "/api/auth/sign-up/email", { body });
    const up = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ name: "Ada", email, password: "correct-horse-battery" }),
    });
    expect(up.status).toBe(200);
    const cookie = cookieOf(up);
    await signUp({ name: "Ada", email, password: "correct-horse-battery" }); // already exists
    await signUp({ name: "Ada", email: "not-an-email", password: "correct-horse-battery" });
    await signUp({ name: "Ada", email: uniqueEmail("short"), password: "short" });
    await signUp({ name: "Ada", email: uniqueEmail("ref"), password: "correct-horse-battery", ref: "" }); // an extra field better-auth ignores
    await call("POST", "/api/auth/sign-in/email", { body: { email, password: "wrong-password-1" } });
    await call("POST", "/api/auth/sign-in/email", { body: { email, password: "correct-horse-battery" } });

    // An ADMIN_EMAILS address counts once verified (docs/design.md §5): no session before that; the fixture verifies
    // it as the link would.
    const { cookie: adminCookie } = await signUpAdmin(server, "root@admin.test", { via: "mailbox" });

    const u = { cookie };
    const firstHook = await call("POST", "/api/webhooks/create", { headers: u, body: { url: receiver.url } }); // receives this script's events
    // Bodies the document calls optional or absent.
    await call("POST", "/api/get-user-info", { headers: u });
    await call("POST", "/api/get-user-info", { headers: u, body: {} });
    await call("POST", "/api/get-user-credits", { headers: u });
    await call("POST", "/api/get-user-subscription", { headers: u });
    await call("POST", "/api/ping", { headers: u });
    await call("POST", "/api/generator/history", { headers: u });
    await call("POST", "/api/generator/history", { headers: u, body: { page: 1, page_size: 5 } });
    await call("POST", "/api/generator/history", { headers: u, body: { page: 0 } });
    await call("POST", "/api/get-user-info", {}); // not signed in
    await call("POST", "/api/get-user-info", { headers: { "x-api-key": "atl_unknown" } }); // 401

    // Generation: extra fields are ignored (documented as allowed), errors, idempotency, cancel, stream.
    const gen = await call("POST", "/api/generator/generate", {
      headers: { ...u, "idempotency-key": "oas-1" },
      body: {
        ai_type: "image",
        provider: "replicate",
        model: "black-forest-labs/flux-schnell",
        prompt: "a fox",
        client_ref: "abc",
      },
    });
    expect(gen.json.code).toBe(0);
    await call("POST", "/api/generator/generate", {
      headers: { ...u, "idempotency-key": "oas-1" },
      body: { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "other" },
    }); // 409
    await call("POST", "/api/generator/generate", { headers: u, body: { ai_type: "image" } });
    await call("POST", "/api/generator/generate", {
      headers: u,
      body: { ai_type: "audio", provider: "x", model: "m", prompt: "p" },
    });
    await call("POST", "/api/generator/generate", {
      headers: u,
      body: {
        ai_type: "image",
        provider: "replicate",
        model: "black-forest-labs/flux-schnell",
        prompt: "p".repeat(4001),
      },
    });
    const slow = await call("POST", "/api/generator/generate", {
      headers: u,
      body: {
        ai_type: "image",
        provider: "replicate",
        model: "black-forest-labs/flux-schnell",
        prompt: "slow [simulate:slow]",
      },
    });
    const failing = await call("POST", "/api/generator/generate", {
      headers: u,
      body: { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "x [simulate:fail]" },
    });
    await call("POST", "/api/generator/query", { headers: u, body: { gen_id: gen.json.data.gen_id } });
    await call("POST", "/api/generator/query", { headers: u, body: { gen_id: "nope" } });
    await call("POST", "/api/generator/cancel", { headers: u, body: { gen_id: slow.json.data.gen_id } });
    await call("POST", "/api/generator/cancel", { headers: u, body: { gen_id: slow.json.data.gen_id } }); // already finished
    await call("GET", `/api/generator/stream?gen_id=${gen.json.data.gen_id}`, { headers: u });
    await call("GET", `/api/generator/stream?gen_id=nope`, { headers: u });
    // Collections.
    const col = await call("POST", "/api/collections/create", { headers: u, body: { name: "OAS" } });
    const colId = col.json.data.collection_id;
    await call("POST", "/api/collections/create", { headers: u, body: { name: "oas" } }); // name taken
    await call("POST", "/api/collections/add", {
      headers: u,
      body: { collection_id: colId, gen_ids: [gen.json.data.gen_id] },
    });
    await call("POST", "/api/collections/add", { headers: u, body: { collection_id: colId, gen_ids: ["nope"] } });
    await call("POST", "/api/collections/list", { headers: u });
    await call("POST", "/api/collections/items", { headers: u, body: { collection_id: colId, page: 1, page_size: 5 } });
    await call("POST", "/api/collections/rename", { headers: u, body: { collection_id: colId, name: "OAS 2" } });
    await call("POST", "/api/collections/remove", {
      headers: u,
      body: { collection_id: colId, gen_ids: [gen.json.data.gen_id] },
    });
    await call("POST", "/api/collections/delete", { headers: u, body: { collection_id: colId } });
    await call("POST", "/api/collections/delete", { headers: u, body: { collection_id: colId } }); // not found
    await call("GET", `/api/generator/stream`, { headers: u });
    for (const id of [gen.json.data.gen_id, failing.json.data.gen_id]) {
      for (let i = 0; i < 200; i++) {
        const q = await call("POST", "/api/generator/query", { headers: u, body: { gen_id: id } });
        if (q.json.data.status === "completed" || q.json.data.status === "failed") break;
        await Bun.sleep(25);
      }
    }
    await call("POST", "/api/generator/history", { headers: u, body: {} });

    // Reports and takedowns (docs/safety.md).
    const filed = await call("POST", "/api/reports", {
      headers: u,
      body: { gen_id: gen.json.data.gen_id, reason: "other", details: "oas" },
    });
    await call("POST", "/api/reports", { headers: u, body: { gen_id: gen.json.data.gen_id, reason: "spam" } }); // invalid
    await call("POST", "/api/reports", { headers: u, body: { gen_id: "nope", reason: "other" } }); // not found
    await call("POST", "/api/admin/reports/list", { headers: { cookie: adminCookie }, body: {} });
    await call("POST", "/api/admin/reports/list", { headers: u, body: {} }); // forbidden
    await call("POST", "/api/admin/reports/resolve", {
      headers: { cookie: adminCookie },
      body: { report_id: filed.json.data.report_id, action: "dismiss" },
    });
    await call("POST", "/api/admin/reports/resolve", {
      headers: { cookie: adminCookie },
      body: { report_id: filed.json.data.report_id, action: "remove" },
    }); // already resolved

    // Account.
    await call("POST", "/api/update-invite", { headers: u, body: { is_affiliate: true } });
    await call("POST", "/api/update-invite", { headers: u, body: { is_affiliate: "yes" } });
    await call("POST", "/api/add-feedback", { headers: u, body: { content: "fine", rating: 5 } });
    await call("POST", "/api/add-feedback", { headers: u, body: { content: "x".repeat(5001), rating: 5 } });
    await call("POST", "/api/add-feedback", { headers: u, body: { content: "fine", rating: 6 } });

    // Keys (session only) and a key's own call.
    const key = await call("POST", "/api/keys/create", { headers: u, body: { name: "oas" } });
    await call("POST", "/api/keys/list", { headers: u });
    await call("POST", "/api/get-user-credits", { headers: { "x-api-key": key.json.data.key } });
    await call("POST", "/api/keys/list", { headers: { "x-api-key": key.json.data.key } }); // forbidden
    await call("POST", "/api/keys/update", {
      headers: u,
      body: { key_id: key.json.data.key_id, scopes: ["read"], credit_limit: { credits: 9, period: "day" } },
    });
    await call("POST", "/api/keys/update", { headers: u, body: { key_id: key.json.data.key_id, scopes: [] } });
    await call("POST", "/api/generator/generate", {
      headers: { "x-api-key": key.json.data.key },
      body: { ai_type: "image", provider: "kling", model: "kling-v1", prompt: "scoped" },
    }); // 403: the key lacks generate
    await call("POST", "/api/usage", { headers: u });
    await call("POST", "/api/usage", { headers: u, body: { group_by: "model" } });
    await call("POST", "/api/usage", { headers: { "x-api-key": key.json.data.key }, body: { group_by: "key" } });
    await call("POST", "/api/usage", { headers: u, body: { group_by: "week" } });
    await call("POST", "/api/keys/revoke", { headers: u, body: { key_id: key.json.data.key_id } });

    // Webhooks.
    const wh = await call("POST", "/api/webhooks/create", {
      headers: u,
      body: { url: receiver.url, description: "oas" },
    });
    await call("POST", "/api/webhooks/create", { headers: u, body: { url: "not a url" } });
    await call("POST", "/api/webhooks/list", { headers: u });
    await call("POST", "/api/webhooks/rotate-secret", { headers: u, body: { webhook_id: wh.json.data.webhook_id } });
    await call("POST", "/api/webhooks/deliveries", { headers: u, body: { webhook_id: wh.json.data.webhook_id } });
    await call("POST", "/api/webhooks/resend", { headers: u, body: { delivery_id: "dlv_none" } });
    await call("POST", "/api/webhooks/update", {
      headers: u,
      body: { webhook_id: wh.json.data.webhook_id, events: ["generation.failed"], description: "failures" },
    });
    await call("POST", "/api/webhooks/update", {
      headers: u,
      body: { webhook_id: wh.json.data.webhook_id, events: [] },
    });
    await call("POST", "/api/webhooks/test", { headers: u, body: { webhook_id: firstHook.json.data.webhook_id } });
    await call("POST", "/api/webhooks/test", { headers: u, body: { webhook_id: "wh_none" } });
    await call("POST", "/api/webhooks/delete", { headers: u, body: { webhook_id: wh.json.data.webhook_id } });

    // Input files: an upload (multipart, recorded by hand), a refusal, list, delete.
    for (const bytes of [png(4, 3), new TextEncoder().encode("not an image")]) {
      const form = new FormData();
      form.append("file", new Blob([bytes]), "a.png");
      const res = await fetch(`${server.url}/api/files`, {
        method: "POST",
        headers: { ...u, origin: server.url },
        body: form,
      });
      const text = await res.text();
      recorded.push({
        method: "post",
        path: "/api/files",
        reqBody: undefined,
        status: res.status,
        contentType: res.headers.get("content-type") ?? "",
        resBody: text,
      });
      const fileId = JSON.parse(text).data?.file_id;
      if (fileId) {
        await call("POST", "/api/files/list", { headers: u, body: { page: 1 } });
        await call("POST", "/api/files/delete", { headers: u, body: { file_id: fileId } });
        await call("POST", "/api/files/delete", { headers: u, body: { file_id: fileId } }); // 404
      }
    }

    // Provenance: a plain picture (no manifest) and a file that is neither picture nor video, public.
    for (const bytes of [png(4, 3), new TextEncoder().encode("not an image")]) {
      const form = new FormData();
      form.append("file", new Blob([bytes]), "a.png");
      const res = await fetch(`${server.url}/api/provenance/verify`, { method: "POST", body: form });
      recorded.push({
        method: "post",
        path: "/api/provenance/verify",
        reqBody: undefined,
        status: res.status,
        contentType: res.headers.get("content-type") ?? "",
        resBody: await res.text(),
      });
    }

    // The key-only endpoints in their own protocols: OpenAI's images API (the edit's multipart recorded by hand) and
    // MCP's JSON-RPC.
    const machineKey = (await call("POST", "/api/keys/create", { headers: u, body: { name: "oas-machine" } })).json.data
      .key as string;
    const bearer = { authorization: `Bearer ${machineKey}` };
    const images = "/v1/images/generations";
    await call("POST", images, { headers: bearer, body: { model: "dall-e-3", prompt: "a fox", size: "1024x1024" } });
    await call("POST", images, {
      headers: bearer,
      body: { model: "kling/kling-v1", prompt: "x", response_format: "b64_json" },
    });
    await call("POST", images, { headers: bearer, body: { model: "dall-e-9", prompt: "x" } }); // 404
    await call("POST", images, { headers: bearer, body: { prompt: "x", n: 9 } }); // 400
    await call("POST", images, { body: { prompt: "x" } }); // 401
    for (const [bytes, model] of [
      [png(6, 4), "gpt-image-1"],
      [new TextEncoder().encode("not an image"), "gpt-image-1"],
      [png(6, 4), "dall-e-3"],
    ] as const) {
      const form = new FormData();
      form.append("image", new Blob([bytes]), "a.png");
      form.append("prompt", "at night");
      form.append("model", model);
      const res = await fetch(`${server.url}/v1/images/edits`, { method: "POST", headers: bearer, body: form });
      recorded.push({
        method: "post",
        path: "/v1/images/edits",
        status: res.status,
        contentType: res.headers.get("content-type") ?? "",
        resBody: await res.text(),
      });
    }
    const rpc = { ...bearer, accept: "application/json, text/event-stream" };
    const rpcCall = (id: number, name: string) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: {} },
    });
    await call("POST", "/mcp", {
      headers: rpc,
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "oas", version: "1" } },
      },
    });
    await call("POST", "/mcp", { headers: rpc, body: { jsonrpc: "2.0", method: "notifications/initialized" } }); // 202
    await call("POST", "/mcp", { headers: rpc, body: { jsonrpc: "2.0", id: 2, method: "tools/list" } });
    await call("POST", "/mcp", { headers: rpc, body: [rpcCall(3, "get_credits"), rpcCall(4, "no_such_tool")] });
    await call("POST", "/mcp", { headers: rpc, raw: "not json" }); // 400
    await call("POST", "/mcp", { headers: { accept: rpc.accept }, body: rpcCall(5, "get_credits") }); // 401
    await call("POST", "/mcp", { headers: bearer, body: rpcCall(6, "get_credits") }); // 406
    const statuses = (path: string) => recorded.filter((x) => x.path === path).map((x) => x.status);
    expect(statuses(images)).toEqual([200, 200, 404, 400, 401]);
    expect(statuses("/v1/images/edits")).toEqual([200, 400, 400]);
    expect(statuses("/mcp")).toEqual([200, 202, 200, 200, 400, 401, 406]);

    // Admin: exactly one of email / user_uuid.
    const a = { cookie: adminCookie };
    await call("POST", "/api/admin/list-users", { headers: a });
    await call("POST", "/api/admin/list-users", { headers: a, body: { page: 1, page_size: 2 } });
    await call("POST", "/api/admin/grant-credits", { headers: a, body: { email, credits: 3 } });
    const info = await call("POST", "/api/get-user-info", { headers: u });
    await call("POST", "/api/admin/grant-credits", {
      headers: a,
      body: { email, user_uuid: info.json.data.uuid, credits: 3 },
    });
    await call("POST", "/api/admin/grant-credits", { headers: a, body: { credits: 3 } });
    await call("POST", "/api/admin/create-subscription", {
      headers: a,
      body: { user_uuid: info.json.data.uuid, product_id: "pro", product_name: "Pro", interval: "month", amount: 900 },
    });
    await call("POST", "/api/admin/list-users", { headers: u }); // forbidden
    await call("POST", "/api/admin/suspend-user", { headers: a, body: { email, suspended: true, reason: "oas" } });
    await call("POST", "/api/get-user-info", { headers: u }); // 403 account suspended
    await call("POST", "/api/admin/suspend-user", { headers: a, body: { email, suspended: false } });
    await call("POST", "/api/admin/suspend-user", { headers: a, body: { suspended: false } }); // invalid
    const made = await call("POST", "/api/admin/codes/create", { headers: a, body: { credits: 5, max_uses: 2 } });
    await call("POST", "/api/admin/codes/create", { headers: a, body: { credits: 0, max_uses: 2 } }); // invalid
    await call("POST", "/api/redeem", { headers: a, body: { code: made.json.data.code } });
    await call("POST", "/api/redeem", { headers: a, body: { code: made.json.data.code } }); // already redeemed
    await call("POST", "/api/redeem", { headers: a, body: { code: "ATL-UNKNOWN" } });
    await call("POST", "/api/admin/suspend-user", { headers: u, body: { email, suspended: true } }); // forbidden
    await call("POST", "/api/account/export", { headers: u });
    await call("POST", "/api/account/delete", { headers: u, body: { confirm: "someone@else.test" } }); // refused
    await call("POST", "/api/admin/models/list", { headers: a });
    await call("POST", "/api/admin/models/upsert", {
      headers: a,
      body: { ai_type: "image", provider: "openai", model: "gpt-image-1", label: "GPT Image 1" },
    });
    await call("POST", "/api/admin/models/upsert", { headers: a, body: { ai_type: "image" } }); // invalid
    await call("POST", "/api/admin/models/upsert", { headers: u, body: { ai_type: "image" } }); // forbidden

    // Demo endpoints, streams and their envelope errors.
    await call("POST", "/api/demo/gen-text", {
      headers: u,
      body: { provider: "openai", model: "gpt-4o-mini", prompt: "hi" },
    });
    await call("POST", "/api/demo/gen-text", { headers: u, body: { provider: "nope", model: "m", prompt: "hi" } });
    await call("POST", "/api/demo/gen-image", {
      headers: u,
      body: { provider: "openai", model: "dall-e-3", prompt: "hi" },
    });
    await call("POST", "/api/demo/gen-stream-text", {
      headers: u,
      body: { provider: "openai", model: "gpt-4o-mini", prompt: "hi" },
    });
    await call("POST", "/api/demo/gen-stream-text", {
      headers: u,
      body: { provider: "nope", model: "m", prompt: "hi" },
    });

    // The catalog: public, and under a key.
    await call("POST", "/api/models");
    await call("POST", "/api/models", { headers: { "x-api-key": "atl_not_a_key" } });
    await call("POST", "/api/generator/quote", {
      body: { ai_type: "video", provider: "kling", model: "kling-v1", options: { duration: 10 } },
    });
    await call("POST", "/api/generator/quote", { body: { ai_type: "image", provider: "openai", model: "nope" } });

    // Service.
    await call("GET", "/api/health");
    await call("POST", "/api/health");
    await call("GET", "/api/generator/query"); // 405
    expect(recorded.length).toBeGreaterThan(60);
  });

  test("replay: every recorded exchange conforms to the document", () => {
    expect(validate(recorded)).toEqual([]);
    // Every documented path was exercised, except what needs external services to answer.
    const seen = new Set(recorded.map((x) => x.path));
    const skipped = [
      "/api/openapi.json",
      "/api/billing/products",
      "/api/billing/checkout",
      "/api/billing/webhook/stripe",
    ];
    expect(Object.keys(doc.paths).filter((p) => !seen.has(p) && !skipped.includes(p))).toEqual([]);
  });

  test("the validator can fail: altered answers and forbidden accepted requests are reported", () => {
    const pick = (path: string, status = 200) =>
      recorded.find((x) => x.path === path && x.status === status && JSON.parse(x.resBody).code === 0)!;
    const credits = pick("/api/get-user-credits");
    const extraField = {
      ...credits,
      resBody: JSON.stringify({
        ...JSON.parse(credits.resBody),
        data: { ...JSON.parse(credits.resBody).data, extra: 1 },
      }),
    };
    const wrongStatus = { ...credits, status: 418 };
    const wrongType = { ...credits, contentType: "text/html" };
    const feedback = pick("/api/add-feedback");
    const forbiddenAccepted = { ...feedback, reqBody: JSON.stringify({ content: "", rating: 9 }) };
    const problems = validate([extraField, wrongStatus, wrongType, forbiddenAccepted]);
    expect(problems.length).toBe(4);
    expect(problems.join("\n")).toContain("response does not match");
    expect(problems.join("\n")).toContain("status not documented");
    expect(problems.join("\n")).toContain("content type text/html not documented");
    expect(problems.join("\n")).toContain("accepted a body the document forbids");
  });

  test("the webhooks section documents the payload the receiver really got", async () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    await receiver.waitFor(4, 20_000);
    const got = await until(
      "the generation events and the test event",
      async () => {
        const types = new Set(receiver.received.map((r) => JSON.parse(r.body).type));
        return types.size === 3 ? receiver.received : undefined;
      },
      20_000,
    );
    expect(new Set(got.map((r) => JSON.parse(r.body).type))).toEqual(
      new Set(["generation.completed", "generation.failed", "webhook.test"]),
    );
    for (const r of got) {
      const body = JSON.parse(r.body);
      const schema = closed(doc.webhooks[body.type].post.requestBody.content["application/json"].schema) as object;
      expect({ type: body.type, ok: ajv.validate(schema, body), errors: ajv.errorsText(ajv.errors) }).toMatchObject({
        ok: true,
      });
    }
  });
});
