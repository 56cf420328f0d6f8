/**
 * Each adapter's input path against its provider's fake (docs/providers.md, per provider "Input pictures"): the
 * picture goes the way the provider takes it — a URL it fetches (Replicate, Kling, Runway, fal: each fake downloads
 * it and checks it is a picture), multipart bytes (OpenAI edits) or inline base64 (Google) — and a task whose
 * picture is missing is refused before anything is sent.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createFalProvider } from "~/providers/fal.server";
import { createGoogleProvider } from "~/providers/google.server";
import { createKlingProvider } from "~/providers/kling.server";
import { createOpenAIProvider } from "~/providers/openai.server";
import { createReplicateProvider } from "~/providers/replicate.server";
import { createRunwayProvider } from "~/providers/runway.server";
import { SAMPLE_PNG } from "../../fakes/common";
import { startFalFake } from "../../fakes/fal";
import { startGoogleFake } from "../../fakes/google";
import { startInputImageServer } from "../../fakes/input-images";
import { startKlingFake } from "../../fakes/kling";
import { startOpenAIFake } from "../../fakes/openai";
import { startReplicateFake } from "../../fakes/replicate";
import { startRunwayFake } from "../../fakes/runway";
import { config, expectProviderError, FAST, pollToEnd, request, signal, withInputs } from "./support";

const pictures = startInputImageServer();
const openai = startOpenAIFake();
const replicate = startReplicateFake();
const kling = startKlingFake();
const runway = startRunwayFake();
const fal = startFalFake();
const google = startGoogleFake();
const fakes = [openai, replicate, kling, runway, fal, google];
afterAll(() => Promise.all([pictures.stop(), ...fakes.map((f) => f.stop())]));
beforeEach(() => {
  for (const f of fakes) f.state.reset();
  pictures.hits.length = 0;
});

/** The paths of the input server the fake fetched, without the signature. */
const fetchedPaths = () => pictures.hits;

describe("OpenAI gpt-image-1: edits", () => {
  const provider = () =>
    createOpenAIProvider(config({ OPENAI_API_KEY: openai.apiKey, OPENAI_BASE_URL: openai.baseUrl }), FAST);
  const edit = (options: Record<string, unknown>) =>
    request("openai", "image", "gpt-image-1", "make it night", { image: "file_src", ...options });

  test("image and mask: one multipart POST /v1/images/edits carrying the picture's bytes and the mask; the edit comes back", async () => {
    const mask = new Uint8Array(SAMPLE_PNG);
    const assets = await provider().generate(
      withInputs(edit({ mask: "file_mask", size: "1024x1536", quality: "high" }), {
        image: pictures.image("src"),
        mask: pictures.image("mask", mask),
      }),
      signal(),
    );
    expect(openai.state.requests.map((r) => r.path)).toEqual(["/v1/images/edits"]);
    const sent = openai.state.requests[0]!;
    expect(sent.headers["content-type"]).toStartWith("multipart/form-data; boundary=");
    expect(sent.body).toMatchObject({
      model: "gpt-image-1",
      prompt: "make it night",
      n: 1,
      size: "1024x1536",
      quality: "high",
      image: { type: "image/png", size: SAMPLE_PNG.byteLength },
      mask: { type: "image/png", size: mask.byteLength },
    });
    expect(openai.state.fetched.map((f) => [f.field, f.contentType])).toEqual([
      ["image", "image/png"],
      ["mask", "image/png"],
    ]);
    // The bytes went along: OpenAI was never asked to fetch a link.
    expect(fetchedPaths()).toEqual([]);
    expect(assets[0]!.kind).toBe("bytes");
  });

  test("without an image the task stays on /v1/images/generations", async () => {
    await provider().generate(request("openai", "image", "gpt-image-1", "a fox"), signal());
    expect(openai.state.requests.map((r) => r.path)).toEqual(["/v1/images/generations"]);
  });

  test("a mask without an image, or an image option whose picture was not resolved, is refused before any request", async () => {
    await expectProviderError(
      provider().generate(
        withInputs(request("openai", "image", "gpt-image-1", "x", { mask: "file_m" }), { mask: pictures.image("m") }),
        signal(),
      ),
      "bad_request",
      { retryable: false, message: /a mask needs an image/ },
    );
    await expectProviderError(provider().generate(edit({}), signal()), "bad_request", {
      retryable: false,
      message: "the image input could not be read",
    });
    expect(openai.state.requests).toHaveLength(0);
  });
});

