/**
 * The OpenAPI 3.1 document, generated from the endpoint table (app/lib/endpoints.ts)
 * with zod 4's `z.toJSONSchema`: request bodies from the schemas that validate
 * them, responses from the schemas the integration tests check real answers
 * against, messages from the error table.
 */
import { z } from "zod";
import { ENDPOINTS, type EndpointDef } from "./endpoints";
import { errorPatterns, type ErrorCode } from "./errors";
import { APP_VERSION } from "./version";

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const out = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" }) as Json;
  delete out.$schema;
  return out;
}

export const SECURITY_SCHEMES = {
  apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "An API key created on /keys (acts as its owner)." },
  session: {
    type: "apiKey",
    in: "cookie",
    name: "atelier.session_token",
    description: "The browser session set by sign-in (better-auth). In production over HTTPS the cookie is `__Secure-atelier.session_token`.",
  },
} as const;

export function securityFor(auth: EndpointDef["auth"]): Json[] {
  switch (auth) {
    case "user":
    case "admin":
      return [{ apiKey: [] }, { session: [] }];
    case "session":
      return [{ session: [] }];
    case "optional":
      return [{}, { apiKey: [] }, { session: [] }];
    case "none":
      return [];
  }
}

export const AUTH_TEXT: Record<EndpointDef["auth"], string> = {
  user: "Signed-in user: session cookie or X-API-Key.",
  admin: "Administrator: an admin's session or an admin's X-API-Key.",
  session: "Browser session only (an X-API-Key is refused with `forbidden`).",
  optional: "Open in development; in production a session or key unless DEMO_PUBLIC=true.",
  none: "None.",
};

const RATE_HEADERS = {
  "RateLimit-Policy": { description: 'IETF draft, e.g. `"standard";q=100;w=60` (requests with X-API-Key)', schema: { type: "string" } },
  RateLimit: { description: 'IETF draft, e.g. `"standard";r=99;t=60`', schema: { type: "string" } },
  "X-RateLimit-Limit": { description: "requests allowed per window", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "requests left in the window", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Unix seconds when a slot frees", schema: { type: "integer" } },
};

const errorEnvelope = { $ref: "#/components/schemas/ErrorEnvelope" };

function messagesFor(codes: readonly ErrorCode[], status: number): string[] {
  return [...new Set(codes.flatMap((c) => (errorPatterns(c).status === status ? errorPatterns(c).messages : [])))];
}

function operation(path: string, def: EndpointDef, method: string) {
  const id = path.replace(/^\/api\//, "").replace(/[^a-zA-Z0-9]+(.)/g, (_, c: string) => c.toUpperCase());
  const requestSchema = def.docBody ?? def.body;
  const successSchema =
    def.envelope === false
      ? jsonSchema(def.response, "output")
      : {
          type: "object",
          required: ["code", "message", "data"],
          additionalProperties: false,
          properties: {
            code: { const: 0 },
            message: def.successMessage ? { type: "string", const: def.successMessage } : { type: "string" },
            data: jsonSchema(def.response, "output"),
          },
        };
  const envelopeErrors = messagesFor(def.errors, 200);
  const ok =
    def.envelope === false
      ? {
          content: {
            [def.contentType ?? "application/json"]: { schema: successSchema },
            // Errors before a stream starts are JSON envelopes (gen-stream-text, stream).
            ...(envelopeErrors.length && (def.contentType ?? "application/json") !== "application/json" ? { "application/json": { schema: errorEnvelope } } : {}),
          },
        }
      : {
          content: {
            "application/json": {
              schema: envelopeErrors.length ? { oneOf: [successSchema, errorEnvelope] } : successSchema,
            },
          },
        };
  const responses: Json = {
    "200": {
      description:
        def.envelope === false
          ? envelopeErrors.length
            ? `Success (${def.contentType}), or an envelope error (application/json, code 1, HTTP 200) with one of: ${envelopeErrors.map((m) => `\`${m}\``).join(", ")}.`
            : "Success."
          : `Success (code 0), or an envelope error (code 1, HTTP 200) with one of: ${envelopeErrors.map((m) => `\`${m}\``).join(", ") || "none"}.`,
      headers: def.auth === "none" ? undefined : RATE_HEADERS,
      ...ok,
    },
  };
  for (const [status, text] of [
    ["401", "Bad, unknown or revoked X-API-Key"],
    ["405", "Wrong HTTP method (Allow: POST)"],
    ["409", "The Idempotency-Key was used before with a different request"],
    ["429", "The key is over its rate limit; retry after Retry-After seconds"],
    ["500", "Unexpected server fault (a request id is logged)"],
  ] as const) {
    const msgs = messagesFor(def.errors, Number(status));
    if (!msgs.length) continue;
    responses[status] = {
      description: `${text}: ${msgs.map((m) => `\`${m}\``).join(", ")}`,
      headers: status === "429" ? { ...RATE_HEADERS, "Retry-After": { schema: { type: "integer" }, description: "seconds" } } : undefined,
      content: { "application/json": { schema: errorEnvelope } },
    };
  }
  if (path === "/api/health") responses["503"] = { description: "The database check failed (data.database = error)." };
  return {
    operationId: method === def.method.toLowerCase() ? id : `${id}${method === "get" ? "Get" : "Post"}`,
    tags: [def.tag],
    summary: def.summary,
    description: `${def.description}\n\nAuth: ${AUTH_TEXT[def.auth]} (${def.source})`,
    security: securityFor(def.auth),
    ...(def.headers?.length || def.query?.length
      ? {
          parameters: [
            ...(def.headers ?? []).map((h) => ({
              name: h.name,
              in: "header",
              required: false,
              description: h.description,
              schema: { type: "string", minLength: 1, ...(h.maxLength ? { maxLength: h.maxLength } : {}) },
            })),
            ...(def.query ?? []).map((q) => ({ name: q.name, in: "query", required: q.required, description: q.description, schema: { type: "string" } })),
          ],
        }
      : {}),
    ...(requestSchema && method === "post"
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: jsonSchema(requestSchema, "input"), ...(def.example ? { example: def.example } : {}) } },
          },
        }
      : {}),
    responses,
  };
}

export function buildOpenApi(serverUrl: string) {
  const paths: Json = {};
  for (const [path, def] of Object.entries(ENDPOINTS) as [string, EndpointDef][]) {
    const item: Json = {};
    for (const m of [def.method, def.alsoMethod].filter(Boolean) as string[]) item[m.toLowerCase()] = operation(path, def, m.toLowerCase());
    paths[path] = item;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Atelier API",
      version: APP_VERSION,
      description:
        "AI images and videos paid for with credits. Every JSON endpoint is POST with a JSON body and answers the envelope `{code, message, data}`: code 0 on success, 1 on error (HTTP 200 unless stated). Generation is asynchronous: create a task, then poll /api/generator/query about every 3 s, stopping after 60 attempts (5 minutes). A readable version is at /docs.",
    },
    servers: [{ url: serverUrl }],
    tags: [...new Set(Object.values(ENDPOINTS).map((d) => d.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: {
        Envelope: {
          type: "object",
          required: ["code", "message", "data"],
          properties: { code: { enum: [0, 1] }, message: { type: "string" }, data: {} },
          description: "Every JSON response (spec §7): code 0 on success, 1 on error; data null when there is none.",
        },
        ErrorEnvelope: {
          type: "object",
          required: ["code", "message", "data"],
          additionalProperties: false,
          properties: { code: { const: 1 }, message: { type: "string" }, data: { type: "null" } },
        },
      },
    },
  };
}
