/**
 * The catalog's rows of the endpoint table (app/lib/endpoints.server.ts spreads them in): the public model list and
 * the admin's changes to it (docs/catalog.md).
 */
import { z } from "zod";
import { AI_TYPES, PROVIDERS } from "~/domain/catalog";
import { COMMON, type EndpointDef } from "./def.server";

export const ModelInfoSchema = z.strictObject({
  ai_type: z.enum(AI_TYPES),
  provider: z.enum(PROVIDERS),
  model: z.string().describe("the id to send as `model` to /api/generator/generate"),
  label: z.string().describe("the name people read"),
  credits: z.int().describe("the price of one task, charged when it completes"),
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
} as const satisfies Record<string, EndpointDef>;