describe("Replicate flux-kontext-pro: input_image", () => {
  const provider = () =>
    createReplicateProvider(
      config({ REPLICATE_API_TOKEN: replicate.token, REPLICATE_BASE_URL: replicate.baseUrl }),
      FAST,
    );

  test("the picture's URL goes as input_image, which Replicate downloads; the options go beside it", async () => {
    const r = withInputs(
      request("replicate", "image", "black-forest-labs/flux-kontext-pro", "the same street in snow", {
        image: "file_street",
        aspect_ratio: "match_input_image",
        output_format: "jpg",
      }),
      { image: pictures.image("street") },
    );
    const p = provider();
    const { upstreamTaskId } = await p.submit(r, signal());
    expect(replicate.state.requests[0]!.path).toBe("/v1/models/black-forest-labs/flux-kontext-pro/predictions");
    expect(replicate.state.requests[0]!.body).toEqual({
      input: {
        prompt: "the same street in snow",
        aspect_ratio: "match_input_image",
        output_format: "jpg",
        input_image: pictures.url("street"),
        // Not the user's: the operator's PROVIDER_SAFETY_TOLERANCE (default 0, the strictest).
        safety_tolerance: 0,
      },
    });
    expect(fetchedPaths()).toEqual(["/in/street.png"]);
    expect(replicate.state.fetched).toMatchObject([{ field: "input_image", contentType: "image/png" }]);
    expect((await pollToEnd(p, upstreamTaskId, r)).at(-1)!.state).toBe("succeeded");
  });

  test("a picture Replicate cannot download fails the create with its reason", async () => {
    const r = withInputs(
      request("replicate", "image", "black-forest-labs/flux-kontext-pro", "x", { image: "file_gone" }),
      { image: { ...pictures.image("gone"), url: `${pictures.origin}/expired` } },
    );
    await expectProviderError(provider().submit(r, signal()), "bad_request", { message: /input_image could not/ });
  });
});

describe("Kling video: image2video", () => {
  const provider = () =>
    createKlingProvider(
      config({ KLING_ACCESS_KEY: kling.accessKey, KLING_SECRET_KEY: kling.secretKey, KLING_BASE_URL: kling.baseUrl }),
      FAST,
    );

  test("image and image_end: POST /v1/videos/image2video with image and image_tail URLs Kling fetches, no aspect_ratio; polled there", async () => {
    const r = withInputs(
      request("kling", "video", "kling-v1-6", "the boats start to rock", {
        image: "file_first",
        image_end: "https://example.com/last.png",
        aspect_ratio: "9:16",
        duration: 10,
      }),
      { image: pictures.image("first"), image_end: pictures.image("last") },
    );
    const p = provider();
    const { upstreamTaskId } = await p.submit(r, signal());
    const create = kling.state.requests[0]!;
    expect(create.path).toBe("/v1/videos/image2video");
    expect(create.body).toEqual({
      model_name: "kling-v1-6",
      prompt: "the boats start to rock",
      image: pictures.url("first"),
      image_tail: pictures.url("last"),
      duration: "10",
      external_task_id: r.genId,
    });
    expect(fetchedPaths()).toEqual(["/in/first.png", "/in/last.png"]);
    // A poll may come from another process, where the request carries the task's options but no pictures.
    const states = await pollToEnd(p, upstreamTaskId, { ...r, inputs: undefined });
    expect(kling.state.requests.slice(1).every((q) => q.path === `/v1/videos/image2video/${upstreamTaskId}`)).toBe(
      true,
    );
    expect(states.at(-1)!.state).toBe("succeeded");
  });

  test("without a picture the video stays on text2video", async () => {
    await provider().submit(request("kling", "video", "kling-v1", "waves", { aspect_ratio: "1:1" }), signal());
    expect(kling.state.requests[0]!.path).toBe("/v1/videos/text2video");
  });
});

