/** OpenAI adapter (generateImage of the ai SDK) ↔ the OpenAI Images fake, over real HTTP. */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createOpenAIProvider } from "~/providers/openai.server";
import { SAMPLE_PNG } from "../../fakes/common";
import { startOpenAIFake } from "../../fakes/openai";
import { config, deadBaseUrl, expectProviderError, FAST, request, signal } from "./support";

const fake = startOpenAIFake();
afterAll(() => fake.stop());
beforeEach(() => fake.state.reset());

const cfg = (key = fake.apiKey, base = fake.baseUrl) => config({ OPENAI_API_KEY: key, OPENAI_BASE_URL: base });
const provider = (key?: string) => createOpenAIProvider(cfg(key), FAST);
const req = (model = "dall-e-3", options: Record<string, unknown> = {}, upstream = model) =>
  request("openai", "image", model, "an astronaut riding a horse", options, upstream);

describe("OpenAI: success", () => {
  test("dall-e-3: one POST /v1/images/generations asking for b64_json; the PNG bytes come back", async () => {
    const assets = await provider().generate(
      req("dall-e-3", { size: "1792x1024", quality: "hd", style: "vivid" }),
      signal(),
    );
    expect(fake.state.requests).toHaveLength(1);
    const sent = fake.state.requests[0]!;
    expect(sent.path).toBe("/v1/images/generations");
    expect(sent.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(sent.body).toMatchObject({
      model: "dall-e-3",
      prompt: "an astronaut riding a horse",
      n: 1,
      size: "1792x1024",
      quality: "hd",
      style: "vivid",
      response_format: "b64_json",
    });
    expect(assets).toHaveLength(1);
    const a = assets[0]!;
    if (a.kind !== "bytes") throw new Error("expected bytes");
    expect(a.contentType).toBe("image/png");
    expect(Buffer.from(a.bytes).equals(Buffer.from(SAMPLE_PNG))).toBe(true);
  });

  test("gpt-image-1: the catalog's size and quality arrive; style (DALL·E 3 only) and unknown keys do not", async () => {
    await provider().generate(
      req("gpt-image-1", { size: "1024x1536", quality: "high", style: "vivid", background: "transparent" }),
      signal(),
    );
    const body = fake.state.requests[0]!.body as Record<string, unknown>;
    expect(body).toMatchObject({ model: "gpt-image-1", size: "1024x1536", quality: "high" });
    expect(body.style).toBeUndefined();
    expect(body.background).toBeUndefined();
  });

  test("gpt-image-1: no response_format is sent (the model always answers base64)", async () => {
    const assets = await provider().generate(req("gpt-image-1"), signal());
    expect((fake.state.requests[0]!.body as Record<string, unknown>).response_format).toBeUndefined();
    expect(assets[0]!.kind).toBe("bytes");
  });

  test("MODEL_MAP: the upstream model id is the one sent", async () => {
    await provider().generate(req("gpt-image-1", {}, "gpt-image-1-mini"), signal());
    expect((fake.state.requests[0]!.body as Record<string, unknown>).model).toBe("gpt-image-1-mini");
  });
});

describe("OpenAI: errors", () => {
  test("wrong key → auth, hint names OPENAI_API_KEY, key never echoed in the user message", async () => {
    const e = await expectProviderError(provider("sk-wrong-key").generate(req(), signal()), "auth", {
      retryable: false,
      status: 401,
      message: "OpenAI rejected the request credentials",
      hint: /OPENAI_API_KEY/,
    });
    expect(e.message).not.toContain("sk-wro");
  });

  test("429 rate limit is retried, then succeeds", async () => {
    fake.state.fail("create", "rate_limit", 2);
    const assets = await provider().generate(req(), signal());
    expect(assets).toHaveLength(1);
    expect(fake.state.requests).toHaveLength(3);
  });

  test("a lasting 429 → rate_limit after the bounded attempts", async () => {
    fake.state.fail("create", "rate_limit", 10);
    await expectProviderError(provider().generate(req(), signal()), "rate_limit", { retryable: true, status: 429 });
    expect(fake.state.requests).toHaveLength(3);
  });

  test("429 insufficient_quota is billing, not a rate limit: not retried", async () => {
    fake.state.fail("create", "quota");
    await expectProviderError(provider().generate(req(), signal()), "auth", {
      retryable: false,
      hint: /insufficient_quota/,
    });
    expect(fake.state.requests).toHaveLength(1);
  });

  test("content policy (400) → bad_request with OpenAI's user-facing reason", async () => {
    fake.state.fail("create", "content_policy");
    await expectProviderError(provider().generate(req(), signal()), "bad_request", { message: /safety system/ });
  });

  test("500 → server, not retried (the image may have been made and billed)", async () => {
    fake.state.fail("create", "server");
    await expectProviderError(provider().generate(req(), signal()), "server", { retryable: false, status: 500 });
    expect(fake.state.requests).toHaveLength(1);
  });

  test("malformed JSON → bad_response", async () => {
    fake.state.fail("create", "malformed");
    await expectProviderError(provider().generate(req(), signal()), "bad_response", {
      message: "OpenAI sent an unreadable response",
    });
  });

  test("hang → timeout, not retried", async () => {
    fake.state.fail("create", "hang");
    await expectProviderError(provider().generate(req(), signal()), "timeout", {
      message: "OpenAI did not answer in time",
    });
    expect(fake.state.requests).toHaveLength(1);
  });

  test("unknown model (404) → bad_request", async () => {
    await expectProviderError(provider().generate(req("dall-e-3", {}, "dall-e-9"), signal()), "bad_request", {
      status: 404,
    });
  });

  test("connection refused → network, retried as never sent", async () => {
    const e = await expectProviderError(
      createOpenAIProvider(cfg(fake.apiKey, await deadBaseUrl("/v1")), FAST).generate(req(), signal()),
      "network",
    );
    expect((e as any).notSent).toBe(true);
  });

  test("the caller's abort is passed through", async () => {
    fake.state.fail("create", "hang");
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("deadline")), 50);
    await expect(
      createOpenAIProvider(cfg(), { ...FAST, timeoutMs: 10_000 }).generate(req(), ac.signal),
    ).rejects.toThrow("deadline");
  });
});
