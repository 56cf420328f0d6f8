/**
 * The client libraries people point at `/v1/images/*` (docs/openai-compat.md "Clients"), driven against a started
 * server: the AI SDK (`ai` 7 with `@ai-sdk/openai` 4 and `@ai-sdk/openai-compatible` 3; `ai` 6 with their 3 and 2,
 * installed as aliases) and the official `openai` SDK.
 * Every call checks the tasks it created against the images it returned: a retry, a split `n` or a repeated request
 * never charges more tasks than the caller got (docs/decisions/158-retry-joins-request.md).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateImage } from "ai";
import { createOpenAICompatible as createOpenAICompatibleV2 } from "ai-sdk-openai-compatible-v2";
import { createOpenAI as createOpenAIV3 } from "ai-sdk-openai-v3";
import { generateImage as generateImageV6 } from "ai-v6";
import OpenAI, { toFile } from "openai";
import { Client, uniqueEmail } from "../../support/client";
import { png } from "../../support/images";
import { freePort, startServer, type TestServer } from "../../support/server";

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.dispose();
});

/** A server whose PUBLIC_URL names `publicHost`, reached by its clients at `clientHost` (both loopback). */
async function serverAt(publicHost: string, clientHost: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const server = await startServer({
    port,
    env: { PUBLIC_URL: `http://${publicHost}:${port}`, SIGNUP_CREDITS: "200", SIMULATOR_DELAY_MS: "100", ...env },
  });
  servers.push(server);
  return { server, api: new Client(server.url), port, base: `http://${clientHost}:${port}/v1` };
}

type At = Awaited<ReturnType<typeof serverAt>>;

async function userWithKey(at: At) {
  const { cookie } = await at.api.signUp(uniqueEmail("cli"));
  const key = (await at.api.post("/api/keys/create", { name: "cli" }, { cookie })).body.data.key as string;
  const state = async () => {
    const history = (await at.api.post("/api/generator/history", { page_size: 100 }, { cookie })).body.data;
    const credits = (await at.api.post("/api/get-user-credits", {}, { cookie })).body.data.left_credits as number;
    return { tasks: history.total as number, credits, generations: history.generations as Array<any> };
  };
  return { cookie, key, state };
}

const isPng = (bytes: Uint8Array) => Buffer.from(bytes.subarray(1, 4)).toString() === "PNG";

function post(at: At, key: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${at.base}/images/generations`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

describe.each([
  ["localhost", "127.0.0.1"],
  ["127.0.0.1", "localhost"],
])("PUBLIC_URL on %s, clients on %s", (publicHost, clientHost) => {
  let at: At;
  beforeAll(async () => {
    at = await serverAt(publicHost, clientHost);
  });

  test("@ai-sdk/openai gpt-image-1 returns a base64 image; @ai-sdk/openai-compatible dall-e-3 downloads its url", async () => {
    const user = await userWithKey(at);
    const openai = createOpenAI({ baseURL: at.base, apiKey: user.key });
    const made = await generateImage({ model: openai.image("gpt-image-1"), prompt: "a lighthouse" });
    expect(made.image.base64.length).toBeGreaterThan(100);
    expect(isPng(made.image.uint8Array)).toBe(true);
    expect(made.usage.outputTokens).toBe(1056);
    expect((await user.state()).tasks).toBe(1);

    const compatible = createOpenAICompatible({ baseURL: at.base, apiKey: user.key, name: "atelier" });
    const downloaded = await generateImage({ model: compatible.imageModel("dall-e-3"), prompt: "a harbour" });
    expect(isPng(downloaded.image.uint8Array)).toBe(true);
    const after = await user.state();
    expect(after.tasks).toBe(2);
    expect(after.credits).toBe(200 - 8 - 5);
  });

  test("url answers are on the origin the client used; a foreign Host gets PUBLIC_URL's", async () => {
    const user = await userWithKey(at);
    const own = await (await post(at, user.key, { model: "dall-e-3", prompt: "origin" })).json();
    expect(own.data[0].url).toStartWith(`http://${clientHost}:${at.port}/`);
    expect((await fetch(own.data[0].url)).status).toBe(200);
    const forged = await post(at, user.key, { model: "dall-e-3", prompt: "forged" }, { host: "evil.example" });
    expect(forged.status).toBe(200);
    expect((await forged.json()).data[0].url).toStartWith(`http://${publicHost}:${at.port}/`);
    // Stored URLs keep PUBLIC_URL.
    const stored = (await user.state()).generations.map((g) => JSON.parse(g.result_urls)[0] as string);
    for (const url of stored) expect(url).toStartWith(`http://${publicHost}:${at.port}/`);
  });
});

