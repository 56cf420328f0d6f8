/** Per-model options (app/domain/catalog.ts): what each model accepts, the 8 KB cap, the exact messages. */
import { describe, expect, test } from "bun:test";
import {
  acceptedOptions,
  CATALOG,
  describeOptions,
  describeOptionWithUnit,
  findOffering,
  optionFieldLabel,
  optionsProblem,
  speedHint,
  typicalSecondsHere,
} from "~/domain/catalog";
import { validateGenerateInput } from "~/domain/generations/validate.server";

const offering = (aiType: string, provider: string, model: string) => findOffering(aiType, provider, model)!;
const flux = offering("image", "replicate", "black-forest-labs/flux-schnell");
const runway = offering("video", "runway", "gen4.5");
const klingVideo = offering("video", "kling", "kling-v1");
const dalle = offering("image", "openai", "dall-e-3");

/** A value for each option a model requires (an image-to-video model's start image). */
const requiredInputs = (o: (typeof CATALOG)[number]) =>
  Object.fromEntries(
    Object.entries(o.options)
      .filter(([, spec]) => spec.required)
      .map(([k]) => [k, "https://example.com/start.png"]),
  );

describe("what the catalog declares, from each provider's documented API", () => {
  test("every model declares options; the documented key names per provider", () => {
    const keys = Object.fromEntries(
      CATALOG.map((o) => [`${o.aiType}:${o.provider}:${o.model}`, Object.keys(o.options).sort()]),
    );
    expect(keys).toEqual({
      "image:openai:dall-e-3": ["quality", "size", "style"],
      "image:openai:gpt-image-1": ["image", "mask", "quality", "size"],
      "image:replicate:black-forest-labs/flux-schnell": [
        "aspect_ratio",
        "go_fast",
        "megapixels",
        "num_inference_steps",
        "output_format",
        "output_quality",
        "seed",
      ],
      "image:kling:kling-v1": ["aspect_ratio", "negative_prompt"],
      "video:runway:gen4.5": ["duration", "ratio", "seed"],
      "video:kling:kling-v1": ["aspect_ratio", "cfg_scale", "duration", "image", "image_end", "negative_prompt"],
      "video:kling:kling-v1-6": ["aspect_ratio", "cfg_scale", "duration", "image", "image_end", "negative_prompt"],
      "image:fal:fal-ai/flux/dev": ["guidance_scale", "image_size", "num_inference_steps", "output_format", "seed"],
      "video:fal:fal-ai/kling-video/v1.6/standard/text-to-video": [
        "aspect_ratio",
        "cfg_scale",
        "duration",
        "negative_prompt",
      ],
      "video:fal:fal-ai/kling-video/v1.6/standard/image-to-video": [
        "cfg_scale",
        "duration",
        "image",
        "negative_prompt",
      ],
      "image:google:gemini-2.5-flash-image": ["aspect_ratio", "image"],
      "image:google:imagen-4.0-generate-001": ["aspect_ratio"],
      "video:google:veo-3.0-fast-generate-001": ["aspect_ratio", "image", "negative_prompt", "resolution"],
      "image:replicate:black-forest-labs/flux-kontext-pro": [
        "aspect_ratio",
        "image",
        "output_format",
        "prompt_upsampling",
        "seed",
      ],
      "video:runway:gen4_turbo": ["duration", "image", "ratio", "seed"],
    });
  });

  test("each declared default is itself accepted", () => {
    for (const o of CATALOG) {
      for (const [k, spec] of Object.entries(o.options)) {
        if ("default" in spec && spec.default !== undefined)
          expect(optionsProblem(o, { ...requiredInputs(o), [k]: spec.default })).toBeNull();
      }
    }
  });
});

