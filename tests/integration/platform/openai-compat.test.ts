/**
 * The OpenAI-compatible images endpoint (docs/openai-compat.md) driven by the official `openai` SDK with
 * baseURL `<server>/v1` and an Atelier key: each image is a task (history, credits), the answer is a stored result,
 * and failures raise the SDK's own error classes (OpenAI's statuses and error shape).
 */
import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";

const it = serverForFile({ env: { SIGNUP_CREDITS: "40", SIMULATOR_DELAY_MS: "100" } });

async function userWithKey(body: Record<string, unknown> = {}) {
  const { cookie } = await it.api.signUp(uniqueEmail("oai"));
  const key = (await it.api.post("/api/keys/create", { name: "oai", ...body }, { cookie })).body.data;
  const client = new OpenAI({ apiKey: key.key, baseURL: `${it.server.url}/v1`, maxRetries: 0 });
  return { cookie, client, keyId: key.key_id as string };
}

describe("OpenAI-compatible images", () => {
  test("dall-e-3 and kling/kling-v1 answer data[0].url of a stored result; each image is a task", async () => {
    const { cookie, client } = await userWithKey();
    const dalle = await client.images.generate({ model: "dall-e-3", prompt: "a lighthouse", size: "1792x1024" });
    expect(dalle.created).toBeGreaterThan(0);
    const url = dalle.data![0]!.url!;
    const file = await fetch(url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toStartWith("image/");

    const kling = await client.images.generate({
      model: "kling/kling-v1",
      prompt: "tea fields",
      n: 2,
      size: "1024x1024",
    });
    expect(kling.data).toHaveLength(2);
    expect((await fetch(kling.data![1]!.url!)).status).toBe(200);

    const b64 = await client.images.generate({
      model: "replicate/black-forest-labs/flux-schnell",
      prompt: "ramen",
      response_format: "b64_json",
    });
    expect(Buffer.from(b64.data![0]!.b64_json!, "base64").byteLength).toBeGreaterThan(100);

    const history = (await it.api.post("/api/generator/history", {}, { cookie })).body.data;
    expect(history.total).toBe(4);
    const byModel = history.generations.map((g: any) => `${g.provider}/${g.model}`).sort();
    expect(byModel).toEqual([
      "kling/kling-v1",
      "kling/kling-v1",
      "openai/dall-e-3",
      "replicate/black-forest-labs/flux-schnell",
    ]);
    const credits = (await it.api.post("/api/get-user-credits", {}, { cookie })).body.data;
    expect(credits.left_credits).toBe(40 - 5 - 4 - 4 - 3);
  });

  test("a bad key is AuthenticationError (401), an unknown model NotFoundError (404), bad params BadRequestError (400)", async () => {
    const bad = new OpenAI({ apiKey: "sk-nope", baseURL: `${it.server.url}/v1`, maxRetries: 0 });
    const unauthorized = await bad.images.generate({ model: "dall-e-3", prompt: "x" }).catch((e) => e);
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.error).toMatchObject({ type: "invalid_request_error", code: "invalid_api_key" });

    // A revoked key is refused the same way, and nothing is created for its owner.
    const revoked = await userWithKey();
    await it.api.post("/api/keys/revoke", { key_id: revoked.keyId }, { cookie: revoked.cookie });
    const refused = await revoked.client.images.generate({ model: "dall-e-3", prompt: "x" }).catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused.message).toContain("API key revoked");
    expect((await it.api.post("/api/generator/history", {}, { cookie: revoked.cookie })).body.data.total).toBe(0);

    const { client, cookie } = await userWithKey();
    const unknown = await client.images.generate({ model: "dall-e-9", prompt: "x" }).catch((e) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown.error).toMatchObject({ code: "model_not_found", param: "model" });
    const video = await client.images.generate({ model: "runway/gen4.5", prompt: "x" }).catch((e) => e);
    expect(video).toBeInstanceOf(OpenAI.NotFoundError);
    const tooMany = await client.images.generate({ model: "dall-e-3", prompt: "x", n: 5 }).catch((e) => e);
    expect(tooMany).toBeInstanceOf(OpenAI.BadRequestError);
    expect(tooMany.error.param).toBe("n");
    const size = await client.images.generate({ model: "dall-e-3", prompt: "x", size: "256x256" }).catch((e) => e);
    expect(size).toBeInstanceOf(OpenAI.BadRequestError);
    expect(size.message).toContain("1024x1024, 1792x1024, 1024x1792");
    expect((await it.api.post("/api/generator/history", {}, { cookie })).body.data.total).toBe(0);

    // Garbage never reaches a 5xx and creates nothing.
    const key = (client as unknown as { apiKey: string }).apiKey;
    const garbage = ["", "not json", "[]", "null", '{"prompt":1}', '{"prompt":"x","n":"4"}', `${"[".repeat(5000)}`];
    for (const body of garbage) {
      const r = await fetch(`${it.server.url}/v1/images/generations`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body,
      });
      expect({ body: body.slice(0, 20), status: r.status }).toEqual({ body: body.slice(0, 20), status: 400 });
      expect((await r.json()).error.type).toBe("invalid_request_error");
    }
    expect((await it.api.post("/api/generator/history", {}, { cookie })).body.data.total).toBe(0);

    const other = await fetch(`${it.server.url}/v1/chat/completions`, { method: "POST" });
    expect(other.status).toBe(404);
    expect((await other.json()).error.code).toBe("unknown_url");
  });

  test("credits, caps and scopes hold as over HTTP, and a refused image of n creates none", async () => {
    const { client, cookie } = await userWithKey();
    // 40 credits at 4 an image: after seven images two more would fit; a request for four creates none — not two
    // created and then withdrawn, which a runner could already have started, finished and charged.
    await client.images.generate({ model: "kling/kling-v1", prompt: "a", n: 4 });
    await client.images.generate({ model: "kling/kling-v1", prompt: "b", n: 3 });
    const broke = await client.images.generate({ model: "kling/kling-v1", prompt: "c", n: 4 }).catch((e) => e);
    expect(broke).toBeInstanceOf(OpenAI.RateLimitError);
    expect(broke.error).toMatchObject({ type: "insufficient_quota", code: "insufficient_quota" });
    expect(broke.message).toContain("insufficient credits: need 16, have 12");
    const history = (await it.api.post("/api/generator/history", { page_size: 100 }, { cookie })).body.data;
    expect(history.total).toBe(7);
    expect(history.generations.filter((g: any) => g.prompt === "c")).toHaveLength(0);
    expect((await it.api.post("/api/get-user-credits", {}, { cookie })).body.data.left_credits).toBe(12);

    const reader = await userWithKey({ scopes: ["read"] });
    const refused = await reader.client.images.generate({ model: "dall-e-3", prompt: "x" }).catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused.message).toContain("forbidden: this key lacks the generate scope");

    // The rate limit is the owner's, shared with the JSON API: one unit per image.
    const limited = await userWithKey();
    const apiKey = (limited.client as unknown as { apiKey: string }).apiKey;
    await Promise.all(Array.from({ length: 98 }, () => it.api.post("/api/get-user-credits", {}, { apiKey })));
    const flood = await limited.client.images.generate({ model: "kling/kling-v1", prompt: "x", n: 4 }).catch((e) => e);
    expect(flood).toBeInstanceOf(OpenAI.RateLimitError);
    expect(flood.error).toMatchObject({ type: "requests", code: "rate_limit_exceeded" });
    expect(Number(flood.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await it.api.post("/api/generator/history", {}, { cookie: limited.cookie })).body.data.total).toBe(0);

    const capped = await userWithKey({ credit_limit: { credits: 5, period: "day" } });
    await capped.client.images.generate({ model: "kling/kling-v1", prompt: "one" });
    const over = await capped.client.images.generate({ model: "kling/kling-v1", prompt: "two" }).catch((e) => e);
    expect(over).toBeInstanceOf(OpenAI.RateLimitError);
    expect(over.message).toContain("key credit limit reached: 4 of 5 this day");
  });
});
