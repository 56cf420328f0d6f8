import {
  AI_TYPES,
  type AiType,
  acceptedBy,
  accepts,
  IMAGE_OPTION_NAMES,
  IMAGE_URL_MAX,
  isImageRef,
  type ModelInput,
  type Offering,
  type OptionSpec,
  PROVIDERS,
  type ProviderName,
  type UpstreamCost,
} from "~/providers/offering";
import { FAL_MODELS, GOOGLE_MODELS, IMAGE_INPUT_MODELS } from "./catalog/seed-providers";

export type { AiType, ModelInput, Offering, OptionSpec, ProviderName, UpstreamCost };
/**
 * The catalog (docs/design.md §2): the single source of truth for which provider
 * offers which model for which ai_type, and what it costs. Validation, pricing,
 * the studio's pickers and the API docs all read this table.
 */
export { AI_TYPES, acceptedBy, accepts, IMAGE_OPTION_NAMES, IMAGE_URL_MAX, isImageRef, PROVIDERS };

const PROVIDER_NAMES: Record<string, string> = {
  openai: "OpenAI",
  replicate: "Replicate",
  kling: "Kling",
  runway: "Runway",
  fal: "fal",
  google: "Google",
};
/** A provider as people write it ("OpenAI"), for pages; the API keeps the id ("openai"). */
export const providerName = (id: string): string => PROVIDER_NAMES[id] ?? id;

const SEED_MAX = 2_147_483_647;
const KLING_NEGATIVE: OptionSpec = {
  type: "text",
  maxLength: 2500,
  label: "Negative prompt",
  help: "what the result should not show",
};
const KLING_VIDEO: Record<string, OptionSpec> = {
  aspect_ratio: { type: "enum", values: ["16:9", "9:16", "1:1"], default: "16:9", label: "Aspect ratio" },
  duration: { type: "integer", min: 5, max: 10, values: [5, 10], default: 5, label: "Duration", unit: "s" },
  negative_prompt: KLING_NEGATIVE,
  cfg_scale: {
    type: "number",
    min: 0,
    max: 1,
    default: 0.5,
    label: "Prompt adherence",
    help: "0–1; higher follows the prompt more closely",
  },
  // Kling's image2video: with a picture the video takes its shape, so aspect_ratio is not sent.
  image: { type: "image", param: "image", label: "Start image", help: "optional: the first frame" },
  image_end: { type: "image", param: "image_tail", label: "End image", help: "optional: the last frame" },
};

