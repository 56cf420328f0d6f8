/** OpenAI's images request read as Atelier generate requests (app/domain/openai-compat/images.ts). */
import { describe, expect, test } from "bun:test";
import { answerFields } from "~/domain/openai-compat/answer-fields";
import { OpenAiRefusal, parseEditsRequest, parseImagesRequest } from "~/domain/openai-compat/images";
import { atClientOrigin, clientOrigin } from "~/http/openai/client-origin.server";

const refusal = (body: unknown, parse: (body: unknown) => unknown = parseImagesRequest) => {
  try {
    parse(body);
  } catch (e) {
    if (e instanceof OpenAiRefusal) return { status: e.status, param: e.param, code: e.code };
    throw e;
  }
  throw new Error("accepted");
};

describe("parseImagesRequest", () => {
  test("OpenAI model ids are the openai provider's; <provider>/<model> any image model", () => {
    expect(parseImagesRequest({ prompt: "x" }).input).toMatchObject({ provider: "openai", model: "dall-e-3" });
    expect(parseImagesRequest({ model: "gpt-image-1", prompt: "x" }).input.model).toBe("gpt-image-1");
    expect(parseImagesRequest({ model: "replicate/black-forest-labs/flux-schnell", prompt: "x" }).input).toMatchObject({
      ai_type: "image",
      provider: "replicate",
      model: "black-forest-labs/flux-schnell",
    });
    expect(refusal({ model: "dall-e-2", prompt: "x" })).toEqual({
      status: 404,
      param: "model",
      code: "model_not_found",
    });
    expect(refusal({ model: "runway/gen4.5", prompt: "x" }).status).toBe(404);
  });

  test("size is the model's size, or its nearest aspect ratio; quality and style translate or pass", () => {
    expect(parseImagesRequest({ prompt: "x", size: "1792x1024", quality: "hd" }).input.options).toEqual({
      size: "1792x1024",
      quality: "hd",
    });
    expect(parseImagesRequest({ model: "gpt-image-1", prompt: "x", quality: "hd" }).input.options).toEqual({
      quality: "high",
    });
    expect(parseImagesRequest({ model: "dall-e-3", prompt: "x", quality: "medium" }).input.options).toEqual({
      quality: "standard",
    });
    expect(parseImagesRequest({ model: "kling/kling-v1", prompt: "x", size: "1792x1024" }).input.options).toEqual({
      aspect_ratio: "16:9",
    });
    expect(parseImagesRequest({ model: "kling/kling-v1", prompt: "x", size: "1024x1536" }).input.options).toEqual({
      aspect_ratio: "2:3",
    });
    expect(
      parseImagesRequest({ model: "kling/kling-v1", prompt: "x", quality: "hd", size: "auto" }).input.options,
    ).toEqual({});
    expect(refusal({ prompt: "x", size: "512x512" })).toMatchObject({ status: 400, param: "size" });
    expect(refusal({ model: "kling/kling-v1", prompt: "x", size: "big" })).toMatchObject({ param: "size" });
    expect(refusal({ prompt: "x", style: "baroque" })).toMatchObject({ param: "style" });
  });

  test("n, prompt and response_format are checked in OpenAI's terms", () => {
    expect(
      parseImagesRequest({ model: "kling/kling-v1", prompt: "x", n: 4, response_format: "b64_json" }),
    ).toMatchObject({
      n: 4,
      responseFormat: "b64_json",
    });
    for (const n of [0, 5, 1.5, "2"])
      expect(refusal({ model: "kling/kling-v1", prompt: "x", n })).toMatchObject({ status: 400, param: "n" });
    // dall-e-3 makes one image a request, as OpenAI's: 1 accepted, 2 refused.
    expect(parseImagesRequest({ model: "dall-e-3", prompt: "x", n: 1 }).n).toBe(1);
    expect(refusal({ model: "dall-e-3", prompt: "x", n: 2 })).toEqual({
      status: 400,
      param: "n",
      code: "integer_above_max_value",
    });
    expect(refusal({ model: "openai/dall-e-3", prompt: "x", n: 2 }).code).toBe("integer_above_max_value");
    expect(refusal({ prompt: "x", n: 2 }).param).toBe("n");
    expect(refusal({})).toMatchObject({ status: 400, param: "prompt", code: "invalid_value" });
    expect(refusal({ prompt: "  " })).toMatchObject({ param: "prompt" });
    expect(refusal({ prompt: "x", response_format: "png" })).toMatchObject({ param: "response_format" });
    expect(refusal([])).toMatchObject({ status: 400, param: null });
  });
});

