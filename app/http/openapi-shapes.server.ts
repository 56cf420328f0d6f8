/**
 * Shapes of the OpenAPI document that make it kind to generated clients (docs/api.md "OpenAPI and generated
 * clients"): operationIds that read as SDK methods, one shared timestamp schema, response objects that allow
 * additions, and generate's body as one variant per catalog model with that model's options.
 */
import { z } from "zod";
import { type Offering, PROVIDERS } from "~/domain/catalog";
import { optionsJsonSchema } from "~/domain/catalog/json-schema";

type Json = Record<string, unknown>;

/** SDK method names by endpoint path (and method where one path answers two). Unlisted paths get a name made from the path. */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  "/api/models": "listModels",
  "/api/admin/models/list": "adminListModels",
  "/api/admin/models/upsert": "adminUpsertModel",
  "/api/generator/generate": "createGeneration",
  "/api/generator/stream": "streamGeneration",
  "/api/generator/cancel": "cancelGeneration",
  "/api/generator/query": "getGeneration",
  "/api/generator/history": "listGenerations",
  "/api/webhooks/create": "createWebhook",
  "/api/webhooks/list": "listWebhooks",
  "/api/webhooks/update": "updateWebhook",
  "/api/webhooks/delete": "deleteWebhook",
  "/api/webhooks/rotate-secret": "rotateWebhookSecret",
  "/api/webhooks/deliveries": "listWebhookDeliveries",
  "/api/webhooks/resend": "resendWebhookDelivery",
  "/api/webhooks/test": "sendTestWebhook",
  "/api/demo/gen-text": "demoGenerateText",
  "/api/demo/gen-image": "demoGenerateImage",
  "/api/demo/gen-stream-text": "demoStreamText",
  "/api/get-user-info": "getUserInfo",
  "/api/get-user-credits": "getCredits",
  "/api/get-user-subscription": "getSubscription",
  "/api/ping": "checkIn",
  "/api/update-invite": "updateInvite",
  "/api/add-feedback": "addFeedback",
  "/api/billing/products": "listProducts",
  "/api/billing/checkout": "createCheckout",
  "/api/billing/webhook/stripe": "receiveStripeWebhook",
  "/api/keys/create": "createApiKey",
  "/api/keys/list": "listApiKeys",
  "/api/keys/revoke": "revokeApiKey",
  "/api/keys/update": "updateApiKey",
  "/api/usage": "getUsage",
  "/api/admin/grant-credits": "adminGrantCredits",
  "/api/admin/create-subscription": "adminCreateSubscription",
  "/api/admin/list-users": "adminListUsers",
  "/api/admin/suspend-user": "adminSuspendUser",
  "/api/files": "uploadFile",
  "/api/files/list": "listFiles",
  "/api/files/delete": "deleteFile",
  "/api/account/export": "exportAccount",
  "/api/account/delete": "deleteAccount",
  "get /api/health": "getHealth",
  "post /api/health": "checkHealth",
  "/api/openapi.json": "getOpenApiDocument",
  "/api/auth/sign-up/email": "signUpWithEmail",
  "/api/auth/sign-in/email": "signInWithEmail",
};

/** The operationId of `method path`: the table's name, else camelCase of the path (plus the method when two share it). */
export function operationIdFor(path: string, method: string, primary: boolean): string {
  const named = OPERATION_IDS[`${method} ${path}`] ?? (primary ? OPERATION_IDS[path] : undefined);
  if (named) return named;
  const id = path.replace(/^\/api\//, "").replace(/[^a-zA-Z0-9]+(.)/g, (_, c: string) => c.toUpperCase());
  return primary ? id : `${id}${method === "get" ? "Get" : "Post"}`;
}

const patternOf = (schema: z.ZodType) => (z.toJSONSchema(schema) as { pattern: string }).pattern;
const TIMESTAMP_PATTERNS: Readonly<Record<string, string>> = {
  [patternOf(z.iso.datetime())]: "Timestamp",
  [patternOf(z.iso.datetime({ offset: true }))]: "TimestampWithOffset",
};

/** The shared timestamp components every date-time field refers to. */
export const TIMESTAMP_SCHEMAS: Json = {
  Timestamp: {
    type: "string",
    format: "date-time",
    pattern: patternOf(z.iso.datetime()),
    description: "ISO 8601 UTC timestamp with milliseconds, e.g. 2026-11-27T14:03:00.000Z",
    examples: ["2026-11-27T14:03:00.000Z"],
  },
  TimestampWithOffset: {
    type: "string",
    format: "date-time",
    pattern: patternOf(z.iso.datetime({ offset: true })),
    description: "ISO 8601 timestamp, UTC (Z) or with an offset (+08:00)",
    examples: ["2026-11-01T00:00:00Z", "2026-11-01T00:00:00+08:00"],
  },
};

/**
 * Rewrites a generated schema in place: every date-time field becomes a reference to its shared component (its own
 * description kept beside the reference), and with `response` every `additionalProperties: false` goes, so fields
 * added later do not break strict clients. Request schemas keep theirs: the routes refuse unknown fields there.
 */
export function refineSchema(node: unknown, response: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => refineSchema(item, response));
  if (!node || typeof node !== "object") return node;
  const object = node as Json;
  const component =
    object.format === "date-time" && typeof object.pattern === "string"
      ? TIMESTAMP_PATTERNS[object.pattern]
      : undefined;
  if (component) {
    const description =
      typeof object.description === "string" && object.description !== "ISO 8601 UTC timestamp with milliseconds"
        ? object.description
        : undefined;
    return { $ref: `#/components/schemas/${component}`, ...(description ? { description } : {}) };
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(object)) {
    if (response && key === "additionalProperties" && value === false) continue;
    out[key] = key === "properties" ? refineProperties(value as Json, response) : refineSchema(value, response);
  }
  return out;
}

function refineProperties(properties: Json, response: boolean): Json {
  return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, refineSchema(value, response)]));
}

/**
 * Generate's documented body: one variant per catalog model (ai_type, provider and model fixed, `options` that
 * model's own schema, unknown keys refused as the route refuses them), and one for a model an operator added later
 * (any other model name, options an open object). Fields outside these are ignored by the route and allowed here.
 */
export function generateBodySchema(base: Json, offerings: readonly Offering[]): Json {
  const properties = base.properties as Json;
  const known = [...new Set(offerings.map((o) => o.model))];
  const variants = offerings.map((offering) => ({
    title: `${offering.provider}/${offering.model}`,
    type: "object",
    required: (base.required as string[]) ?? [],
    properties: {
      ...properties,
      ai_type: { const: offering.aiType },
      provider: { const: offering.provider },
      model: { const: offering.model, description: `${offering.label} (${offering.credits} credits)` },
      options: {
        ...optionsJsonSchema(offering),
        description: `the options of ${offering.model}; unknown keys are refused`,
      },
    },
  }));
  const other = {
    title: "a model added by the operator",
    type: "object",
    required: (base.required as string[]) ?? [],
    properties: {
      ...properties,
      provider: { type: "string", enum: [...PROVIDERS] },
      model: { type: "string", minLength: 1, not: { enum: known }, description: "POST /api/models lists them" },
    },
  };
  const { properties: _p, required: _r, ...rest } = base;
  return {
    ...rest,
    type: "object",
    required: base.required,
    properties: {
      ...properties,
      model: {
        ...(properties.model as Json),
        anyOf: [{ enum: known }, { type: "string", minLength: 1 }],
      },
    },
    anyOf: [...variants, other],
  };
}
