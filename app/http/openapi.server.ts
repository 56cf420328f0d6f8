/**
 * The OpenAPI 3.1 document, generated from the endpoint table (app/http/endpoints.server.ts)
 * with zod 4's `z.toJSONSchema`: request bodies from the schemas that validate
 * them, responses from the schemas the integration tests check real answers
 * against, messages from the error table.
 */
import { z } from "zod";
import { CATALOG } from "~/domain/catalog";
import { WEBHOOK_TEST_EVENT } from "~/domain/webhooks/events";
import { APP_VERSION } from "~/lib/version";
import { ENDPOINTS, type EndpointDef, GENERATE_MESSAGE, QueryResponseSchema } from "./endpoints.server";
import {
  ERROR_ENVELOPE_REF,
  errorCodeSchema,
  errorExamples,
  errorResponses,
  HEADER_COMPONENTS,
  messagesFor,
  okErrorHeaders,
  REQUEST_ID_HEADER,
} from "./openapi-errors.server";
import { MACHINE_SCHEMAS, MACHINE_SECURITY_SCHEME, MACHINE_TAGS, machinePaths } from "./openapi-machine.server";
import { generateBodySchema, operationIdFor, refineSchema, TIMESTAMP_SCHEMAS } from "./openapi-shapes.server";

type Json = Record<string, unknown>;

/** A zod schema as JSON Schema: shared timestamps; responses (output) allow fields added later. */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const out = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" }) as Json;
  delete out.$schema;
  return refineSchema(out, io === "output") as Json;
}

export const SECURITY_SCHEMES = {
  apiKey: {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "An API key created on /keys (acts as its owner).",
  },
  session: {
    type: "apiKey",
    in: "cookie",
    name: "atelier.session_token",
    description:
      "The browser session set by sign-in (better-auth). In production over HTTPS the cookie is `__Host-atelier.session_token`.",
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
  "RateLimit-Policy": {
    description: 'IETF draft, e.g. `"standard";q=100;w=60` (requests with X-API-Key)',
    schema: { type: "string" },
  },
  RateLimit: { description: 'IETF draft, e.g. `"standard";r=99;t=60`', schema: { type: "string" } },
  "X-RateLimit-Limit": { description: "requests allowed per window", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "requests left in the window", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Unix seconds when a slot frees", schema: { type: "integer" } },
};

const errorEnvelope = ERROR_ENVELOPE_REF;

/**
 * The request body as the route really treats it: required only when `{}`
 * would be refused; endpoints that read no body say that any body is ignored;
 * "exactly one of" rules as `oneOf`.
 */
function requestBody(def: EndpointDef, schema: z.ZodType | undefined): Json | undefined {
  if (!schema) {
    if (def.method !== "POST" || def.envelope === false) return undefined;
    return {
      required: false,
      description: "No fields. The route does not read the body: whatever is sent is ignored.",
      content: { "application/json": { schema: { type: "object" } } },
    };
  }
  if (def.multipart)
    return {
      required: true,
      content: {
        "multipart/form-data": {
          schema: {
            type: "object",
            required: ["file"],
            properties: { file: { type: "string", format: "binary", description: "PNG, JPEG or WebP" } },
          },
        },
      },
    };
  let json = jsonSchema(schema, "input");
  if (def.docBody && def.successMessage === GENERATE_MESSAGE) json = generateBodySchema(json, CATALOG);
  if (def.exactlyOne) json.oneOf = def.exactlyOne.map((k) => ({ required: [k] }));
  return {
    required: !schema.safeParse({}).success,
    content: { "application/json": { schema: json, ...(def.example ? { example: def.example } : {}) } },
  };
}

function operation(path: string, def: EndpointDef, method: string) {
  const requestSchema = def.docBody ?? def.body;
  const successSchema =
    def.envelope === false
      ? jsonSchema(def.response, "output")
      : {
          type: "object",
          required: ["code", "message", "data"],
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
            ...(envelopeErrors.length && (def.contentType ?? "application/json") !== "application/json"
              ? { "application/json": { schema: errorEnvelope } }
              : {}),
          },
        }
      : {
          content: {
            "application/json": {
              schema: envelopeErrors.length ? { oneOf: [successSchema, errorEnvelope] } : successSchema,
              ...(envelopeErrors.length ? { examples: errorExamples(def.errors, 200) } : {}),
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
      headers: {
        ...(def.auth === "none" ? {} : RATE_HEADERS),
        ...okErrorHeaders(def.errors),
        ...(path === "/api/generator/generate"
          ? {
              "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" },
              "Preference-Applied": { $ref: "#/components/headers/PreferenceApplied" },
            }
          : {}),
      },
      ...ok,
    },
  };
  Object.assign(responses, errorResponses(def.errors, RATE_HEADERS));
  for (const [status, description] of Object.entries(def.extraResponses ?? {})) {
    responses[status] = {
      description,
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["message"],
            properties: { code: { type: "string" }, message: { type: "string" } },
          },
        },
      },
    };
  }
  if (path === "/api/health")
    responses["503"] = {
      description: "The database check failed (data.database = error): the same envelope as a success.",
      headers: REQUEST_ID_HEADER,
      content: { "application/json": { schema: successSchema } },
    };
  for (const response of Object.values(responses) as Json[])
    response.headers = { ...REQUEST_ID_HEADER, ...(response.headers as Json | undefined) };
  return {
    operationId: operationIdFor(path, method, method === def.method.toLowerCase()),
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
            ...(def.query ?? []).map((q) => ({
              name: q.name,
              in: "query",
              required: q.required,
              description: q.description,
              schema: { type: "string" },
            })),
          ],
        }
      : {}),
    ...(method === "post" ? { requestBody: requestBody(def, requestSchema) } : {}),
    responses,
  };
}

