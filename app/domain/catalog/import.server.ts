/**
 * Adding a model without code (docs/catalog.md "Adding a model"): read the model's published input schema —
 * Replicate's latest version `openapi_schema` (`components.schemas.Input`), fal's per-endpoint OpenAPI document
 * (the POST request body's schema) — and turn each input Atelier can carry into an option spec. The admin keeps
 * the ones to sell, sets bounds and the price, and saves it through the upsert. The prompt is the task's own;
 * image inputs take the `image` / `image_end` / `mask` names with the upstream field in `param`.
 */
import type { OptionSpec } from "~/domain/catalog";
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";
import { BodyTooLarge, OutboundRefused, readCapped, safeFetch } from "~/lib/outbound.server";
import { isFalEndpointId } from "~/providers/fal.server";
import { isSafetySwitch } from "~/providers/offering";

export interface ImportedInputs {
  /** The options Atelier can offer, by Atelier's name. */
  options: Record<string, OptionSpec>;
  /** Inputs left out, with why (an object, an array, a file of another kind…). */
  skipped: { name: string; why: string }[];
  /** Where the schema came from. */
  source: string;
}

const MAX_SCHEMA_BYTES = 2 * 1024 * 1024;
const PROMPT_NAMES = new Set(["prompt", "text", "prompt_text"]);

type Schema = Record<string, any>;

function deref(doc: Schema, s: Schema | undefined, depth = 0): Schema | undefined {
  if (!s || depth > 8) return s;
  if (typeof s.$ref === "string" && s.$ref.startsWith("#/")) {
    const target = s.$ref
      .slice(2)
      .split("/")
      .reduce(
        (o: any, k: string) => (o && typeof o === "object" ? o[k.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined),
        doc,
      );
    return deref(doc, target, depth + 1);
  }
  // `allOf: [{$ref}]` (Replicate's enums) and `anyOf: [x, {type: null}]` (optional fields) reduce to their one schema.
  const one = (list: unknown) => (Array.isArray(list) ? list.filter((x: any) => x && x.type !== "null") : []);
  if (Array.isArray(s.allOf) && one(s.allOf).length === 1)
    return { ...deref(doc, one(s.allOf)[0], depth + 1), ...strip(s, "allOf") };
  if (Array.isArray(s.anyOf) && one(s.anyOf).length === 1)
    return { ...deref(doc, one(s.anyOf)[0], depth + 1), ...strip(s, "anyOf") };
  return s;
}
const strip = (s: Schema, key: string) => Object.fromEntries(Object.entries(s).filter(([k]) => k !== key));

const title = (name: string, s: Schema) =>
  (typeof s.title === "string" && s.title.trim() ? s.title.trim() : name.replace(/_/g, " ")).slice(0, 100);
const helpOf = (s: Schema) =>
  typeof s.description === "string" && s.description.trim() ? { help: s.description.trim().slice(0, 300) } : {};

/** The image name an upstream input maps to, when it is an image input. */
function imageName(name: string, s: Schema): "image" | "image_end" | "mask" | null {
  const looksLikeFile = s.format === "uri" || /_url$/.test(name) || /image|mask|frame/.test(name);
  if (!looksLikeFile || s.type !== "string") return null;
  if (/mask/.test(name)) return "mask";
  if (/(tail|end|last)_?(image|frame)/.test(name)) return "image_end";
  if (/image|frame|start/.test(name)) return "image";
  return null;
}

/** Turns an object schema's properties into option specs. */
export function optionsFromSchema(doc: Schema, input: Schema | undefined, source: string): ImportedInputs {
  const root = deref(doc, input);
  const props: Record<string, Schema> = root?.properties ?? {};
  const required = new Set<string>(Array.isArray(root?.required) ? root.required : []);
  const options: Record<string, OptionSpec> = {};
  const skipped: ImportedInputs["skipped"] = [];
  for (const [name, raw] of Object.entries(props)) {
    const s = deref(doc, raw) ?? {};
    if (PROMPT_NAMES.has(name)) continue;
    if (isSafetySwitch(name)) {
      skipped.push({ name, why: "a provider safety switch: the operator's setting is sent (docs/safety.md)" });
      continue;
    }
    const key = name
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, "_")
      .replace(/^[^a-z]+/, "")
      .slice(0, 64);
    const base = { label: title(name, s), ...helpOf(s), ...(key !== name ? { param: name } : {}) };
    const img = imageName(name, s);
    if (img) {
      if (options[img]) {
        skipped.push({ name, why: `a second ${img} input` });
        continue;
      }
      options[img] = {
        type: "image",
        label: title(name, s),
        ...helpOf(s),
        param: name,
        ...(required.has(name) ? { required: true } : {}),
      };
      continue;
    }
    if (!key) {
      skipped.push({ name, why: "not a usable option name" });
      continue;
    }
    if (Array.isArray(s.enum) && s.enum.length > 0 && s.enum.length <= 100) {
      if (s.enum.every((v: unknown) => typeof v === "string")) {
        const def = typeof s.default === "string" && s.enum.includes(s.default) ? s.default : s.enum[0];
        options[key] = { type: "enum", values: s.enum, default: def, ...base };
        continue;
      }
      if (s.enum.every((v: unknown) => Number.isInteger(v))) {
        const values = s.enum as number[];
        options[key] = {
          type: "integer",
          min: Math.min(...values),
          max: Math.max(...values),
          values,
          ...(Number.isInteger(s.default) && values.includes(s.default) ? { default: s.default } : {}),
          ...base,
        };
        continue;
      }
    }
    if (s.type === "integer" || s.type === "number") {
      const int = s.type === "integer";
      const min = Number.isFinite(s.minimum) ? s.minimum : int ? 0 : 0;
      const max = Number.isFinite(s.maximum) ? s.maximum : int ? 2_147_483_647 : 1_000_000;
      const def = Number.isFinite(s.default) && s.default >= min && s.default <= max ? { default: s.default } : {};
      options[key] = int
        ? { type: "integer", min, max, ...def, ...base }
        : { type: "number", min, max, ...def, ...base };
      continue;
    }
    if (s.type === "boolean") {
      options[key] = { type: "boolean", default: s.default === true, ...base };
      continue;
    }
    if (s.type === "string") {
      const maxLength = Number.isInteger(s.maxLength) && s.maxLength > 0 ? Math.min(s.maxLength, 10_000) : 2000;
      options[key] = { type: "text", maxLength, ...base };
      continue;
    }
    skipped.push({ name, why: `type ${s.type ?? "unknown"} is not an option Atelier can carry` });
  }
  return { options, skipped, source };
}

