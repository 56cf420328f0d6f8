/**
 * OpenAI's images request read as Atelier generate requests (docs/openai-compat.md): `model` is an OpenAI model id
 * (`dall-e-3`, `gpt-image-1`: the openai provider's models) or `<provider>/<model>` for any image model of the
 * catalog; `size` becomes the model's `size` when it has one, else the closest of its `aspect_ratio` values;
 * `quality` and `style` pass to models that take them (OpenAI's names translated between its two models). Edits
 * take the models whose catalog entry has an `image` option; OpenAI's edit models (`dall-e-2`, `gpt-image-1`) are
 * the openai provider's `gpt-image-1`, the one that edits. Pure: refusals are OpenAiRefusal, which the route answers
 * in OpenAI's error shape.
 */
import { findOffering, type Offering, type OptionSpec } from "~/domain/catalog";

export const MAX_IMAGES = 4;

export class OpenAiRefusal extends Error {
  constructor(
    readonly status: 400 | 404,
    message: string,
    readonly param: string | null,
    readonly code: string | null,
  ) {
    super(message);
    this.name = "OpenAiRefusal";
  }
}

export interface ImagesRequest {
  /** The generate request of each image. */
  input: { ai_type: "image"; provider: string; model: string; prompt: string; options: Record<string, unknown> };
  n: number;
  responseFormat: "url" | "b64_json";
  /** What OpenAI's answer echoes for its gpt-image models (answerFields). */
  echo: ImagesEcho;
  /** `stream: true`: server-sent events (docs/openai-compat.md "Streaming"). */
  stream: boolean;
}

/** The request as OpenAI's gpt-image answers describe it; `gptImage` false for every other model. */
export interface ImagesEcho {
  gptImage: boolean;
  prompt: string;
  size: string;
  quality: string;
  background: string;
  outputFormat: string;
}

/** OpenAI's gpt-image models (`gpt-image-1`, `gpt-image-1-mini`, `openai/gpt-image-1`…): they answer b64_json. */
export const isGptImage = (model: string) => /^(openai\/)?gpt-image-/.test(model);

/** The answer's default form (OpenAI's): b64_json for gpt-image models and for every edit, url otherwise. */
export const defaultResponseFormat = (model: string, edit: boolean): "url" | "b64_json" =>
  edit || isGptImage(model) ? "b64_json" : "url";

/** The formats an answer can be in. Only png is produced: no image encoder ships with the server (docs/openai-compat.md). */
export const OUTPUT_FORMATS = ["png", "jpeg", "webp"] as const;

const invalid = (param: string, message: string) => new OpenAiRefusal(400, message, param, "invalid_value");

/** `dall-e-3` → openai/dall-e-3; `kling/kling-v1` → kling/kling-v1 (the model may hold slashes itself). */
export function resolveImageModel(model: string): Offering {
  const slash = model.indexOf("/");
  const [provider, name] = slash < 0 ? ["openai", model] : [model.slice(0, slash), model.slice(slash + 1)];
  const offering = findOffering("image", provider, name);
  if (!offering || offering.enabled === false) {
    throw new OpenAiRefusal(
      404,
      `The model \`${model}\` does not exist or you do not have access to it.`,
      "model",
      "model_not_found",
    );
  }
  return offering;
}

const enumValues = (spec: OptionSpec | undefined): readonly string[] | null =>
  spec?.type === "enum" ? spec.values : null;

/** "1792x1024" → the aspect value ("16:9") nearest in ratio (compared as logarithms: 2:1 and 1:2 are as far from 1:1). */
function nearestAspect(width: number, height: number, values: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const value of values) {
    const m = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(value);
    if (!m) continue;
    const distance = Math.abs(Math.log(width / height) - Math.log(Number(m[1]) / Number(m[2])));
    if (distance < bestDistance) [best, bestDistance] = [value, distance];
  }
  return best;
}

// OpenAI's quality names differ between its models: each maps to the other's nearest.
const QUALITY_ALIASES: Record<string, string> = { hd: "high", standard: "medium", high: "hd", medium: "standard" };

function sizeOption(offering: Offering, size: string): Record<string, string> {
  const sizes = enumValues(offering.options.size);
  if (sizes) {
    if (!sizes.includes(size))
      throw invalid("size", `Invalid value for 'size': '${size}'. Supported values are: ${sizes.join(", ")}.`);
    return { size };
  }
  const m = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  if (!m || Number(m[1]) === 0 || Number(m[2]) === 0)
    throw invalid("size", `Invalid value for 'size': '${size}'. Expected WIDTHxHEIGHT, e.g. 1024x1024.`);
  const aspects = enumValues(offering.options.aspect_ratio);
  const aspect = aspects && nearestAspect(Number(m[1]), Number(m[2]), aspects);
  return aspect ? { aspect_ratio: aspect } : {};
}

function qualityOption(offering: Offering, quality: string): Record<string, string> {
  const values = enumValues(offering.options.quality);
  if (!values || quality === "auto") return values?.includes("auto") ? { quality } : {};
  if (values.includes(quality)) return { quality };
  const alias = QUALITY_ALIASES[quality];
  if (alias && values.includes(alias)) return { quality: alias };
  if (quality === "low" && values.includes("standard")) return { quality: "standard" };
  throw invalid("quality", `Invalid value for 'quality': '${quality}'. Supported values are: ${values.join(", ")}.`);
}