/** The Standard Webhooks headers Atelier sends with every event. */
const WEBHOOK_HEADERS = [
  {
    name: "webhook-id",
    description: "The event id (`msg_…`): the same on every retry and resend; dedupe on it.",
    example: "msg_2c9Y0h6kZ1bQn3s4t5u6vw",
  },
  {
    name: "webhook-timestamp",
    description: "Unix seconds of this attempt; reject values far from your clock (the libraries allow 5 minutes).",
    example: "1763805600",
  },
  {
    name: "webhook-signature",
    description:
      '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the base64-decoded part of your `whsec_` secret. During the 24 h after a rotation, two signatures separated by a space (new and old secret): accept if any matches.',
    example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  },
];

/** One event Atelier POSTs to a subscriber: signed (WEBHOOK_HEADERS), needing no Atelier credential. */
function webhookPost(event: {
  operationId: string;
  type: string;
  summary: string;
  description: string;
  payload: Json;
}) {
  return {
    post: {
      operationId: event.operationId,
      tags: ["Webhooks"],
      // Atelier calls the subscriber: no Atelier credential is involved (the signature headers authenticate it).
      security: [],
      summary: event.summary,
      description: event.description,
      parameters: WEBHOOK_HEADERS.map((h) => ({
        name: h.name,
        in: "header",
        required: true,
        description: h.description,
        schema: { type: "string" },
        example: h.example,
      })),
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["type", "timestamp", "data"],
              properties: { type: { const: event.type }, ...event.payload },
            },
          },
        },
      },
      responses: { "200": { description: "Any 2xx acknowledges the event." } },
    },
  };
}