describe("OpenAI's defaults and answer fields", () => {
  test("b64_json by default for gpt-image models and every edit, url otherwise; stream and output_format checked", () => {
    expect(parseImagesRequest({ model: "gpt-image-1", prompt: "x" }).responseFormat).toBe("b64_json");
    expect(parseImagesRequest({ model: "openai/gpt-image-1", prompt: "x" }).responseFormat).toBe("b64_json");
    expect(parseImagesRequest({ model: "gpt-image-1", prompt: "x", response_format: "url" }).responseFormat).toBe(
      "url",
    );
    expect(parseImagesRequest({ model: "dall-e-3", prompt: "x" }).responseFormat).toBe("url");
    expect(parseImagesRequest({ model: "kling/kling-v1", prompt: "x" }).responseFormat).toBe("url");
    expect(
      parseEditsRequest({ prompt: "x", model: "replicate/black-forest-labs/flux-kontext-pro" }, false).responseFormat,
    ).toBe("b64_json");
    expect(parseImagesRequest({ prompt: "x", stream: true }).stream).toBe(true);
    expect(parseImagesRequest({ prompt: "x" }).stream).toBe(false);
    expect(refusal({ prompt: "x", stream: "true" })).toMatchObject({ status: 400, param: "stream" });
    expect(parseEditsRequest({ prompt: "x", stream: "true" }, false).stream).toBe(true);
    expect(
      refusal({ prompt: "x", stream: "yes" }, (b) => parseEditsRequest(b as Record<string, string>, false)).param,
    ).toBe("stream");
    expect(parseImagesRequest({ prompt: "x", output_format: "webp" }).echo.outputFormat).toBe("png");
    expect(refusal({ prompt: "x", output_format: "gif" })).toMatchObject({ param: "output_format" });
  });

  test("gpt-image answers carry size, quality, background, output_format and OpenAI's token table as usage", () => {
    const echo = (body: Record<string, unknown>) =>
      parseImagesRequest({ model: "gpt-image-1", prompt: "abcde", ...body }).echo;
    expect(answerFields(echo({}), 1, 0)).toEqual({
      background: "opaque",
      output_format: "png",
      quality: "medium",
      size: "1024x1024",
      usage: {
        input_tokens: 2,
        input_tokens_details: { image_tokens: 0, text_tokens: 2 },
        output_tokens: 1056,
        total_tokens: 1058,
      },
    });
    expect(answerFields(echo({ size: "1536x1024", quality: "high", background: "transparent" }), 2, 1)).toMatchObject({
      background: "transparent",
      quality: "high",
      size: "1536x1024",
      usage: { input_tokens: 2 + 323, output_tokens: 2 * 6208, total_tokens: 2 + 323 + 2 * 6208 },
    });
    expect(answerFields(echo({ quality: "low", size: "1024x1536" }), 1, 0).usage).toMatchObject({ output_tokens: 408 });
    // Other models: no gpt-image fields at all.
    expect(answerFields(parseImagesRequest({ model: "dall-e-3", prompt: "x" }).echo, 1, 0)).toEqual({});
    expect(answerFields(parseImagesRequest({ model: "kling/kling-v1", prompt: "x" }).echo, 1, 0)).toEqual({});
  });
});

