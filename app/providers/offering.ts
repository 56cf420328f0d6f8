/**
 * The catalog's vocabulary, shared by the domain and the adapters below it (docs/design.md §1.1): what a model is
 * (`Offering`), what it accepts (`OptionSpec`) and how an option's value is judged. Types and pure functions only;
 * the catalog itself (which models exist, their prices) is app/domain/catalog.ts, which re-exports these. Adapters
 * are handed a task's option specs in the request (`GenerationRequest.specs`) instead of looking the model up.
 */

export type AiType = "image" | "video";
export const AI_TYPES: readonly AiType[] = ["image", "video"];

export type ProviderName = "openai" | "replicate" | "kling" | "runway" | "fal" | "google";
export const PROVIDERS: readonly ProviderName[] = ["openai", "replicate", "kling", "runway", "fal", "google"];

/**
 * One option a model accepts, as its provider's API names and bounds it
 * (docs/providers.md cites the sources). `default` is what the provider uses
 * when the option is left out; the simulator renders the same shape.
 */
export type OptionSpec = {
  label: string;
  help?: string;
  /** The unit of a numeric value ("s"): form labels read "Duration (s)", values "5 s". */
  unit?: string;
  /** A task without it is refused (an image-to-video model's `image`). */
  required?: boolean;
  /** The field name upstream when it differs from the option's name (fal's `image_url` for `image`). */
  param?: string;
} & (
  | { type: "enum"; values: readonly string[]; default: string }
  | { type: "integer"; min: number; max: number; default?: number; values?: readonly number[] }
  | { type: "number"; min: number; max: number; default?: number }
  | { type: "boolean"; default: boolean }
  | { type: "text"; maxLength: number }
  /** An input image (docs/catalog.md "Image inputs"): a file id or an https URL, under the names of IMAGE_OPTION_NAMES. */
  | { type: "image" }
);

/** The option names an image input goes by: the picture to start from, the last frame, an inpainting mask. */
export const IMAGE_OPTION_NAMES = ["image", "image_end", "mask"] as const;
/** What an image option's value may be: an https URL, or the id of an uploaded file. */
export const IMAGE_URL_MAX = 2048;
const FILE_ID = /^file_[A-Za-z0-9_-]{1,64}$/;

export interface PriceRule {
  base: number;
  /** Credits added for an option's value: `{quality: {high: 6, medium: 2}}`. A value not listed adds nothing. */
  add?: Record<string, Record<string, number>>;
  /** Credits per unit of a numeric option: `{duration: 2}` is 2 credits per second. */
  per_unit?: Record<string, number>;
  /** An integer option that multiplies the whole: `"num_images"`. */
  multiply_by?: string;
}

/** What a model takes: a text prompt always, and images when it declares an image option. */
export type ModelInput = "text" | "image";

/** What the provider charges for one task (the admin's margin view): US dollars per task or per second of video. */
export interface UpstreamCost {
  usd: number;
  per: "task" | "second";
}

export interface Offering {
  aiType: AiType;
  provider: ProviderName;
  model: string;
  /** The price of one task at the default options (the whole price when `pricing` is absent). */
  credits: number;
  /** The price rule (docs/catalog.md "Price rules") when the price follows the options; absent: `{base: credits}`. */
  pricing?: PriceRule | null;
  label: string;
  /** How the upstream API behaves: one call returns results, or submit + poll. */
  lifecycle: "sync" | "async";
  /** The `options` keys this model accepts; anything else is refused. */
  options: Readonly<Record<string, OptionSpec>>;
  /**
   * Typical seconds from submit to result on the provider with default options
   * (a hint for choosing, from the providers' own docs and listings; not a promise).
   * The studio shows it as "~2 s".
   */
  typicalSeconds: number;
  /**
   * The prompt of the model's sample card image, shipped with the app (see
   * `sampleImage`): the simulator's rendering, marked "SIMULATED · <model>",
   * written once by `bun scripts/make-samples.ts`. Never presented as provider output.
   */
  sample: string;
  /** Refuses new tasks when false (its running tasks finish). Absent: enabled. */
  enabled?: boolean;
  /** Only users with an active subscription may run it. */
  requiresPlan?: boolean;
  /** The model id sent upstream when it differs from `model` (MODEL_MAP still wins). */
  upstreamModel?: string;
  /** What the provider charges for a task, when known. */
  cost?: UpstreamCost | null;
}

export function isImageRef(v: unknown): boolean {
  if (typeof v !== "string") return false;
  if (FILE_ID.test(v)) return true;
  if (v.length > IMAGE_URL_MAX || !v.startsWith("https://")) return false;
  try {
    return new URL(v).protocol === "https:";
  } catch {
    return false;
  }
}

export function accepts(spec: OptionSpec, v: unknown): boolean {
  switch (spec.type) {
    case "enum":
      return typeof v === "string" && spec.values.includes(v);
    case "integer":
      return (
        typeof v === "number" &&
        Number.isInteger(v) &&
        v >= spec.min &&
        v <= spec.max &&
        (!spec.values || spec.values.includes(v))
      );
    case "number":
      return typeof v === "number" && Number.isFinite(v) && v >= spec.min && v <= spec.max;
    case "boolean":
      return typeof v === "boolean";
    case "text":
      return typeof v === "string" && v.length <= spec.maxLength;
    case "image":
      return isImageRef(v);
  }
}

/** The options among `options` that `specs` declares, with acceptable values only (what adapters send upstream). */
export function acceptedBy(
  specs: Readonly<Record<string, OptionSpec>>,
  options: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options)) {
    const spec = Object.hasOwn(specs, k) ? specs[k] : undefined;
    if (spec && accepts(spec, v)) out[k] = v;
  }
  return out;
}