/** OpenAPI 3.1 `webhooks`: the events Atelier POSTs to endpoints created with /api/webhooks/create. */
export function webhooksSection(): Json {
  const variant = (status: "completed" | "failed") =>
    QueryResponseSchema.options.find((o) => (o.shape.status as z.ZodLiteral<string>).value === status)!;
  const out: Json = {};
  for (const [type, status] of [
    ["generation.completed", "completed"],
    ["generation.failed", "failed"],
  ] as const) {
    out[type] = webhookPost({
      operationId: type === "generation.completed" ? "onGenerationCompleted" : "onGenerationFailed",
      type,
      summary: `${type}: a task ${status === "completed" ? "completed (results stored, credits debited)" : "failed, was canceled or timed out (nothing charged)"}`,
      description:
        "Sent once per event to each active endpoint subscribed to it, signed per the Standard Webhooks specification. Answer any 2xx within 10 s to acknowledge; anything else (or a redirect, or no answer) is retried with backoff for about 27 hours (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), always with the same webhook-id. An endpoint without a successful delivery for 3 days is disabled (the reason shows in /api/webhooks/list).",
      payload: {
        timestamp: {
          $ref: "#/components/schemas/Timestamp",
          description: "when the event happened (the task's final transition)",
        },
        data: {
          ...jsonSchema(variant(status), "output"),
          description: "exactly the data of /api/generator/query for this task at that moment",
        },
      },
    });
  }
  out[WEBHOOK_TEST_EVENT] = webhookPost({
    operationId: "onWebhookTest",
    type: WEBHOOK_TEST_EVENT,
    summary: `${WEBHOOK_TEST_EVENT}: sent on request by /api/webhooks/test (or the page's Send test event)`,
    description:
      "Signed and delivered like every event, to the one endpoint it was sent to, whatever its events. Use it to check that your endpoint is reachable and verifies signatures.",
    payload: {
      timestamp: { $ref: "#/components/schemas/Timestamp", description: "when the test was asked for" },
      data: {
        type: "object",
        required: ["webhook_id", "message"],
        properties: { webhook_id: { type: "string" }, message: { type: "string" } },
      },
    },
  });
  return out;
}

export function buildOpenApi(serverUrl: string) {
  const paths: Json = {};
  for (const [path, def] of Object.entries(ENDPOINTS) as [string, EndpointDef][]) {
    const item: Json = {};
    for (const m of [def.method, def.alsoMethod].filter(Boolean) as string[])
      item[m.toLowerCase()] = operation(path, def, m.toLowerCase());
    paths[path] = item;
  }
  Object.assign(paths, machinePaths());
  return {
    openapi: "3.1.0",
    info: {
      title: "Atelier API",
      version: APP_VERSION,
      description:
        "AI images and videos paid for with credits. Every JSON endpoint under /api is POST with a JSON body and answers the envelope `{code, message, data}`: code 0 on success, 1 on error (HTTP 200 unless stated); every error also names its stable key in the `Atelier-Error-Code` response header (components.schemas.ErrorCode). The machine-client endpoints (/v1/images/* for OpenAI's SDKs, /mcp for agents) take only keys and answer in their own protocols (OpenAI's shapes, JSON-RPC), not the envelope. Generation is asynchronous: create a task, then poll /api/generator/query about every 3 s, stopping after 60 attempts (5 minutes). A readable version is at /docs.",
    },
    servers: [{ url: serverUrl }],
    tags: [...new Set([...Object.values(ENDPOINTS).map((d) => d.tag), ...MACHINE_TAGS])].map((name) => ({ name })),
    paths,
    webhooks: webhooksSection(),
    components: {
      securitySchemes: { ...SECURITY_SCHEMES, bearer: MACHINE_SECURITY_SCHEME },
      headers: HEADER_COMPONENTS,
      schemas: {
        ...TIMESTAMP_SCHEMAS,
        ...MACHINE_SCHEMAS,
        ErrorCode: errorCodeSchema(),
        Envelope: {
          type: "object",
          required: ["code", "message", "data"],
          properties: { code: { enum: [0, 1] }, message: { type: "string" }, data: {} },
          description: "Every JSON response (spec §7): code 0 on success, 1 on error; data null when there is none.",
        },
        ErrorEnvelope: {
          type: "object",
          required: ["code", "message", "data"],
          properties: { code: { const: 1 }, message: { type: "string" }, data: { type: "null" } },
          description:
            "An error (spec §7): code 1, the message, data null. Its stable code is in the Atelier-Error-Code response header.",
          examples: [{ code: 1, message: "insufficient credits: need 5, have 2", data: null }],
        },
      },
    },
  };
}