function styleOption(offering: Offering, style: string): Record<string, string> {
  const values = enumValues(offering.options.style);
  if (!values) return {};
  if (values.includes(style)) return { style };
  throw invalid("style", `Invalid value for 'style': '${style}'. Supported values are: ${values.join(", ")}.`);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function optionalString(body: Record<string, unknown>, param: string): string | undefined {
  const v = body[param];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw invalid(param, `Invalid type for '${param}': expected a string.`);
  return v;
}

/** OpenAI's edit models: both are served by the catalog's model that edits (docs/openai-compat.md "Edits"). */
export const EDIT_MODEL_ALIASES: Readonly<Record<string, string>> = {
  "dall-e-2": "openai/gpt-image-1",
  "gpt-image-1": "openai/gpt-image-1",
};
export const DEFAULT_EDIT_MODEL = "gpt-image-1";

/** A model for `/v1/images/edits`: an image model of the catalog with an `image` option (400 otherwise). */
export function resolveEditModel(model: string, withMask: boolean): Offering {
  const offering = resolveImageModel(EDIT_MODEL_ALIASES[model] ?? model);
  if (offering.options.image?.type !== "image")
    throw invalid(
      "model",
      `The model \`${model}\` does not take an input image. Use ${DEFAULT_EDIT_MODEL} or a model whose options include image (POST /api/models).`,
    );
  if (withMask && offering.options.mask?.type !== "image")
    throw invalid("mask", `The model \`${model}\` does not take a mask.`);
  return offering;
}

/** The request's fields checked in OpenAI's terms; fields it does not use (`user`, `background`…) are ignored. */
export function parseImagesRequest(body: unknown): ImagesRequest {
  if (!isObject(body)) throw new OpenAiRefusal(400, "The request body must be a JSON object.", null, null);
  const model = optionalString(body, "model") ?? "dall-e-3";
  return parseFields(body, resolveImageModel(model), model, false);
}

/**
 * The text fields of an edits form (multipart: every value a string, `n` too). The picture and the mask are the
 * route's to read; `withMask` says whether a mask came, which the model must take.
 */
export function parseEditsRequest(fields: Record<string, string>, withMask: boolean): ImagesRequest {
  const { n, stream, ...rest } = fields;
  const body: Record<string, unknown> = { ...rest };
  if (n !== undefined) body.n = /^\d{1,3}$/.test(n) ? Number(n) : n;
  if (stream !== undefined) body.stream = stream === "true" ? true : stream === "false" ? false : stream;
  const model = optionalString(body, "model") ?? DEFAULT_EDIT_MODEL;
  return parseFields(body, resolveEditModel(model, withMask), model, true);
}

function parseFields(body: Record<string, unknown>, offering: Offering, model: string, edit: boolean): ImagesRequest {
  const prompt = optionalString(body, "prompt");
  if (!prompt?.trim()) throw new OpenAiRefusal(400, "Missing required parameter: 'prompt'.", "prompt", "invalid_value");
  const n = body.n ?? 1;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_IMAGES)
    throw invalid("n", `Invalid value for 'n': expected an integer from 1 to ${MAX_IMAGES}.`);
  // OpenAI's dall-e-3 makes one image per request and refuses more (its SDKs and the AI SDK split n themselves).
  if (n > 1 && offering.provider === "openai" && offering.model === "dall-e-3")
    throw new OpenAiRefusal(
      400,
      `Invalid 'n': integer above maximum value. Expected a value <= 1, but got ${n} instead.`,
      "n",
      "integer_above_max_value",
    );
  const stream = body.stream ?? false;
  if (typeof stream !== "boolean") throw invalid("stream", "Invalid type for 'stream': expected a boolean.");
  const outputFormat = optionalString(body, "output_format") ?? "png";
  if (!(OUTPUT_FORMATS as readonly string[]).includes(outputFormat))
    throw invalid(
      "output_format",
      `Invalid value for 'output_format': '${outputFormat}'. Supported values are: ${OUTPUT_FORMATS.join(", ")}.`,
    );
  const responseFormat = optionalString(body, "response_format") ?? defaultResponseFormat(model, edit);
  if (responseFormat !== "url" && responseFormat !== "b64_json")
    throw invalid("response_format", `Invalid value for 'response_format': '${responseFormat}'. Use url or b64_json.`);
  const size = optionalString(body, "size");
  const quality = optionalString(body, "quality");
  const style = optionalString(body, "style");
  const options = {
    ...(size && size !== "auto" ? sizeOption(offering, size) : {}),
    ...(quality ? qualityOption(offering, quality) : {}),
    ...(style ? styleOption(offering, style) : {}),
  };
  return {
    input: { ai_type: "image", provider: offering.provider, model: offering.model, prompt, options },
    n,
    responseFormat,
    stream,
    echo: {
      gptImage: isGptImage(model) || (offering.provider === "openai" && isGptImage(offering.model)),
      prompt,
      size: size ?? "1024x1024",
      quality: quality ?? "auto",
      background: optionalString(body, "background") ?? "opaque",
      // What is sent: png (no encoder ships with the server; the answer says so rather than mislabel).
      outputFormat: "png",
    },
  };
}