describe("optionsProblem", () => {
  const cases: [string, typeof flux, unknown, string | null][] = [
    ["absent", flux, undefined, null],
    ["null", flux, null, null],
    ["empty", flux, {}, null],
    [
      "all good",
      flux,
      {
        aspect_ratio: "16:9",
        seed: 0,
        output_format: "png",
        output_quality: 100,
        num_inference_steps: 1,
        megapixels: "0.25",
        go_fast: false,
      },
      null,
    ],
    ["an array", flux, [1], "options must be an object"],
    ["a string", flux, "x", "options must be an object"],
    [
      "unknown key",
      flux,
      { num_outputs: 4 },
      "options.num_outputs is not accepted by black-forest-labs/flux-schnell (accepted: aspect_ratio, seed, output_format, output_quality, num_inference_steps, megapixels, go_fast)",
    ],
    [
      "ratio not offered",
      flux,
      { aspect_ratio: "7:3" },
      "options.aspect_ratio must be one of 1:1, 16:9, 21:9, 3:2, 2:3, 4:5, 5:4, 3:4, 4:3, 9:16, 9:21",
    ],
    ["seed negative", flux, { seed: -1 }, "options.seed must be an integer from 0 to 2147483647"],
    ["seed fractional", flux, { seed: 1.5 }, "options.seed must be an integer from 0 to 2147483647"],
    ["seed as a string", flux, { seed: "42" }, "options.seed must be an integer from 0 to 2147483647"],
    ["boolean as a string", flux, { go_fast: "true" }, "options.go_fast must be true or false"],
    ["runway duration 11", runway, { duration: 11 }, "options.duration must be an integer from 2 to 10"],
    [
      "runway ratio of another provider",
      runway,
      { aspect_ratio: "16:9" },
      "options.aspect_ratio is not accepted by gen4.5 (accepted: ratio, duration, seed)",
    ],
    ["runway 9:16", runway, { ratio: "720:1280", duration: 2, seed: 4294967295 }, null],
    ["kling duration 7", klingVideo, { duration: 7 }, "options.duration must be one of 5, 10"],
    ["kling cfg 1.5", klingVideo, { cfg_scale: 1.5 }, "options.cfg_scale must be a number from 0 to 1"],
    [
      "kling negative too long",
      klingVideo,
      { negative_prompt: "n".repeat(2501) },
      "options.negative_prompt must be a string of at most 2500 characters",
    ],
    [
      "kling 'mode' (costs more upstream)",
      klingVideo,
      { mode: "pro" },
      "options.mode is not accepted by kling-v1 (accepted: aspect_ratio, duration, negative_prompt, cfg_scale, image, image_end)",
    ],
    [
      "dall-e size of gpt-image",
      dalle,
      { size: "1536x1024" },
      "options.size must be one of 1024x1024, 1792x1024, 1024x1792",
    ],
    [
      "__proto__ key",
      dalle,
      JSON.parse('{"__proto__": 1}'),
      "options.__proto__ is not accepted by dall-e-3 (accepted: size, quality, style)",
    ],
    [
      "toString key",
      dalle,
      { toString: "x" },
      "options.toString is not accepted by dall-e-3 (accepted: size, quality, style)",
    ],
  ];
  for (const [label, o, options, expected] of cases)
    test(label, () => expect(optionsProblem(o, options)).toBe(expected));

  test("8192 bytes of JSON pass; 8193 do not (counted in UTF-8 bytes, not characters)", () => {
    const kling = offering("image", "kling", "kling-v1");
    const wrap = (n: string) => JSON.stringify({ negative_prompt: n }).length;
    // A spec allowing long text, to reach the byte cap before the key's own limit.
    const long = { ...kling, options: { negative_prompt: { type: "text" as const, maxLength: 100_000, label: "n" } } };
    const at = "a".repeat(8192 - wrap(""));
    expect(optionsProblem(long, { negative_prompt: at })).toBeNull();
    expect(optionsProblem(long, { negative_prompt: `${at}a` })).toBe("options must be at most 8192 bytes of JSON");
    // "é" is 2 bytes: half as many characters reach the cap.
    expect(optionsProblem(long, { negative_prompt: "é".repeat(4096) })).toBe(
      "options must be at most 8192 bytes of JSON",
    );
    // A megabyte of junk is refused by size first.
    expect(optionsProblem(flux, { junk: "x".repeat(1_000_000) })).toBe("options must be at most 8192 bytes of JSON");
  });
});

