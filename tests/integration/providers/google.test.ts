/** Google adapter (Gemini image, Imagen, Veo) ↔ the Gemini API fake, over real HTTP. */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createGoogleProvider } from "~/providers/google.server";
import { downloadAsset } from "~/providers/http.server";
import { SAMPLE_MP4, SAMPLE_PNG } from "../../fakes/common";
import { startGoogleFake } from "../../fakes/google";
import { config, expectProviderError, FAST, pollToEnd, request, signal } from "./support";

const fake = startGoogleFake();
afterAll(() => fake.stop());
beforeEach(() => {
  fake.state.reset();
  fake.outcome = "succeeded";
  fake.downloads.length = 0;
});

const providers = (key = fake.apiKey) =>
  createGoogleProvider(config({ GEMINI_API_KEY: key, GEMINI_BASE_URL: fake.baseUrl }), FAST);

describe("Google: images", () => {
  test("Gemini image: POST :generateContent with the key header and image modality; the inlineData part is the PNG", async () => {
    const [sync] = providers();
    const assets = await sync.generate(
      request("google", "image", "gemini-2.5-flash-image", "a watercolour map", { aspect_ratio: "16:9" }),
      signal(),
    );
    const call = fake.state.requests[0]!;
    expect(call.path).toBe("/v1beta/models/gemini-2.5-flash-image:generateContent");
    expect(call.headers["x-goog-api-key"]).toBe(fake.apiKey);
    expect(call.body).toEqual({
      contents: [{ role: "user", parts: [{ text: "a watercolour map" }] }],
      generationConfig: { responseModalities: ["TEXT", "IMAGE"], imageConfig: { aspectRatio: "16:9" } },
    });
    expect(assets.length).toBe(1);
    const a = assets[0]!;
    if (a.kind !== "bytes") throw new Error("expected bytes");
    expect(a.contentType).toBe("image/png");
    expect(Buffer.from(a.bytes).equals(Buffer.from(SAMPLE_PNG))).toBe(true);
  });

  test("Imagen: POST :predict with instances and parameters; predictions[].bytesBase64Encoded is the PNG", async () => {
    const [sync] = providers();
    const assets = await sync.generate(
      request("google", "image", "imagen-4.0-generate-001", "a greenhouse", { aspect_ratio: "4:3" }),
      signal(),
    );
    const call = fake.state.requests[0]!;
    expect(call.path).toBe("/v1beta/models/imagen-4.0-generate-001:predict");
    expect(call.body).toEqual({
      instances: [{ prompt: "a greenhouse" }],
      parameters: { sampleCount: 1, aspectRatio: "4:3" },
    });
    expect(assets[0]!.kind).toBe("bytes");
  });

  test("a blocked prompt fails the task (not retried) in Google's words, for Gemini and Imagen", async () => {
    fake.outcome = "blocked";
    const [sync] = providers();
    await expectProviderError(sync.generate(request("google", "image", "gemini-2.5-flash-image"), signal()), "failed", {
      retryable: false,
      message: "Google blocked the prompt (PROHIBITED_CONTENT)",
    });
    await expectProviderError(
      sync.generate(request("google", "image", "imagen-4.0-generate-001"), signal()),
      "failed",
      {
        message: /safety filters removed the image/,
      },
    );
  });

  test("errors: a bad key (400 INVALID_ARGUMENT) is a bad request with Google's message; 429 is retried; 500 is not", async () => {
    const [bad] = providers("nope");
    await expectProviderError(
      bad.generate(request("google", "image", "gemini-2.5-flash-image"), signal()),
      "bad_request",
      {
        message: /API key not valid/,
      },
    );
    const [sync] = providers();
    fake.state.reset();
    fake.state.fail("create", "rate_limit", 1);
    await sync.generate(request("google", "image", "imagen-4.0-generate-001"), signal());
    expect(fake.state.requests.length).toBe(2);
    fake.state.reset();
    fake.state.fail("create", "server", 1);
    await expectProviderError(
      sync.generate(request("google", "image", "imagen-4.0-generate-001"), signal()),
      "server",
      {
        retryable: false,
      },
    );
    expect(fake.state.requests.length).toBe(1);
  });

  test("an image option whose picture was not resolved is refused before any request", async () => {
    const [sync] = providers();
    await expectProviderError(
      sync.generate(request("google", "image", "gemini-2.5-flash-image", "x", { image: "file_abc" }), signal()),
      "bad_request",
      { message: "the image input could not be read" },
    );
    expect(fake.state.requests.length).toBe(0);
  });
});

describe("Google: Veo video", () => {
  test(":predictLongRunning → operation; polled until done; the video URI downloads with the key", async () => {
    const [, async] = providers();
    const r = request("google", "video", "veo-3.0-fast-generate-001", "a red kite", {
      aspect_ratio: "9:16",
      negative_prompt: "rain",
    });
    const { upstreamTaskId } = await async.submit(r, signal());
    expect(upstreamTaskId).toMatch(/^models\/veo-3.0-fast-generate-001\/operations\/\w+$/);
    expect(fake.state.requests[0]!.body).toEqual({
      instances: [{ prompt: "a red kite" }],
      parameters: { aspectRatio: "9:16", negativePrompt: "rain" },
    });
    const states = await pollToEnd(async, upstreamTaskId, r);
    expect(states.map((s) => s.state)).toEqual(["running", "succeeded"]);
    expect(fake.state.requests[1]!.path).toBe(`/v1beta/${upstreamTaskId}`);
    expect(fake.downloads).toEqual([{ withKey: true }]);
    const last = states.at(-1)!;
    if (last.state !== "succeeded") throw new Error("unreachable");
    const file = await downloadAsset(last.assets[0]!, signal());
    expect(file.contentType).toBe("video/mp4");
    expect(Buffer.from(file.bytes).equals(Buffer.from(SAMPLE_MP4))).toBe(true);
  });

  test("a filtered video ends failed with the reason", async () => {
    fake.outcome = "blocked";
    const [, async] = providers();
    const r = request("google", "video", "veo-3.0-fast-generate-001", "x");
    const { upstreamTaskId } = await async.submit(r, signal());
    const last = (await pollToEnd(async, upstreamTaskId, r)).at(-1)!;
    expect(last.state).toBe("failed");
    if (last.state === "failed") expect(last.message).toMatch(/safety filters removed the video: The prompt could not/);
  });
});