describe("the openai SDK and the AI SDK's habits", () => {
  let at: At;
  beforeAll(async () => {
    at = await serverAt("127.0.0.1", "127.0.0.1", { SIMULATOR_DELAY_MS: "700" });
  });

  test("openai: gpt-image-1 answers b64_json with usage and OpenAI's fields; dall-e-3 with n: 2 is a 400", async () => {
    const user = await userWithKey(at);
    const client = new OpenAI({ apiKey: user.key, baseURL: at.base, maxRetries: 0 });
    const answer = await client.images.generate({ model: "gpt-image-1", prompt: "a fox", quality: "high" });
    expect(isPng(Buffer.from(answer.data![0]!.b64_json!, "base64"))).toBe(true);
    expect(answer.data![0]!.url).toBeUndefined();
    expect(answer.usage).toEqual({
      input_tokens: 2,
      input_tokens_details: { image_tokens: 0, text_tokens: 2 },
      output_tokens: 4160,
      total_tokens: 4162,
    });
    expect(answer).toMatchObject({ size: "1024x1024", quality: "high", output_format: "png", background: "opaque" });
    // dall-e models answer url by default and carry no gpt-image fields.
    const dalle = await client.images.generate({ model: "dall-e-3", prompt: "a fox" });
    expect(dalle.data![0]!.url).toBeString();
    expect(dalle.usage).toBeUndefined();

    const refused = await client.images.generate({ model: "dall-e-3", prompt: "two", n: 2 }).catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.status).toBe(400);
    expect(refused.error).toMatchObject({ param: "n", code: "integer_above_max_value" });
    // At the limit: n 1 is accepted (above), n 2 refused; another model takes n 2.
    const two = await client.images.generate({ model: "kling/kling-v1", prompt: "two", n: 2 });
    expect(two.data).toHaveLength(2);
    expect((await user.state()).tasks).toBe(4);
  });

  test("two identical requests, the second while the first runs, make one task and answer the same image", async () => {
    const user = await userWithKey(at);
    const body = { model: "kling/kling-v1", prompt: "the same request", response_format: "b64_json" };
    const first = post(at, user.key, body);
    await Bun.sleep(200);
    expect((await user.state()).generations[0]?.status).toMatch(/pending|processing/);
    const second = await post(at, user.key, body);
    const [a, b] = [await (await first).json(), await second.json()];
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(a.data[0].b64_json.length).toBeGreaterThan(100);
    expect(b.data[0].b64_json).toBe(a.data[0].b64_json);
    const state = await user.state();
    expect(state.tasks).toBe(1);
    expect(state.credits).toBe(200 - 4);
    // After the answer it still joins; another prompt, or a new Idempotency-Key, is a new request.
    expect((await (await post(at, user.key, body)).json()).data[0].b64_json).toBe(a.data[0].b64_json);
    await post(at, user.key, { ...body, prompt: "another request" });
    await post(at, user.key, body, { "Idempotency-Key": crypto.randomUUID() });
    expect((await user.state()).tasks).toBe(3);
  });

  test("identical requests at the same instant make one task; a failed request is not joined and costs nothing", async () => {
    const user = await userWithKey(at);
    const body = { model: "kling/kling-v1", prompt: "three at once" };
    const answers = await Promise.all([1, 2, 3].map(() => post(at, user.key, body)));
    const urls = await Promise.all(answers.map(async (r) => (await r.json()).data[0].url));
    expect(new Set(urls).size).toBe(1);
    expect(answers.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(2);
    expect(await user.state()).toMatchObject({ tasks: 1, credits: 200 - 4 });

    const failing = { model: "kling/kling-v1", prompt: "[simulate:fail] a storm" };
    const failed = await post(at, user.key, failing);
    expect(failed.status).toBe(500);
    expect(failed.headers.get("x-should-retry")).toBe("false");
    expect((await failed.json()).error.code).toBe("generation_failed");
    const retried = await post(at, user.key, failing);
    expect(retried.status).toBe(500);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await user.state()).toMatchObject({ tasks: 3, credits: 200 - 4 });
    // Streamed, the failure is an error event after the stream opened.
    const streamed = await post(at, user.key, { ...failing, stream: true });
    expect(streamed.status).toBe(200);
    const text = await streamed.text();
    expect(text).toContain("event: error\n");
    expect(text).not.toContain("completed");
  });

  test("an Idempotency-Key sent twice creates its tasks once; the same key with another body is refused", async () => {
    const user = await userWithKey(at);
    const key = crypto.randomUUID();
    const body = { model: "kling/kling-v1", prompt: "keyed", n: 2 };
    const once = await post(at, user.key, body, { "Idempotency-Key": key });
    expect(once.status).toBe(200);
    const urls = (await once.json()).data.map((d: { url: string }) => d.url);
    expect(urls).toHaveLength(2);
    const again = await post(at, user.key, body, { "Idempotency-Key": key });
    expect(again.status).toBe(200);
    expect((await again.json()).data.map((d: { url: string }) => d.url)).toEqual(urls);
    expect((await user.state()).tasks).toBe(2);

    const other = await post(at, user.key, { ...body, prompt: "other" }, { "Idempotency-Key": key });
    expect(other.status).toBe(400);
    expect(other.headers.get("x-should-retry")).toBe("false");
    expect((await other.json()).error.message).toContain("Idempotency-Key reused with a different request");
    const bad = await post(at, user.key, body, { "Idempotency-Key": "x".repeat(256) });
    expect(bad.status).toBe(400);
    // A key is the user's: another user's same key and body creates its own tasks.
    const stranger = await userWithKey(at);
    expect((await post(at, stranger.key, body, { "Idempotency-Key": key })).status).toBe(200);
    expect((await stranger.state()).tasks).toBe(2);
    expect((await user.state()).tasks).toBe(2);
  });

  test("stream: true answers text/event-stream ending in image_generation.completed (raw and the openai SDK)", async () => {
    const user = await userWithKey(at);
    const raw = await post(at, user.key, { model: "gpt-image-1", prompt: "streamed", stream: true });
    expect(raw.status).toBe(200);
    expect(raw.headers.get("content-type")).toStartWith("text/event-stream");
    const events = (await raw.text()).split("\n\n").filter((chunk) => chunk.startsWith("event:"));
    expect(events).toHaveLength(1);
    const [head, data] = events.at(-1)!.split("\n");
    expect(head).toBe("event: image_generation.completed");
    const completed = JSON.parse(data!.slice("data: ".length));
    expect(completed).toMatchObject({ type: "image_generation.completed", output_format: "png", size: "1024x1024" });
    expect(completed.usage.output_tokens).toBe(1056);
    expect(isPng(Buffer.from(completed.b64_json, "base64"))).toBe(true);

    const client = new OpenAI({ apiKey: user.key, baseURL: at.base, maxRetries: 0 });
    const stream = await client.images.generate({ model: "gpt-image-1", prompt: "sdk stream", stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual(["image_generation.completed"]);
    expect((await user.state()).tasks).toBe(2);
    // A refused stream is a plain error answer, before anything is created.
    const refused = await post(at, user.key, { model: "dall-e-3", prompt: "x", n: 2, stream: true });
    expect(refused.status).toBe(400);
    const notBool = await post(at, user.key, { model: "dall-e-3", prompt: "x", stream: "yes" });
    expect((await notBool.json()).error.param).toBe("stream");
    expect((await user.state()).tasks).toBe(2);
  });

  test("insufficient credits: 4xx (not 408/409) with x-should-retry: false; the AI SDK's retries create nothing", async () => {
    const poor = await serverAt("127.0.0.1", "127.0.0.1", { SIGNUP_CREDITS: "6" });
    const user = await userWithKey(poor);
    const refused = await post(poor, user.key, { model: "gpt-image-1", prompt: "too dear" });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect([408, 409]).not.toContain(refused.status);
    expect(refused.headers.get("x-should-retry")).toBe("false");
    expect((await refused.json()).error.code).toBe("insufficient_quota");

    const openai = createOpenAI({ baseURL: poor.base, apiKey: user.key });
    const thrown = await generateImage({ model: openai.image("gpt-image-1"), prompt: "too dear" }).catch((e) => e);
    expect(thrown).toBeInstanceOf(Error);
    const official = new OpenAI({ apiKey: user.key, baseURL: poor.base });
    expect(await official.images.generate({ model: "gpt-image-1", prompt: "x" }).catch((e) => e.status)).toBe(429);
    expect(await user.state()).toMatchObject({ tasks: 0, credits: 6 });
    // At the balance: one dall-e-3 image (5) fits and is charged once, though the AI SDK may retry.
    const fits = await generateImage({ model: openai.image("dall-e-3"), prompt: "fits" });
    expect(fits.images).toHaveLength(1);
    expect(await user.state()).toMatchObject({ tasks: 1, credits: 1 });
  });

  test("edits: @ai-sdk/openai and @ai-sdk/openai-compatible get b64_json by default; a retried edit joins", async () => {
    const user = await userWithKey(at);
    const picture = png(200, 100);
    const openai = createOpenAI({ baseURL: at.base, apiKey: user.key });
    const edited = await generateImage({
      model: openai.image("gpt-image-1"),
      prompt: { text: "at night", images: [picture] },
    });
    expect(isPng(edited.image.uint8Array)).toBe(true);
    expect((await user.state()).tasks).toBe(1);
    const compatible = createOpenAICompatible({ baseURL: at.base, apiKey: user.key, name: "atelier" });
    const again = await generateImage({
      model: compatible.imageModel("gpt-image-1"),
      prompt: { text: "in the snow", images: [picture] },
    });
    expect(isPng(again.image.uint8Array)).toBe(true);
    expect((await user.state()).tasks).toBe(2);
    // The same edit again (same picture bytes, same prompt) joins the first: no third task.
    const joined = await generateImage({
      model: openai.image("gpt-image-1"),
      prompt: { text: "at night", images: [picture] },
    });
    expect(joined.image.base64).toBe(edited.image.base64);
    const state = await user.state();
    expect(state.tasks).toBe(2);
    expect(state.credits).toBe(200 - 2 * 8);
    // Streamed through the openai SDK: image_edit.completed.
    const client = new OpenAI({ apiKey: user.key, baseURL: at.base, maxRetries: 0 });
    const stream = await client.images.edit({
      model: "gpt-image-1",
      prompt: "streamed edit",
      image: await toFile(picture, "p.png", { type: "image/png" }),
      stream: true,
    });
    const events: Array<{ type: string; b64_json: string }> = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual(["image_edit.completed"]);
    expect(isPng(Buffer.from(events[0]!.b64_json, "base64"))).toBe(true);
    expect((await user.state()).tasks).toBe(3);
  });

  test("@ai-sdk/openai n: 3 — split into parallel identical calls they join (one task); maxImagesPerCall makes three", async () => {
    const user = await userWithKey(at);
    const openai = createOpenAI({ baseURL: at.base, apiKey: user.key });
    const split = await generateImage({ model: openai.image("kling/kling-v1"), prompt: "split", n: 3 });
    expect(split.images).toHaveLength(3);
    expect((await user.state()).tasks).toBe(1);
    const whole = await generateImage({
      model: openai.image("kling/kling-v1"),
      prompt: "whole",
      n: 3,
      maxImagesPerCall: 4,
    });
    expect(whole.images).toHaveLength(3);
    const state = await user.state();
    expect(state.tasks).toBe(4);
    expect(state.credits).toBe(200 - 4 * 4);
  });
});

describe("AI SDK 6 (@ai-sdk/openai 3, @ai-sdk/openai-compatible 2)", () => {
  let at: At;
  beforeAll(async () => {
    at = await serverAt("localhost", "127.0.0.1", { SIGNUP_CREDITS: "30" });
  });

  test("generate with both providers, an edit, and a refusal: tasks equal the images returned", async () => {
    const user = await userWithKey(at);
    const openai = createOpenAIV3({ baseURL: at.base, apiKey: user.key });
    const made = await generateImageV6({ model: openai.image("gpt-image-1"), prompt: "a lighthouse" });
    expect(isPng(made.image.uint8Array)).toBe(true);
    const compatible = createOpenAICompatibleV2({ baseURL: at.base, apiKey: user.key, name: "atelier" });
    const dalle = await generateImageV6({ model: compatible.imageModel("dall-e-3"), prompt: "a harbour" });
    expect(isPng(dalle.image.uint8Array)).toBe(true);
    const edited = await generateImageV6({
      model: openai.image("gpt-image-1"),
      prompt: { text: "at night", images: [png(64, 64)] },
    });
    expect(isPng(edited.image.uint8Array)).toBe(true);
    expect(await user.state()).toMatchObject({ tasks: 3, credits: 30 - 8 - 5 - 8 });
    // 9 credits left: gpt-image-1 (8) fits once; the second is refused and its retries create nothing.
    await generateImageV6({ model: openai.image("gpt-image-1"), prompt: "last one" });
    const refused = await generateImageV6({ model: openai.image("gpt-image-1"), prompt: "too many" }).catch((e) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(await user.state()).toMatchObject({ tasks: 4, credits: 1 });
  });
});