async function getJson(url: string, headers: Record<string, string>, allowPrivate: boolean): Promise<any> {
  let res: Response;
  try {
    res = await safeFetch(url, { headers, allowPrivate, maxRedirects: 3, signal: AbortSignal.timeout(15_000) });
  } catch (err) {
    const why =
      err instanceof OutboundRefused ? "its address is not allowed" : ((err as Error)?.message ?? String(err));
    throw new AppError("INVALID_PARAMS", { reason: `could not read the model's schema: ${why}` });
  }
  if (res.status === 404) {
    await res.body?.cancel().catch(() => {});
    throw new AppError("INVALID_PARAMS", { reason: "model not found upstream" });
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new AppError("INVALID_PARAMS", { reason: `could not read the model's schema: HTTP ${res.status}` });
  }
  try {
    return JSON.parse(new TextDecoder().decode(await readCapped(res, MAX_SCHEMA_BYTES)));
  } catch (err) {
    throw new AppError("INVALID_PARAMS", {
      reason: err instanceof BodyTooLarge ? "the model's schema is too large" : "the model's schema is not JSON",
    });
  }
}

/** Replicate: `GET /v1/models/{owner}/{name}` → `latest_version.openapi_schema.components.schemas.Input`. */
export async function importReplicate(
  config: Pick<Config, "REPLICATE_API_TOKEN" | "REPLICATE_BASE_URL" | "OUTBOUND_ALLOW_PRIVATE">,
  model: string,
): Promise<ImportedInputs> {
  const m = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,99})\/([A-Za-z0-9][A-Za-z0-9_.-]{0,99})$/.exec(model);
  if (!m) throw new AppError("INVALID_PARAMS", { reason: "a Replicate model is owner/name" });
  if (!config.REPLICATE_API_TOKEN)
    throw new AppError("INVALID_PARAMS", { reason: "set REPLICATE_API_TOKEN to read Replicate models" });
  const url = `${config.REPLICATE_BASE_URL}/models/${m[1]}/${m[2]}`;
  const body = await getJson(
    url,
    { authorization: `Bearer ${config.REPLICATE_API_TOKEN}` },
    config.OUTBOUND_ALLOW_PRIVATE,
  );
  const doc = body?.latest_version?.openapi_schema;
  if (!doc?.components?.schemas?.Input)
    throw new AppError("INVALID_PARAMS", { reason: "the model publishes no input schema" });
  return optionsFromSchema(doc, doc.components.schemas.Input, url);
}

/** fal: `GET {FAL_API_URL}/api/openapi/queue/openapi.json?endpoint_id=…` → the POST body's schema. */
export async function importFal(
  config: Pick<Config, "FAL_API_URL" | "OUTBOUND_ALLOW_PRIVATE">,
  endpointId: string,
): Promise<ImportedInputs> {
  if (!isFalEndpointId(endpointId))
    throw new AppError("INVALID_PARAMS", { reason: "a fal endpoint id is owner/alias[/path]" });
  const url = `${config.FAL_API_URL}/api/openapi/queue/openapi.json?endpoint_id=${encodeURIComponent(endpointId)}`;
  const doc = await getJson(url, {}, config.OUTBOUND_ALLOW_PRIVATE);
  const post =
    doc?.paths?.[`/${endpointId}`]?.post ??
    (Object.values(doc?.paths ?? {}) as any[]).find((p) => p?.post?.requestBody)?.post;
  const input = post?.requestBody?.content?.["application/json"]?.schema;
  if (!input) throw new AppError("INVALID_PARAMS", { reason: "the endpoint publishes no input schema" });
  return optionsFromSchema(doc, input, url);
}
