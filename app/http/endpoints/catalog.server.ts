/**
 * The catalog's rows of the endpoint table (app/http/endpoints.server.ts spreads them in): the public model list and
 * the admin's changes to it (docs/catalog.md).
 */
import { z } from "zod";
import { AI_TYPES, PROVIDERS } from "~/domain/catalog";
import { ModelUpsertSchema } from "~/domain/catalog/admin.server";
import { QuoteSchema } from "~/domain/catalog/quote";
import { AUTH_ERRORS, COMMON, type EndpointDef } from "./def.server";

export const PricingSchema = z
  .strictObject({
    base: z.int().describe("credits before the options"),
    add: z
      .record(z.string(), z.record(z.string(), z.int()))
      .optional()
      .describe('credits added per value of an option: {"quality": {"high": 6}}'),
    per_unit: z
      .record(z.string(), z.int())
      .optional()
      .describe('credits per unit of a numeric option: {"duration": 2} is 2 per second'),
    multiply_by: z.string().optional().describe("an integer option multiplying the whole (num_images)"),
  })
  .describe(
    'the price rule: (base + add + per_unit × value) × multiply_by, rounded up; options left out count at their defaults (docs/catalog.md "Price rules")',
  );

export const ModelInfoSchema = z.strictObject({
  ai_type: z.enum(AI_TYPES),
  provider: z.enum(PROVIDERS),
  model: z.string().describe("the id to send as `model` to /api/generator/generate"),
  label: z.string().describe("the name people read"),
  credits: z.int().describe("the price of one task at the default options, charged when it completes"),
  pricing: PricingSchema,
  mode: z.enum(["live", "simulated"]).describe("live: the provider's key is set; simulated: rendered locally"),
  inputs: z
    .array(z.enum(["text", "image"]))
    .describe('"text" (the prompt) always; "image" when the model takes an image option'),
  options: z
    .record(z.string(), z.unknown())
    .describe(
      "a JSON Schema object of the model's `options`: properties with type, bounds, enum and default; required; additionalProperties false. Image inputs (`image`, `image_end`, `mask`) carry `x-atelier-type: image` and take an https URL or a file id",
    ),
  typical_seconds: z.number().describe("typical seconds from submit to result here (simulated: the simulator's delay)"),
  requires_plan: z.boolean().describe("true: only users with an active subscription may run it"),
});

const CostSchema = z
  .strictObject({ usd: z.number(), per: z.enum(["task", "second"]) })
  .nullable()
  .describe("what the provider charges: US dollars per task or per second of video; null when unknown");

export const AdminModelSchema = z.strictObject({
  ai_type: z.enum(AI_TYPES),
  provider: z.enum(PROVIDERS),
  model: z.string(),
  label: z.string(),
  credits: z.int().describe("the price at the default options"),
  pricing: PricingSchema,
  enabled: z.boolean().describe("false: new tasks are refused; running ones finish"),
  requires_plan: z.boolean(),
  upstream_model: z.string().nullable().describe("the id sent upstream when it differs from model"),
  options: z.record(z.string(), z.unknown()).describe("the options as the catalog stores them (type, bounds, label…)"),
  options_schema: z.record(z.string(), z.unknown()).describe("the same options as a JSON Schema object"),
  cost: CostSchema,
  lifecycle: z.enum(["sync", "async"]),
  typical_seconds: z.number(),
});

export const CATALOG_ENDPOINTS = {
  "/api/models": {
    method: "POST",
    tag: "Generation",
    summary: "The models on sale",
    description:
      "Public (no sign-in needed; a key or a session may be sent). Every enabled model with its price in credits, whether it runs live or simulated, what it takes as input, and its options as a JSON Schema object. The operator changes this list from the admin (prices, new models, models taken off sale); a change shows here within a second.",
    auth: "optional",
    source: "docs/catalog.md",
    response: z.strictObject({ models: z.array(ModelInfoSchema) }),
    errors: ["API_KEY_NOT_FOUND", "API_KEY_REVOKED", "RATE_LIMITED", ...COMMON],
  },
  "/api/admin/models/list": {
    method: "POST",
    tag: "Admin",
    summary: "List the catalog",
    description:
      "Admins only (session or an admin's key). Every model, enabled or not, with its price, options and upstream cost.",
    auth: "admin",
    source: "docs/catalog.md",
    response: z.strictObject({ models: z.array(AdminModelSchema) }),
    errors: [...AUTH_ERRORS, "FORBIDDEN", ...COMMON],
  },
  "/api/admin/models/upsert": {
    method: "POST",
    tag: "Admin",
    summary: "Add or change a model",
    description:
      "Admins only. Identifies the model by ai_type, provider and model; a new one needs `credits` (any provider: a Replicate `owner/name`, a fal endpoint id…), a change touches only the fields given. A price applies to tasks created after it (a task keeps the price it was created at); `enabled: false` takes the model off sale (new tasks are refused, running ones finish). Every process and node sees the change within a second.",
    auth: "admin",
    source: "docs/catalog.md",
    body: ModelUpsertSchema,
    response: z.strictObject({ model: AdminModelSchema }),
    successMessage: "model saved",
    errors: [...AUTH_ERRORS, "FORBIDDEN", "INVALID_PARAMS", ...COMMON],
    example: { ai_type: "image", provider: "fal", model: "fal-ai/flux/dev", credits: 4, enabled: true },
  },
  "/api/generator/quote": {
    method: "POST",
    tag: "Generation",
    summary: "Price a task before running it",
    description:
      "Public (no sign-in needed; a key or a session may be sent). The credits a task of this model with these options would cost now, by the model's price rule; the same checks as generate (model, options) apply, nothing is written. The price charged is always the server's: a task keeps the price quoted when it was created.",
    auth: "optional",
    source: "docs/catalog.md",
    body: z.record(z.string(), z.unknown()),
    docBody: QuoteSchema,
    response: z.strictObject({ credits: z.int().describe("the price of one such task") }),
    errors: [
      "API_KEY_NOT_FOUND",
      "API_KEY_REVOKED",
      "RATE_LIMITED",
      "INVALID_PARAMS",
      "INVALID_OPTIONS",
      "INVALID_AI_TYPE",
      "UNSUPPORTED_PROVIDER",
      "UNSUPPORTED_MODEL",
      "MODEL_DISABLED",
      ...COMMON,
    ],
    example: { ai_type: "video", provider: "kling", model: "kling-v1", options: { duration: 10 } },
  },
} as const satisfies Record<string, EndpointDef>;