const BUILT_IN: readonly Offering[] = [
  {
    aiType: "image",
    provider: "openai",
    model: "dall-e-3",
    credits: 5,
    label: "DALL·E 3",
    lifecycle: "sync",
    typicalSeconds: 12,
    sample: "A lighthouse on a cliff at dusk, oil painting",
    options: {
      size: { type: "enum", values: ["1024x1024", "1792x1024", "1024x1792"], default: "1024x1024", label: "Size" },
      quality: { type: "enum", values: ["standard", "hd"], default: "standard", label: "Quality" },
      style: { type: "enum", values: ["vivid", "natural"], default: "vivid", label: "Style" },
    },
  },
  {
    aiType: "image",
    provider: "openai",
    model: "gpt-image-1",
    credits: 8,
    label: "GPT Image 1",
    lifecycle: "sync",
    typicalSeconds: 40,
    sample: "A paper-cut fox in an autumn forest",
    options: {
      size: { type: "enum", values: ["1024x1024", "1536x1024", "1024x1536"], default: "1024x1024", label: "Size" },
      quality: { type: "enum", values: ["low", "medium", "high", "auto"], default: "auto", label: "Quality" },
      // With a picture the task goes to OpenAI's edits endpoint (docs/providers.md "OpenAI").
      image: {
        type: "image",
        param: "image",
        label: "Image to edit",
        help: "optional: the prompt describes the change",
      },
      mask: {
        type: "image",
        param: "mask",
        label: "Mask",
        help: "a PNG the size of the image; clear pixels are redrawn",
      },
    },
  },
  {
    aiType: "image",
    provider: "replicate",
    model: "black-forest-labs/flux-schnell",
    credits: 3,
    label: "FLUX.1 [schnell]",
    lifecycle: "async",
    typicalSeconds: 2,
    sample: "Neon ramen stall on a rainy street",
    options: {
      aspect_ratio: {
        type: "enum",
        values: ["1:1", "16:9", "21:9", "3:2", "2:3", "4:5", "5:4", "3:4", "4:3", "9:16", "9:21"],
        default: "1:1",
        label: "Aspect ratio",
      },
      seed: {
        type: "integer",
        min: 0,
        max: SEED_MAX,
        label: "Seed",
        help: "the same seed and prompt give the same image",
      },
      output_format: { type: "enum", values: ["webp", "jpg", "png"], default: "webp", label: "Format" },
      output_quality: { type: "integer", min: 0, max: 100, default: 80, label: "Quality" },
      num_inference_steps: { type: "integer", min: 1, max: 4, default: 4, label: "Steps" },
      megapixels: { type: "enum", values: ["1", "0.25"], default: "1", label: "Megapixels" },
      go_fast: { type: "boolean", default: true, label: "Go fast" },
    },
  },
  {
    aiType: "image",
    provider: "kling",
    model: "kling-v1",
    credits: 4,
    label: "Kling v1 image",
    lifecycle: "async",
    typicalSeconds: 20,
    sample: "Tea fields in morning mist, wide shot",
    options: {
      aspect_ratio: {
        type: "enum",
        values: ["16:9", "9:16", "1:1", "4:3", "3:4", "3:2", "2:3"],
        default: "16:9",
        label: "Aspect ratio",
      },
      negative_prompt: KLING_NEGATIVE,
    },
  },
  {
    aiType: "video",
    provider: "runway",
    model: "gen4.5",
    credits: 10,
    label: "Runway Gen-4.5",
    lifecycle: "async",
    typicalSeconds: 60,
    sample: "Slow dolly shot through a sunlit greenhouse",
    options: {
      ratio: { type: "enum", values: ["1280:720", "720:1280"], default: "1280:720", label: "Aspect ratio" },
      duration: { type: "integer", min: 2, max: 10, default: 5, label: "Duration", unit: "s" },
      seed: { type: "integer", min: 0, max: 4_294_967_295, label: "Seed" },
    },
  },
  {
    aiType: "video",
    provider: "kling",
    model: "kling-v1",
    credits: 10,
    label: "Kling v1 video",
    lifecycle: "async",
    options: KLING_VIDEO,
    typicalSeconds: 180,
    sample: "Waves rolling onto a black sand beach",
  },
  {
    aiType: "video",
    provider: "kling",
    model: "kling-v1-6",
    credits: 15,
    label: "Kling v1.6 video",
    lifecycle: "async",
    options: KLING_VIDEO,
    typicalSeconds: 240,
    sample: "A paper boat drifting down a city gutter",
  },
];

/**
 * The models a fresh install sells, at these prices: the built-in providers' and fal's and Google's
 * (app/domain/catalog/seed-providers.ts). The database holds the live catalog (docs/catalog.md): this list
 * seeds it, and an admin changes it from there.
 */
export const CATALOG: readonly Offering[] = [...BUILT_IN, ...FAL_MODELS, ...GOOGLE_MODELS, ...IMAGE_INPUT_MODELS];

let active: readonly Offering[] = CATALOG;

/**
 * Every model of the live catalog, enabled or not (old tasks still read their model's labels and options).
 * Until the database is read (app/domain/catalog/store.server.ts), the seed.
 */
export const allOfferings = (): readonly Offering[] => active;