describe("Runway gen4_turbo: image_to_video", () => {
  const provider = () =>
    createRunwayProvider(config({ RUNWAY_API_KEY: runway.apiKey, RUNWAY_BASE_URL: runway.baseUrl }), FAST);

  test("POST /v1/image_to_video with promptImage (a URL Runway fetches), promptText, ratio and duration", async () => {
    const r = withInputs(
      request("runway", "video", "gen4_turbo", "the harbour wakes", {
        image: "file_h",
        ratio: "960:960",
        duration: 10,
      }),
      { image: pictures.image("harbour") },
    );
    const p = provider();
    const { upstreamTaskId } = await p.submit(r, signal());
    expect(runway.state.requests[0]!.path).toBe("/v1/image_to_video");
    expect(runway.state.requests[0]!.body).toEqual({
      model: "gen4_turbo",
      promptText: "the harbour wakes",
      promptImage: pictures.url("harbour"),
      ratio: "960:960",
      duration: 10,
    });
    expect(fetchedPaths()).toEqual(["/in/harbour.png"]);
    expect((await pollToEnd(p, upstreamTaskId, r)).at(-1)!.state).toBe("succeeded");
  });

  test("gen4_turbo without its required image is refused before any request", async () => {
    await expectProviderError(
      provider().submit(request("runway", "video", "gen4_turbo", "x"), signal()),
      "bad_request",
      { retryable: false, message: "options.image is required" },
    );
    expect(runway.state.requests).toHaveLength(0);
  });
});

describe("fal: image_url", () => {
  const I2V = "fal-ai/kling-video/v1.6/standard/image-to-video";
  const provider = () => createFalProvider(config({ FAL_KEY: fal.key, FAL_QUEUE_URL: fal.baseUrl }), FAST);

  test("the picture's URL goes as image_url, which fal downloads", async () => {
    const r = withInputs(request("fal", "video", I2V, "the boats rock", { image: "file_h", duration: "5" }), {
      image: pictures.image("boats"),
    });
    await provider().submit(r, signal());
    expect(fal.state.requests[0]!.body).toEqual({
      prompt: "the boats rock",
      duration: "5",
      image_url: pictures.url("boats"),
    });
    expect(fetchedPaths()).toEqual(["/in/boats.png"]);
  });
});

describe("Google: inline bytes", () => {
  const [sync, async] = createGoogleProvider(
    config({ GEMINI_API_KEY: google.apiKey, GEMINI_BASE_URL: google.baseUrl }),
    FAST,
  );
  const b64 = Buffer.from(SAMPLE_PNG).toString("base64");

  test("Gemini image: the picture's bytes ride as an inlineData part; no URL is handed over", async () => {
    await sync.generate(
      withInputs(request("google", "image", "gemini-2.5-flash-image", "make it night", { image: "file_x" }), {
        image: pictures.image("x"),
      }),
      signal(),
    );
    const parts = (google.state.requests[0]!.body as any).contents[0].parts;
    expect(parts).toEqual([{ text: "make it night" }, { inlineData: { mimeType: "image/png", data: b64 } }]);
    expect(google.state.fetched).toMatchObject([{ field: "inlineData", contentType: "image/png" }]);
    expect(fetchedPaths()).toEqual([]);
  });

  test("a picture larger than Google takes inline (15 MB) is refused before any request", async () => {
    const big = { ...pictures.image("big"), bytes: async () => new Uint8Array(15 * 1024 * 1024 + 1) };
    await expectProviderError(
      sync.generate(
        withInputs(request("google", "image", "gemini-2.5-flash-image", "x", { image: "file_big" }), { image: big }),
        signal(),
      ),
      "bad_request",
      { retryable: false, message: /larger than 15 MB/ },
    );
    expect(google.state.requests).toHaveLength(0);
  });

  test("Veo: the first frame is instances[0].image as base64", async () => {
    await async.submit(
      withInputs(request("google", "video", "veo-3.0-fast-generate-001", "a kite", { image: "file_k" }), {
        image: pictures.image("k"),
      }),
      signal(),
    );
    expect((google.state.requests[0]!.body as any).instances[0].image).toEqual({
      bytesBase64Encoded: b64,
      mimeType: "image/png",
    });
  });
});
