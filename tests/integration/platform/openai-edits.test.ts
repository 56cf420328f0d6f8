/**
 * `POST /v1/images/edits` (docs/openai-compat.md "Edits") driven by the official `openai` SDK: the picture (and the
 * mask) become the user's files as an upload to `POST /api/files` would, the task starts from them, the answer is
 * the stored result; refusals (no picture, not a picture, a bad key, a model that takes no picture, a missing scope)
 * are OpenAI's errors and keep nothing.
 */
import { describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";
import { png } from "../../support/images";

const it = serverForFile({ env: { SIGNUP_CREDITS: "60", SIMULATOR_DELAY_MS: "100" } });

async function userWithKey(body: Record<string, unknown> = {}) {
  const { cookie } = await it.api.signUp(uniqueEmail("oai-edit"));
  const key = (await it.api.post("/api/keys/create", { name: "edits", ...body }, { cookie })).body.data.key as string;
  const client = new OpenAI({ apiKey: key, baseURL: `${it.server.url}/v1`, maxRetries: 0 });
  return { cookie, key, client };
}

const picture = (w: number, h: number, name = "photo.png") => toFile(png(w, h), name, { type: "image/png" });

/** The PNG's IHDR width / height. */
async function aspectOf(url: string): Promise<number> {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const view = new DataView(bytes.buffer);
  return view.getUint32(16) / view.getUint32(20);
}

async function stateOf(cookie: string) {
  const history = (await it.api.post("/api/generator/history", {}, { cookie })).body.data;
  const files = (await it.api.post("/api/files/list", {}, { cookie })).body.data;
  const credits = (await it.api.post("/api/get-user-credits", {}, { cookie })).body.data;
  return { tasks: history.total, files: files.total, credits: credits.left_credits };
}

describe("POST /v1/images/edits", () => {
  test("dall-e-2 edits a picture with gpt-image-1: the result is drawn on it, the task records it as its input", async () => {
    const { cookie, client } = await userWithKey();
    // An edit answers b64_json unless asked otherwise, as OpenAI's does.
    const edited = await client.images.edit({
      image: await picture(300, 150),
      prompt: "at night",
      model: "dall-e-2",
      response_format: "url",
    });
    expect(edited.created).toBeGreaterThan(0);
    expect(await aspectOf(edited.data![0]!.url!)).toBeCloseTo(2, 1);

    const task = (await it.api.post("/api/generator/history", {}, { cookie })).body.data.generations[0];
    expect(`${task.provider}/${task.model}`).toBe("openai/gpt-image-1");
    expect(task.status).toBe("completed");
    const files = (await it.api.post("/api/files/list", {}, { cookie })).body.data.files;
    expect(files).toHaveLength(1);
    // The task holds its input: the file no longer expires, and the task links to it.
    expect(files[0]).toMatchObject({ width: 300, height: 150, content_type: "image/png", expires_at: null });
    expect(task.inputs).toEqual({ image: files[0].url });
  });

  test("a mask, n = 2 and b64_json; a <provider>/<model> with an image option edits too", async () => {
    const { cookie, client } = await userWithKey();
    const masked = await client.images.edit({
      image: await picture(64, 64),
      mask: await picture(64, 64, "mask.png"),
      prompt: "a hat",
      model: "gpt-image-1",
      n: 2,
      size: "1024x1024",
      response_format: "b64_json",
    });
    expect(masked.data).toHaveLength(2);
    expect(Buffer.from(masked.data![0]!.b64_json!, "base64").subarray(1, 4).toString()).toBe("PNG");
    const tasks = (await it.api.post("/api/generator/history", {}, { cookie })).body.data.generations;
    expect(tasks).toHaveLength(2);
    for (const task of tasks) expect(Object.keys(task.inputs).sort()).toEqual(["image", "mask"]);

    const kontext = await client.images.edit({
      image: await picture(120, 60),
      prompt: "in the snow",
      model: "replicate/black-forest-labs/flux-kontext-pro",
    });
    expect(Buffer.from(kontext.data![0]!.b64_json!, "base64").subarray(1, 4).toString()).toBe("PNG");
    // gpt-image-1 8 credits × 2, flux-kontext-pro 5.
    expect((await stateOf(cookie)).credits).toBe(60 - 16 - 5);
  });

  test("refusals: no picture, not a picture, a bad key, a model without an image input, no mask input — nothing kept", async () => {
    const { cookie, key, client } = await userWithKey();
    const before = await stateOf(cookie);

    const noImage = new FormData();
    noImage.set("prompt", "x");
    noImage.set("model", "gpt-image-1");
    const missing = await fetch(`${it.server.url}/v1/images/edits`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}` },
      body: noImage,
    });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toEqual({
      message: "Missing required parameter: 'image'.",
      type: "invalid_request_error",
      param: "image",
      code: null,
    });

    const text = await toFile(new TextEncoder().encode("just words, not a picture"), "photo.png", {
      type: "image/png",
    });
    const notImage = await client.images.edit({ image: text, prompt: "x", model: "gpt-image-1" }).catch((e) => e);
    expect(notImage).toBeInstanceOf(OpenAI.BadRequestError);
    expect(notImage.error.type).toBe("invalid_request_error");
    expect(notImage.message).toContain("invalid file:");

    const bad = new OpenAI({ apiKey: "atl_not_a_key", baseURL: `${it.server.url}/v1`, maxRetries: 0 });
    const unauthorized = await bad.images.edit({ image: await picture(8, 8), prompt: "x" }).catch((e) => e);
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.error).toMatchObject({ type: "invalid_request_error", code: "invalid_api_key" });

    const noInput = await client.images
      .edit({ image: await picture(8, 8), prompt: "x", model: "dall-e-3" })
      .catch((e) => e);
    expect(noInput).toBeInstanceOf(OpenAI.BadRequestError);
    expect(noInput.error).toMatchObject({ type: "invalid_request_error", param: "model", code: "invalid_value" });
    expect(noInput.message).toContain("does not take an input image");

    const kontext = "replicate/black-forest-labs/flux-kontext-pro";
    const noMask = await client.images
      .edit({ image: await picture(8, 8), mask: await picture(8, 8), prompt: "x", model: kontext })
      .catch((e) => e);
    expect(noMask).toBeInstanceOf(OpenAI.BadRequestError);
    expect(noMask.error.param).toBe("mask");

    const unknown = await client.images
      .edit({ image: await picture(8, 8), prompt: "x", model: "nope/nope" })
      .catch((e) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);

    const json = await fetch(`${it.server.url}/v1/images/edits`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ prompt: "x", image: "https://example.com/a.png" }),
    });
    expect(json.status).toBe(400);
    expect((await json.json()).error.type).toBe("invalid_request_error");
    // Garbage never reaches a 5xx.
    for (const [type, body] of [
      ["multipart/form-data; boundary=x", "--x\r\nnot a part"],
      ["multipart/form-data; boundary=x", ""],
      ["text/plain", "image=1"],
    ]) {
      const r = await fetch(`${it.server.url}/v1/images/edits`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": type! },
        body,
      });
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
      expect((await r.json()).error.type).toBe("invalid_request_error");
    }

    expect(await stateOf(cookie)).toEqual(before);
  });

  test("the key needs both generate and files; a refused create (credits) removes the stored picture", async () => {
    for (const [scopes, lacking] of [
      [["generate"], "files"],
      [["files", "read"], "generate"],
    ] as const) {
      const { cookie, client } = await userWithKey({ scopes });
      const refused = await client.images.edit({ image: await picture(8, 8), prompt: "x" }).catch((e) => e);
      expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
      expect(refused.message).toContain(`forbidden: this key lacks the ${lacking} scope`);
      expect(await stateOf(cookie)).toMatchObject({ tasks: 0, files: 0 });
    }

    const { cookie, client } = await userWithKey();
    // 60 credits at 8 an image: seven fit, a request for eight creates none and keeps no picture.
    await client.images.edit({ image: await picture(8, 8), prompt: "a", n: 4 });
    await client.images.edit({ image: await picture(8, 8), prompt: "b", n: 3 });
    const files = (await stateOf(cookie)).files;
    const broke = await client.images.edit({ image: await picture(9, 9), prompt: "c", n: 2 }).catch((e) => e);
    expect(broke).toBeInstanceOf(OpenAI.RateLimitError);
    expect(broke.error).toMatchObject({ type: "insufficient_quota", code: "insufficient_quota" });
    expect((await stateOf(cookie)).files).toBe(files);
    // The same picture as an earlier edit is that edit's file: a refusal leaves it (its tasks still link to it).
    const again = await client.images.edit({ image: await picture(8, 8), prompt: "d", n: 2 }).catch((e) => e);
    expect(again).toBeInstanceOf(OpenAI.RateLimitError);
    expect((await stateOf(cookie)).files).toBe(files);
  });
});