/** Whether a model is on sale: every model but those the admin disabled. */
export const isOnSale = (o: Pick<Offering, "enabled">): boolean => o.enabled !== false;

/** The models on sale: the live catalog without disabled models. */
export const offeredModels = (): Offering[] => active.filter(isOnSale);

/** A model as the studio's forms and pages name it: `ai_type|provider|model`. */
export const offeringKey = (o: { aiType: string; provider: string; model: string }): string =>
  `${o.aiType}|${o.provider}|${o.model}`;

/** Replaces this process's view of the catalog (the store calls it after reading the database). */
export function setActiveCatalog(offerings: readonly Offering[]): void {
  active = offerings;
}

/** What a model takes: "text", and "image" when it declares an image option. */
export function inputsOf(o: Pick<Offering, "options">): ModelInput[] {
  return Object.values(o.options).some((spec) => spec.type === "image") ? ["text", "image"] : ["text"];
}

/** The size of every model's sample image (4:3, so the cards line up; the caption names the model's own default shape). */
export const SAMPLE_SIZE = { width: 480, height: 360 } as const;

/**
 * Where a model's sample image is served from (app/public/samples/models/, a static file shipped for the built-in
 * models only); null for a model an admin added, which has none.
 */
export function sampleImage(o: Pick<Offering, "aiType" | "provider" | "model" | "label" | "sample">) {
  const shipped = CATALOG.some((c) => c.aiType === o.aiType && c.provider === o.provider && c.model === o.model);
  if (!shipped) return null;
  const slug = `${o.aiType}-${o.provider}-${o.model}`.replace(/[^a-z0-9]+/gi, "-").toLowerCase();
  return { src: `/samples/models/${slug}.png`, ...SAMPLE_SIZE, alt: `Simulated sample for ${o.label}: “${o.sample}”` };
}

/**
 * How long a task of this model typically takes here: the provider's typical
 * time when it is live, the simulator's delay when it is simulated (a
 * simulated card must not promise the live provider's wait).
 */
export function typicalSecondsHere(
  o: Pick<Offering, "typicalSeconds">,
  mode: "live" | "simulated",
  simulatorDelayMs: number,
): number {
  return mode === "live" ? o.typicalSeconds : simulatorDelayMs / 1000;
}

/** A model's typical time as a short hint: "~2 s", "~40 s", "~3 min". */
export function speedHint(seconds: number): string {
  return seconds < 90 ? `~${Math.max(1, Math.round(seconds))} s` : `~${Math.round(seconds / 60)} min`;
}

/** `options` as JSON may not be longer than this (bytes of UTF-8). */
export const MAX_OPTIONS_BYTES = 8192;

/** An option's name for a form field: its label, with the unit when it has one ("Duration (s)"). */
export function optionFieldLabel(spec: Pick<OptionSpec, "label" | "unit">): string {
  return spec.unit ? `${spec.label} (${spec.unit})` : spec.label;
}

/**
 * The options a task was created with, as a person reads them: each declared
 * option under its catalog label with its value in its unit ("Duration", "5 s";
 * booleans "Yes"/"No"), in the catalog's order. Keys the model does not declare
 * (tasks stored before validation existed) keep their key ("Old_key" → "Old key")
 * and their value as JSON.
 */
export function describeOptions(
  aiType: string,
  provider: string,
  model: string,
  options: Record<string, unknown>,
): { key: string; label: string; value: string }[] {
  const specs = findOffering(aiType, provider, model)?.options ?? {};
  const text = (v: unknown) => (typeof v === "string" ? v : (JSON.stringify(v) ?? String(v)));
  const declared = Object.keys(specs).filter((k) => Object.hasOwn(options, k));
  const others = Object.keys(options).filter((k) => !Object.hasOwn(specs, k));
  return [
    ...declared.map((key) => {
      const spec = specs[key];
      const v = options[key];
      const value =
        spec.type === "boolean" && typeof v === "boolean"
          ? v
            ? "Yes"
            : "No"
          : spec.unit && typeof v === "number"
            ? `${v} ${spec.unit}`
            : text(v);
      return { key, label: spec.label, value };
    }),
    ...others.map((key) => ({
      key,
      label: (key.charAt(0).toUpperCase() + key.slice(1)).replace(/_/g, " "),
      value: text(options[key]),
    })),
  ];
}