describe("result URLs on the client's origin", () => {
  const at = (host: string | null, config: { publicUrl: string; TRUSTED_ORIGINS: string[] }) =>
    clientOrigin(new Request("http://127.0.0.1/v1", { headers: host ? { host } : {} }), config);
  const local = { publicUrl: "http://localhost:3000", TRUSTED_ORIGINS: [] };
  const site = { publicUrl: "https://atelier.example.com", TRUSTED_ORIGINS: ["https://studio.example.org"] };

  test("a loopback PUBLIC_URL's aliases on the same port; trusted origins; anything else PUBLIC_URL", () => {
    expect(at("127.0.0.1:3000", local)).toBe("http://127.0.0.1:3000");
    expect(at("[::1]:3000", local)).toBe("http://[::1]:3000");
    expect(at("localhost:3000", local)).toBe("http://localhost:3000");
    expect(at("127.0.0.1:3001", local)).toBe("http://localhost:3000");
    expect(at("evil.example", local)).toBe("http://localhost:3000");
    expect(at(null, local)).toBe("http://localhost:3000");
    expect(at("studio.example.org", site)).toBe("https://studio.example.org");
    expect(at("atelier.example.com", site)).toBe("https://atelier.example.com");
    // A public PUBLIC_URL has no loopback aliases.
    expect(at("127.0.0.1", site)).toBe("https://atelier.example.com");
  });

  test("only PUBLIC_URL's own URLs are rewritten", () => {
    expect(atClientOrigin("http://localhost:3000/media/a.png", local.publicUrl, "http://127.0.0.1:3000")).toBe(
      "http://127.0.0.1:3000/media/a.png",
    );
    expect(atClientOrigin("https://bucket.example/a.png", local.publicUrl, "http://127.0.0.1:3000")).toBe(
      "https://bucket.example/a.png",
    );
    expect(atClientOrigin("http://localhost:30000/a.png", local.publicUrl, "http://127.0.0.1:3000")).toBe(
      "http://localhost:30000/a.png",
    );
  });
});

describe("parseEditsRequest", () => {
  const edit = (fields: Record<string, string>, mask = false) => parseEditsRequest(fields, mask);
  const editRefusal = (fields: Record<string, string>, mask = false) => refusal(fields, () => edit(fields, mask));

  test("dall-e-2 and gpt-image-1 (the default) are gpt-image-1; a catalog model edits when it takes an image", () => {
    for (const model of [undefined, "dall-e-2", "gpt-image-1"]) {
      const fields = { prompt: "x", ...(model ? { model } : {}) };
      expect(edit(fields, true).input).toMatchObject({ provider: "openai", model: "gpt-image-1" });
    }
    expect(edit({ prompt: "x", model: "replicate/black-forest-labs/flux-kontext-pro" }).input.provider).toBe(
      "replicate",
    );
    expect(edit({ prompt: "x", n: "3", response_format: "b64_json" })).toMatchObject({
      n: 3,
      responseFormat: "b64_json",
    });
  });

  test("a model without an image option is 400 on model, without a mask option 400 on mask; form fields checked", () => {
    expect(editRefusal({ prompt: "x", model: "dall-e-3" })).toEqual({
      status: 400,
      param: "model",
      code: "invalid_value",
    });
    expect(editRefusal({ prompt: "x", model: "replicate/black-forest-labs/flux-schnell" })).toMatchObject({
      param: "model",
    });
    expect(editRefusal({ prompt: "x", model: "replicate/black-forest-labs/flux-kontext-pro" }, true)).toMatchObject({
      param: "mask",
    });
    expect(editRefusal({ prompt: "x", model: "dall-e-9" })).toMatchObject({ status: 404, param: "model" });
    for (const n of ["0", "5", "1.5", "two"]) expect(editRefusal({ prompt: "x", n })).toMatchObject({ param: "n" });
    expect(editRefusal({ prompt: "x", size: "256x256" })).toMatchObject({ param: "size" });
    expect(editRefusal({})).toMatchObject({ param: "prompt" });
  });
});
