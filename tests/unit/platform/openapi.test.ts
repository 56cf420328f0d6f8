/** The API reference: a valid OpenAPI 3.1 document listing every endpoint, generated from the endpoint table. */

import { describe, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { ENDPOINTS } from "~/http/endpoints.server";
import { buildOpenApi } from "~/http/openapi.server";
import { machinePaths } from "~/http/openapi-machine.server";
import { ERRORS, type ErrorCode, errorPatterns } from "~/lib/errors";
import routes from "../../../app/routes";

const doc = JSON.parse(JSON.stringify(buildOpenApi("http://localhost:3000")));

/** Every path of app/routes.ts, flattened (layouts have children). */
function routePaths(list: { path?: string; children?: unknown[] }[]): string[] {
  return list.flatMap((r) => [...(r.path ? [r.path] : []), ...routePaths((r.children ?? []) as typeof list)]);
}
const apiRoutes = routePaths(routes as never).filter((p) => p.startsWith("api/"));

/** What the spec and DESIGN name; the reference must contain each. */
const REQUIRED = [
  "/api/generator/generate",
  "/api/generator/query",
  "/api/generator/history",
  "/api/demo/gen-text",
  "/api/demo/gen-image",
  "/api/demo/gen-stream-text",
  "/api/get-user-info",
  "/api/get-user-credits",
  "/api/get-user-subscription",
  "/api/ping",
  "/api/update-invite",
  "/api/add-feedback",
  "/api/keys/create",
  "/api/keys/list",
  "/api/keys/revoke",
  "/api/admin/grant-credits",
  "/api/admin/create-subscription",
  "/api/admin/list-users",
  "/api/health",
];

describe("GET /api/openapi.json document", () => {
  test("validates as OpenAPI 3.1 (swagger-parser)", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const validated = await SwaggerParser.validate(structuredClone(doc));
    expect(Object.keys(validated.paths ?? {}).length).toBe(
      Object.keys(ENDPOINTS).length + Object.keys(machinePaths()).length,
    );
  });

  test("a broken document is rejected by the same validator (the check can fail)", async () => {
    const broken = structuredClone(doc);
    broken.paths["/api/ping"].post.responses = "nope";
    await expect(SwaggerParser.validate(broken)).rejects.toThrow();
  });

  test("lists every api/* route of app/routes.ts", () => {
    expect(apiRoutes.length).toBeGreaterThan(15);
    for (const p of apiRoutes) {
      if (p === "api/*") continue; // the envelope 404 for unknown paths
      if (p === "api/auth/*") {
        // better-auth's splat: its sign-up and sign-in are documented
        expect(Object.keys(doc.paths).filter((k) => k.startsWith("/api/auth/")).length).toBeGreaterThanOrEqual(2);
        continue;
      }
      expect(doc.paths).toHaveProperty([`/${p}`]);
    }
  });

  test("lists every endpoint of the spec and DESIGN", () => {
    for (const p of REQUIRED) expect(Object.keys(doc.paths)).toContain(p);
  });

  test("every operation has a summary, security, a 200 response schema; bodies where the route reads one", () => {
    for (const [path, def] of Object.entries(ENDPOINTS)) {
      const op = doc.paths[path][def.method.toLowerCase()];
      expect(op.summary).toBeTruthy();
      expect(Array.isArray(op.security)).toBe(true);
      const content = op.responses["200"].content;
      expect(Object.values(content)[0]).toHaveProperty("schema");
      // The Stripe webhook reads its body raw (signature) and documents it with docBody only.
      // A GET endpoint's `body` schema validates its query string (the status stream): documented as parameters.
      if (def.method === "GET" && "query" in def)
        expect(op.parameters.map((p: { in: string }) => p.in)).toContain("query");
      // An upload documents its multipart body.
      else if ("multipart" in def && def.multipart)
        expect(op.requestBody.content["multipart/form-data"].schema.required).toEqual(["file"]);
      else if (("body" in def && def.body) || ("docBody" in def && def.docBody))
        expect(op.requestBody.content["application/json"].schema).toBeTruthy();
      // No body read: documented as optional and ignored (a validator must not reject a client that sends `{}`).
      else if (def.method === "POST" && !("envelope" in def && def.envelope === false))
        expect(op.requestBody).toMatchObject({ required: false });
    }
  });

  test("/v1/images/* and /mcp: key-only, in their own protocols (OpenAI's shapes, JSON-RPC), never the envelope", () => {
    const apiRoutes = routePaths(routes as never).filter((p) => p === "mcp" || (p.startsWith("v1/") && p !== "v1/*"));
    expect(apiRoutes.sort()).toEqual(["mcp", "v1/images/edits", "v1/images/generations"]);
    for (const p of apiRoutes) expect(doc.paths).toHaveProperty([`/${p}`]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    const gen = doc.paths["/v1/images/generations"].post;
    const edit = doc.paths["/v1/images/edits"].post;
    const mcp = doc.paths["/mcp"].post;
    for (const op of [gen, edit, mcp]) expect(op.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect([gen.operationId, edit.operationId, mcp.operationId]).toEqual(["createImage", "editImage", "callMcp"]);
    expect(gen.requestBody.content["application/json"].schema.required).toEqual(["prompt"]);
    expect(gen.requestBody.content["application/json"].schema.properties.model.anyOf[0].enum).toEqual(
      expect.arrayContaining(["dall-e-3", "gpt-image-1", "kling/kling-v1"]),
    );
    const form = edit.requestBody.content["multipart/form-data"].schema;
    expect(form.required).toEqual(["image", "prompt"]);
    expect(form.properties.image).toMatchObject({ type: "string", format: "binary" });
    expect(form.properties.model.anyOf[0].enum).toEqual(
      expect.arrayContaining(["dall-e-2", "gpt-image-1", "replicate/black-forest-labs/flux-kontext-pro"]),
    );
    expect(form.properties.model.anyOf[0].enum).not.toContain("dall-e-3");
    for (const op of [gen, edit]) {
      expect(op.responses["200"].content["application/json"].schema).toEqual({
        $ref: "#/components/schemas/OpenAIImagesResponse",
      });
      for (const status of ["400", "401", "403", "404", "429", "500", "504"])
        expect(op.responses[status].content["application/json"].schema).toEqual({
          $ref: "#/components/schemas/OpenAIError",
        });
    }
    expect(gen.responses["401"].content["application/json"].example.error.code).toBe("invalid_api_key");
    expect(doc.components.schemas.OpenAIError.properties.error.required).toEqual(["message", "type", "param", "code"]);
    expect(mcp.responses["401"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/JsonRpcResponse",
    });
    expect(mcp.responses["401"].headers).toHaveProperty("WWW-Authenticate");
    expect(mcp.requestBody.content["application/json"].example.method).toBe("tools/call");
  });

  test("security schemes: X-API-Key header and the session cookie; key management is session-only", () => {
    expect(doc.components.securitySchemes.apiKey).toEqual(
      expect.objectContaining({ type: "apiKey", in: "header", name: "X-API-Key" }),
    );
    expect(doc.components.securitySchemes.session).toEqual(
      expect.objectContaining({ type: "apiKey", in: "cookie", name: "atelier.session_token" }),
    );
    expect(doc.paths["/api/keys/create"].post.security).toEqual([{ session: [] }]);
    expect(doc.paths["/api/get-user-info"].post.security).toEqual([{ apiKey: [] }, { session: [] }]);
    expect(doc.paths["/api/health"].get.security).toEqual([]);
  });

  test("request bodies are required only where `{}` is refused; exactly one of email/user_uuid; feedback bounds; generate allows extra fields", () => {
    const body = (p: string) => doc.paths[p].post.requestBody;
    expect(body("/api/generator/history").required).toBe(false);
    expect(body("/api/admin/list-users").required).toBe(false);
    expect(body("/api/get-user-info").required).toBe(false);
    expect(body("/api/generator/generate").required).toBe(true);
    expect(body("/api/generator/generate").content["application/json"].schema.additionalProperties).toBeUndefined();
    expect(body("/api/admin/grant-credits").content["application/json"].schema.oneOf).toEqual([
      { required: ["email"] },
      { required: ["user_uuid"] },
    ]);
    const fb = body("/api/add-feedback").content["application/json"].schema;
    expect(fb.properties.content).toMatchObject({ minLength: 1, maxLength: 5000 });
    expect(Object.keys(doc.paths["/api/auth/sign-up/email"].post.responses).sort()).toEqual([
      "200",
      "400",
      "403",
      "422",
      "429",
    ]);
    expect(Object.keys(doc.paths["/api/auth/sign-in/email"].post.responses).sort()).toEqual([
      "200",
      "400",
      "401",
      "403",
      "429",
    ]);
    expect(Object.keys(doc.paths["/api/demo/gen-stream-text"].post.responses["200"].content)).toContain(
      "application/json",
    );
    expect(doc.paths["/api/demo/gen-text"].post.responses["200"].description).toContain(
      "upstream error: <provider> failed",
    );
  });

  test("request schemas come from the validating zod schemas (feedback rating 1..5, content required)", () => {
    const s = doc.paths["/api/add-feedback"].post.requestBody.content["application/json"].schema;
    expect(s.required).toEqual(expect.arrayContaining(["content", "rating"]));
    expect(s.properties.rating).toEqual(expect.objectContaining({ type: "integer", minimum: 1, maximum: 5 }));
    const gen = doc.paths["/api/generator/generate"].post.requestBody.content["application/json"].schema;
    expect(gen.required).toEqual(["ai_type", "provider", "model", "prompt"]);
    expect(gen.properties.ai_type.enum).toEqual(["image", "video"]);
    expect(gen.properties.prompt.maxLength).toBe(4000);
  });

  test("response schemas: the envelope around data; query is one shape per status", () => {
    const ok = doc.paths["/api/get-user-credits"].post.responses["200"].content["application/json"].schema.oneOf[0];
    expect(ok.properties.code).toEqual({ const: 0 });
    expect(ok.properties.data.required).toEqual(["left_credits", "total_credits"]);
    const q =
      doc.paths["/api/generator/query"].post.responses["200"].content["application/json"].schema.oneOf[0].properties
        .data;
    expect(q.oneOf.map((v: { properties: { status: { const: string } } }) => v.properties.status.const)).toEqual([
      "pending",
      "processing",
      "completed",
      "failed",
    ]);
    expect(doc.paths["/api/demo/gen-stream-text"].post.responses["200"].content).toHaveProperty([
      "text/plain; charset=utf-8",
    ]);
  });

  test("error messages and statuses come from the error table (spec §7, docs/design.md §1)", () => {
    const gen = doc.paths["/api/generator/generate"].post.responses;
    for (const m of [
      "invalid params: ai_type, provider, model, prompt required",
      "insufficient credits: need <needed>, have <available>",
      "Unsupported video provider: <provider>",
      "Unsupported image provider: <provider>",
      "no auth, please sign-in",
    ]) {
      expect(gen["200"].description).toContain(`\`${m}\``);
    }
    expect(gen["401"].description).toContain("`API key not found`");
    expect(gen["401"].description).toContain("`API key revoked`");
    expect(gen["429"].description).toContain("`Too Many Requests`");
    expect(gen["429"].headers).toHaveProperty("Retry-After");
    expect(doc.paths["/api/admin/list-users"].post.responses["200"].description).toContain("`forbidden`");
  });

  test("invalid params lists the body-level reasons, the NUL refusal among them", () => {
    expect(errorPatterns("INVALID_PARAMS").messages).toEqual(
      expect.arrayContaining([
        "invalid params",
        "invalid params: body is not valid JSON",
        "invalid params: text must not contain NUL characters",
        "invalid params: <reason>",
      ]),
    );
  });

  test("every error code has a documented pattern", () => {
    for (const code of Object.keys(ERRORS) as ErrorCode[]) {
      const { messages, status } = errorPatterns(code);
      expect(messages.length).toBeGreaterThan(0);
      for (const m of messages) expect(m).not.toContain("undefined");
      expect(status).toBe(ERRORS[code].status);
    }
  });

  test("operationIds read as SDK methods, each unique", () => {
    const ids: string[] = [];
    for (const item of Object.values(doc.paths) as Record<string, { operationId: string }>[])
      for (const op of Object.values(item)) ids.push(op.operationId);
    for (const item of Object.values(doc.webhooks) as Record<string, { operationId: string }>[])
      for (const op of Object.values(item)) ids.push(op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]+$/);
    const op = (path: string, method = "post") => doc.paths[path][method].operationId;
    expect(op("/api/generator/generate")).toBe("createGeneration");
    expect(op("/api/generator/query")).toBe("getGeneration");
    expect(op("/api/generator/cancel")).toBe("cancelGeneration");
    expect(op("/api/generator/history")).toBe("listGenerations");
    expect(op("/api/get-user-credits")).toBe("getCredits");
    expect(op("/api/health", "get")).toBe("getHealth");
    expect(op("/api/health")).toBe("checkHealth");
    expect(op("/api/files")).toBe("uploadFile");
  });

  test("the two webhooks operations need no Atelier credential (security: [])", () => {
    for (const type of ["generation.completed", "generation.failed"])
      expect(doc.webhooks[type].post.security).toEqual([]);
  });

  test("responses allow additions: no additionalProperties false under any response or webhook payload", () => {
    const strictAt: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (!node || typeof node !== "object") return;
      if ((node as { additionalProperties?: unknown }).additionalProperties === false) strictAt.push(where);
      for (const [k, v] of Object.entries(node)) walk(v, `${where}/${k}`);
    };
    for (const [path, item] of Object.entries(doc.paths) as [string, Record<string, { responses: unknown }>][])
      for (const [method, op] of Object.entries(item)) walk(op.responses, `${method} ${path}`);
    walk(doc.webhooks, "webhooks");
    walk(doc.components.schemas.ErrorEnvelope, "ErrorEnvelope");
    expect(strictAt).toEqual([]);
    // Request schemas stay as strict as the routes: cancel refuses unknown fields.
    const cancel = doc.paths["/api/generator/cancel"].post.requestBody.content["application/json"].schema;
    expect(cancel.additionalProperties).toBe(false);
  });

  test("one shared timestamp schema: the date-time pattern is written once per component", () => {
    const text = JSON.stringify(doc);
    const pattern = JSON.stringify(doc.components.schemas.Timestamp.pattern);
    expect(pattern.length).toBeGreaterThan(200);
    expect(text.split(pattern).length - 1).toBe(1);
    expect(text.split('"#/components/schemas/Timestamp"').length - 1).toBeGreaterThan(40);
    const created =
      doc.paths["/api/generator/query"].post.responses["200"].content["application/json"].schema.oneOf[0].properties
        .data.oneOf[0].properties.created_at;
    expect(created).toEqual({ $ref: "#/components/schemas/Timestamp" });
  });

  test("the answers a validating proxy met are documented: Stripe's 400, keys/create's 429, 503 service busy", () => {
    const stripe = doc.paths["/api/billing/webhook/stripe"].post.responses["400"];
    expect(stripe.description).toContain("`webhook not configured: set STRIPE_WEBHOOK_SECRET`");
    expect(stripe.description).toContain("`invalid signature`");
    const keys = doc.paths["/api/keys/create"].post.responses["429"];
    expect(keys.description).toContain("`Too Many Requests`");
    expect(keys.headers).toHaveProperty("Retry-After");
    for (const [path, item] of Object.entries(doc.paths) as [string, Record<string, { responses: any }>][]) {
      const def = ENDPOINTS[path as keyof typeof ENDPOINTS];
      // The key-only endpoints are outside the table: each answers 503 when the database is busy.
      if (def && !(def.errors as readonly string[]).includes("BUSY")) continue;
      for (const op of Object.values(item)) {
        expect(op.responses["503"]?.description).toContain("`service busy, please try again`");
        expect(op.responses["503"].headers).toHaveProperty("Retry-After");
      }
    }
  });

  test("response headers: the request id everywhere, Idempotent-Replayed on generate, the error code on errors", () => {
    for (const item of Object.values(doc.paths) as Record<string, { responses: Record<string, any> }>[])
      for (const op of Object.values(item))
        for (const response of Object.values(op.responses)) expect(response.headers).toHaveProperty("X-Request-Id");
    const gen = doc.paths["/api/generator/generate"].post.responses;
    expect(gen["200"].headers).toHaveProperty("Idempotent-Replayed");
    expect(gen["200"].headers).toHaveProperty("Atelier-Error-Code");
    expect(gen["401"].headers).toHaveProperty("Atelier-Error-Code");
    expect(doc.components.headers.RequestId.schema).toEqual({ type: "string" });
  });

  test("errors have examples named by their stable code (the error table's keys)", () => {
    const ok = doc.paths["/api/generator/generate"].post.responses["200"].content["application/json"];
    expect(ok.examples.INSUFFICIENT_CREDITS.value).toEqual({
      code: 1,
      message: "insufficient credits: need <needed>, have <available>",
      data: null,
    });
    expect(ok.examples.KEY_CREDIT_LIMIT.value.message).toBe(
      "key credit limit reached: <used> of <limit> this <period>",
    );
    const unauthorized = doc.paths["/api/generator/generate"].post.responses["401"].content["application/json"];
    expect(Object.keys(unauthorized.examples).sort()).toEqual(["API_KEY_NOT_FOUND", "API_KEY_REVOKED"]);
    expect(doc.components.schemas.ErrorCode.enum).toEqual(Object.keys(ERRORS));
  });

  test("generate: model has its known values, options one schema per catalog model", () => {
    const gen = doc.paths["/api/generator/generate"].post.requestBody.content["application/json"].schema;
    expect(gen.properties.model.anyOf[0].enum).toEqual(expect.arrayContaining(["dall-e-3", "kling-v1", "gen4.5"]));
    const flux = gen.anyOf.find((v: { title: string }) => v.title === "replicate/black-forest-labs/flux-schnell");
    expect(flux.properties.model).toMatchObject({ const: "black-forest-labs/flux-schnell" });
    expect(flux.properties.options.additionalProperties).toBe(false);
    expect(Object.keys(flux.properties.options.properties)).toContain("aspect_ratio");
    // A model an operator adds later still validates (its own variant).
    expect(gen.anyOf.at(-1).properties.model.not.enum).toContain("dall-e-3");
  });
});