const UNIT_WORDS: Record<string, string> = { s: "seconds" };

/** What a spec accepts, in words, with its unit ("an integer from 2 to 10, in seconds"): the API reference. */
export function describeOptionWithUnit(spec: OptionSpec): string {
  return spec.unit ? `${describeOption(spec)}, in ${UNIT_WORDS[spec.unit] ?? spec.unit}` : describeOption(spec);
}

/** What a spec accepts, in words (error messages and the API reference). */
export function describeOption(spec: OptionSpec): string {
  switch (spec.type) {
    case "enum":
      return `one of ${spec.values.join(", ")}`;
    case "integer":
      return spec.values ? `one of ${spec.values.join(", ")}` : `an integer from ${spec.min} to ${spec.max}`;
    case "number":
      return `a number from ${spec.min} to ${spec.max}`;
    case "boolean":
      return "true or false";
    case "text":
      return `a string of at most ${spec.maxLength} characters`;
    case "image":
      return `an https URL (at most ${IMAGE_URL_MAX} characters) or a file id`;
  }
}

/**
 * The options of a task that its model declares, with acceptable values only
 * (adapters send these upstream; tasks stored before validation existed may
 * hold anything).
 */
export function acceptedOptions(
  aiType: string,
  provider: string,
  model: string,
  options: Record<string, unknown>,
): Record<string, unknown> {
  return acceptedBy(findOffering(aiType, provider, model)?.options ?? {}, options);
}

/**
 * Checks `options` against what the model declares: a JSON object of at most
 * MAX_OPTIONS_BYTES, known keys only, each value in range. Returns the reason
 * for `invalid params: <reason>`, or null when the options are acceptable.
 */
export function optionsProblem(offering: Offering, options: unknown): string | null {
  const missing = Object.entries(offering.options).find(
    ([key, spec]) => spec.required && (options === null || typeof options !== "object" || !Object.hasOwn(options, key)),
  );
  if (options === undefined || options === null) return missing ? `options.${missing[0]} is required` : null;
  if (typeof options !== "object" || Array.isArray(options)) return "options must be an object";
  const size = new TextEncoder().encode(JSON.stringify(options)).byteLength;
  if (size > MAX_OPTIONS_BYTES) return `options must be at most ${MAX_OPTIONS_BYTES} bytes of JSON`;
  for (const [key, value] of Object.entries(options)) {
    const spec = Object.hasOwn(offering.options, key) ? offering.options[key] : undefined;
    if (!spec) {
      const known = Object.keys(offering.options);
      return `options.${key.slice(0, 64)} is not accepted by ${offering.model}${known.length ? ` (accepted: ${known.join(", ")})` : " (it takes no options)"}`;
    }
    if (!accepts(spec, value)) return `options.${key} must be ${describeOption(spec)}`;
  }
  return missing ? `options.${missing[0]} is required` : null;
}

export const isAiType = (v: unknown): v is AiType => v === "image" || v === "video";

export function providersFor(aiType: AiType): ProviderName[] {
  return [...new Set(active.filter((o) => o.aiType === aiType).map((o) => o.provider))];
}

export function modelsFor(aiType: AiType, provider: string): Offering[] {
  return active.filter((o) => o.aiType === aiType && o.provider === provider);
}

/** A model of the live catalog, enabled or not. */
export function findOffering(aiType: string, provider: string, model: string): Offering | undefined {
  return active.find((o) => o.aiType === aiType && o.provider === provider && o.model === model);
}
