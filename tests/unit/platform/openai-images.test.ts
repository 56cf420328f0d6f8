/** OpenAI's images request read as Atelier generate requests (app/domain/openai-compat/images.ts). */
import { describe, expect, test } from "bun:test";
import { OpenAiRefusal, parseEditsRequest, parseImagesRequest } from "~/domain/openai-compat/images";

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
    expect(parseImagesRequest({ prompt: "x", n: 4, response_format: "b64_json" })).toMatchObject({
      n: 4,
      responseFormat: "b64_json",
    });
    for (const n of [0, 5, 1.5, "2"]) expect(refusal({ prompt: "x", n })).toMatchObject({ status: 400, param: "n" });
    expect(refusal({})).toMatchObject({ status: 400, param: "prompt" });
    expect(refusal({ prompt: "  " })).toMatchObject({ param: "prompt" });
    expect(refusal({ prompt: "x", response_format: "png" })).toMatchObject({ param: "response_format" });
    expect(refusal([])).toMatchObject({ status: 400, param: null });
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
