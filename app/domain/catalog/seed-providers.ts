/**
 * The fal and Google models a fresh install sells, and the image-input models of the built-in providers (docs/providers.md cites each API's fields). Option names are
 * each provider's own input names, except image inputs, which go by `image` / `image_end` / `mask` here
 * (docs/catalog.md "Image inputs") and name their upstream field in `param`.
 */
import type { Offering, OptionSpec } from "~/providers/offering";

const SEED_MAX = 2_147_483_647;

const FAL_KLING_VIDEO: Record<string, OptionSpec> = {
  duration: { type: "enum", values: ["5", "10"], default: "5", label: "Duration", unit: "s" },
  negative_prompt: { type: "text", maxLength: 2500, label: "Negative prompt", help: "what the video should not show" },
  cfg_scale: {
    type: "number",
    min: 0,
    max: 1,
    default: 0.5,
    label: "Prompt adherence",
    help: "0–1; higher follows the prompt more closely",
  },
};

export const FAL_MODELS: readonly Offering[] = [
  {
    aiType: "image",
    provider: "fal",
    model: "fal-ai/flux/dev",
    credits: 3,
    label: "FLUX.1 [dev] on fal",
    lifecycle: "async",
    typicalSeconds: 5,
    sample: "A copper teapot on a windowsill, morning light",
    cost: { usd: 0.025, per: "task" },
    options: {
      image_size: {
        type: "enum",
        values: ["square_hd", "square", "portrait_4_3", "portrait_16_9", "landscape_4_3", "landscape_16_9"],
        default: "landscape_4_3",
        label: "Size",
      },
      num_inference_steps: { type: "integer", min: 1, max: 50, default: 28, label: "Steps" },
      guidance_scale: { type: "number", min: 1, max: 20, default: 3.5, label: "Guidance" },
      seed: { type: "integer", min: 0, max: SEED_MAX, label: "Seed" },
      output_format: { type: "enum", values: ["jpeg", "png"], default: "jpeg", label: "Format" },
      enable_safety_checker: { type: "boolean", default: true, label: "Safety checker" },
    },
  },
  {
    aiType: "video",
    provider: "fal",
    model: "fal-ai/kling-video/v1.6/standard/text-to-video",
    credits: 12,
    label: "Kling 1.6 on fal",
    lifecycle: "async",
    typicalSeconds: 240,
    sample: "A hot-air balloon rising over a foggy valley",
    cost: { usd: 0.045, per: "second" },
    options: {
      aspect_ratio: { type: "enum", values: ["16:9", "9:16", "1:1"], default: "16:9", label: "Aspect ratio" },
      ...FAL_KLING_VIDEO,
    },
  },
  {
    aiType: "video",
    provider: "fal",
    model: "fal-ai/kling-video/v1.6/standard/image-to-video",
    credits: 12,
    label: "Kling 1.6 image-to-video on fal",
    lifecycle: "async",
    typicalSeconds: 240,
    sample: "A still harbour at dawn, boats starting to rock",
    cost: { usd: 0.045, per: "second" },
    options: {
      image: {
        type: "image",
        required: true,
        param: "image_url",
        label: "Start image",
        help: "the first frame",
      },
      ...FAL_KLING_VIDEO,
    },
  },
];

const GOOGLE_ASPECT = ["1:1", "3:4", "4:3", "9:16", "16:9"] as const;

export const GOOGLE_MODELS: readonly Offering[] = [
  {
    aiType: "image",
    provider: "google",
    model: "gemini-2.5-flash-image",
    credits: 4,
    label: "Gemini 2.5 Flash Image",
    lifecycle: "sync",
    typicalSeconds: 8,
    sample: "A watercolour map of an imaginary island",
    cost: { usd: 0.039, per: "task" },
    options: {
      aspect_ratio: {
        type: "enum",
        values: ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"],
        default: "1:1",
        label: "Aspect ratio",
      },
      image: { type: "image", label: "Image to edit", help: "optional: the prompt then describes the change" },
    },
  },
  {
    aiType: "image",
    provider: "google",
    model: "imagen-4.0-generate-001",
    credits: 5,
    label: "Imagen 4",
    lifecycle: "sync",
    typicalSeconds: 10,
    sample: "A glass greenhouse in the snow at night",
    cost: { usd: 0.04, per: "task" },
    options: {
      aspect_ratio: { type: "enum", values: GOOGLE_ASPECT, default: "1:1", label: "Aspect ratio" },
    },
  },
  {
    aiType: "video",
    provider: "google",
    model: "veo-3.0-fast-generate-001",
    credits: 40,
    label: "Veo 3 Fast",
    lifecycle: "async",
    typicalSeconds: 90,
    sample: "A red kite flying over a windswept beach",
    cost: { usd: 0.15, per: "second" },
    options: {
      aspect_ratio: { type: "enum", values: ["16:9", "9:16"], default: "16:9", label: "Aspect ratio" },
      resolution: { type: "enum", values: ["720p", "1080p"], default: "720p", label: "Resolution" },
      negative_prompt: { type: "text", maxLength: 2500, label: "Negative prompt" },
      image: { type: "image", label: "First frame", help: "optional: the video starts from this image" },
    },
  },
];

/** Models that start from a picture on the built-in providers (docs/providers.md cites each API's fields). */
export const IMAGE_INPUT_MODELS: readonly Offering[] = [
  {
    aiType: "image",
    provider: "replicate",
    model: "black-forest-labs/flux-kontext-pro",
    credits: 5,
    label: "FLUX.1 Kontext [pro]",
    lifecycle: "async",
    typicalSeconds: 6,
    sample: "The same street, at night in the snow",
    cost: { usd: 0.04, per: "task" },
    options: {
      image: {
        type: "image",
        param: "input_image",
        label: "Image to edit",
        help: "optional: the prompt then describes the change",
      },
      aspect_ratio: {
        type: "enum",
        values: [
          "match_input_image",
          "1:1",
          "16:9",
          "9:16",
          "4:3",
          "3:4",
          "3:2",
          "2:3",
          "4:5",
          "5:4",
          "21:9",
          "9:21",
          "2:1",
          "1:2",
        ],
        default: "match_input_image",
        label: "Aspect ratio",
      },
      seed: { type: "integer", min: 0, max: SEED_MAX, label: "Seed" },
      output_format: { type: "enum", values: ["jpg", "png"], default: "png", label: "Format" },
      safety_tolerance: {
        type: "integer",
        min: 0,
        max: 2,
        default: 2,
        label: "Safety tolerance",
        help: "0 is the strictest; 2 is the most Replicate allows with an input image",
      },
      prompt_upsampling: { type: "boolean", default: false, label: "Prompt upsampling" },
    },
  },
  {
    aiType: "video",
    provider: "runway",
    model: "gen4_turbo",
    credits: 12,
    label: "Runway Gen-4 Turbo",
    lifecycle: "async",
    typicalSeconds: 30,
    sample: "A still harbour at dawn, boats starting to rock",
    cost: { usd: 0.05, per: "second" },
    options: {
      image: { type: "image", required: true, param: "promptImage", label: "Start image", help: "the first frame" },
      ratio: {
        type: "enum",
        values: ["1280:720", "720:1280", "1104:832", "832:1104", "960:960", "1584:672"],
        default: "1280:720",
        label: "Aspect ratio",
      },
      duration: { type: "integer", min: 5, max: 10, values: [5, 10], default: 5, label: "Duration", unit: "s" },
      seed: { type: "integer", min: 0, max: 4_294_967_295, label: "Seed" },
    },
  },
];