describe("validateGenerateInput refuses bad options with `invalid params: …`", () => {
  const base = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "a fox" };
  test("bad value", () => {
    expect(() => validateGenerateInput({ ...base, options: { seed: -5 } })).toThrow(
      "invalid params: options.seed must be an integer from 0 to 2147483647",
    );
  });
  test("good options are kept as given", () => {
    expect(validateGenerateInput({ ...base, options: { seed: 5, aspect_ratio: "3:2" } }).options).toEqual({
      seed: 5,
      aspect_ratio: "3:2",
    });
  });
});

describe("acceptedOptions (what adapters send)", () => {
  test("drops undeclared keys and bad values of rows stored before validation", () => {
    expect(acceptedOptions("video", "runway", "gen4.5", { ratio: "4:3", duration: 8, seed: 3, evil: 1 })).toEqual({
      duration: 8,
      seed: 3,
    });
  });
});

describe("the speed a model card shows", () => {
  const gptImage = findOffering("image", "openai", "gpt-image-1")!;
  test("live: the provider's typical time; simulated: the simulator's delay", () => {
    expect(speedHint(typicalSecondsHere(gptImage, "live", 1500))).toBe("~40 s");
    expect(speedHint(typicalSecondsHere(gptImage, "simulated", 1500))).toBe("~2 s");
    expect(speedHint(typicalSecondsHere(gptImage, "simulated", 300))).toBe("~1 s");
    expect(speedHint(180)).toBe("~3 min");
  });
});

describe("options as a person reads them (studio form labels, a generation's details)", () => {
  test("a video's duration carries its unit: the form says “Duration (s)”, the details “5 s”", () => {
    expect(optionFieldLabel(klingVideo.options.duration)).toBe("Duration (s)");
    expect(optionFieldLabel(runway.options.duration)).toBe("Duration (s)");
    expect(optionFieldLabel(klingVideo.options.aspect_ratio)).toBe("Aspect ratio");
    // The API reference says it too; the refusal messages stay as they are.
    expect(describeOptionWithUnit(runway.options.duration)).toBe("an integer from 2 to 10, in seconds");
    expect(describeOptionWithUnit(klingVideo.options.duration)).toBe("one of 5, 10, in seconds");
    expect(describeOptionWithUnit(runway.options.seed)).toBe("an integer from 0 to 4294967295");
    expect(describeOptions("video", "kling", "kling-v1", { aspect_ratio: "16:9", duration: 5 })).toEqual([
      { key: "aspect_ratio", label: "Aspect ratio", value: "16:9" },
      { key: "duration", label: "Duration", value: "5 s" },
    ]);
    expect(describeOptions("video", "runway", "gen4.5", { duration: 8, ratio: "720:1280", seed: 42 })).toEqual([
      { key: "ratio", label: "Aspect ratio", value: "720:1280" },
      { key: "duration", label: "Duration", value: "8 s" },
      { key: "seed", label: "Seed", value: "42" },
    ]);
  });

  test("labels from the catalog, in its order; booleans as Yes/No; numbers without a unit as they are", () => {
    expect(
      describeOptions("image", "replicate", "black-forest-labs/flux-schnell", {
        go_fast: false,
        num_inference_steps: 2,
        aspect_ratio: "3:2",
      }),
    ).toEqual([
      { key: "aspect_ratio", label: "Aspect ratio", value: "3:2" },
      { key: "num_inference_steps", label: "Steps", value: "2" },
      { key: "go_fast", label: "Go fast", value: "No" },
    ]);
  });

  test("keys the model does not declare (older tasks) keep their key and their value as JSON, after the declared ones", () => {
    expect(describeOptions("video", "kling", "kling-v1", { camera_move: { pan: 1 }, duration: 10 })).toEqual([
      { key: "duration", label: "Duration", value: "10 s" },
      { key: "camera_move", label: "Camera move", value: '{"pan":1}' },
    ]);
    expect(describeOptions("video", "nobody", "none", { duration: 5 })).toEqual([
      { key: "duration", label: "Duration", value: "5" },
    ]);
  });
});
