/**
 * A model's options as a JSON Schema object (`POST /api/models`, docs/catalog.md): what a client or the studio
 * needs to render a form and check values before sending them. The catalog's own checks (optionsProblem) stay
 * the authority; this is the same rules written for others to read.
 */

import { IMAGE_URL_MAX, type ModelInput, type Offering, type OptionSpec, optionFieldLabel } from "../catalog";
import type { PriceRule } from "./pricing";

export type JsonSchema = Record<string, unknown>;

/** The JSON Schema of an image input: an https URL or a file id (docs/catalog.md "Image inputs"). */
export const IMAGE_INPUT_SCHEMA: JsonSchema = {
  type: "string",
  "x-atelier-type": "image",
  anyOf: [
    { type: "string", format: "uri", pattern: "^https://", maxLength: IMAGE_URL_MAX },
    { type: "string", pattern: "^file_[A-Za-z0-9_-]{1,64}$" },
  ],
};

export function optionJsonSchema(spec: OptionSpec): JsonSchema {
  const meta: JsonSchema = { title: optionFieldLabel(spec), ...(spec.help ? { description: spec.help } : {}) };
  switch (spec.type) {
    case "enum":
      return { type: "string", enum: [...spec.values], default: spec.default, ...meta };
    case "integer":
      return {
        type: "integer",
        minimum: spec.min,
        maximum: spec.max,
        ...(spec.values ? { enum: [...spec.values] } : {}),
        ...(spec.default !== undefined ? { default: spec.default } : {}),
        ...meta,
      };
    case "number":
      return {
        type: "number",
        minimum: spec.min,
        maximum: spec.max,
        ...(spec.default !== undefined ? { default: spec.default } : {}),
        ...meta,
      };
    case "boolean":
      return { type: "boolean", default: spec.default, ...meta };
    case "text":
      return { type: "string", maxLength: spec.maxLength, ...meta };
    case "image":
      return { ...IMAGE_INPUT_SCHEMA, ...meta };
  }
}

/** A model's `options` as a JSON Schema object: its options only (`additionalProperties: false`), required ones listed. */
export function optionsJsonSchema(o: Pick<Offering, "options">): JsonSchema {
  const entries = Object.entries(o.options);
  const required = entries.filter(([, spec]) => spec.required).map(([key]) => key);
  return {
    type: "object",
    properties: Object.fromEntries(entries.map(([key, spec]) => [key, optionJsonSchema(spec)])),
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/** One model as `POST /api/models` lists it. */
export interface ModelInfo {
  ai_type: Offering["aiType"];
  provider: Offering["provider"];
  model: string;
  label: string;
  credits: number;
  pricing: PriceRule;
  mode: "live" | "simulated";
  inputs: ModelInput[];
  options: JsonSchema;
  typical_seconds: number;
  requires_plan: boolean;
}
