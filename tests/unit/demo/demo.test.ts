import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateText, streamText } from "ai";
import { openDatabase } from "#db/client";
import { clientIpOf, requireDemoAccess } from "~/domain/demo/access.server";
import { findTextProvider, splitTarget, TEXT_PROVIDERS, targetValue } from "~/domain/demo/catalog";
import {
  generateDemoImage,
  generateDemoText,
  resolveImageOffering,
  resolveTextOffering,
  streamDemoText,
} from "~/domain/demo/demo.server";
import { createDemoModels } from "~/domain/demo/models.server";
import { parseDemoRequest } from "~/http/demo-request.server";
import { manualClock } from "~/lib/clock";
import { type Config, parseConfig } from "~/lib/config.server";
import { AppError } from "~/lib/errors";
import {
  FAIL_AFTER_WORDS,
  SimulatedLanguageModel,
  SimulatedUpstreamError,
  simulatedReply,
  wordChunks,
} from "~/providers/simulator/language-model.server";
import {
  chunksOf,
  FAKE_FAIL_AFTER,
  type FakeOpenAI,
  fakeReply,
  startFakeOpenAI,
  tinyPng,
} from "../../fakes/openai-text";

const config = (env: Record<string, string> = {}): Config => parseConfig({ DATA_DIR: "/tmp/atelier-unit", ...env });

async function messageOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.message;
    throw e;
  }
  throw new Error("expected an AppError");
}

async function readChunks(res: Response): Promise<string[]> {
  const out: string[] = [];
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const s = dec.decode(value, { stream: true });
    if (s) out.push(s);
  }
  return out;
}

describe("simulated language model (a real ai SDK LanguageModelV4)", () => {
  const model = new SimulatedLanguageModel("openrouter", "openai/gpt-4o-mini", { wordDelayMs: 1 });

  test("generateText: deterministic text derived from the prompt", async () => {
    const a = await generateText({ model, prompt: "a red kite over the sea" });
    const b = await generateText({ model, prompt: "a red kite over the sea" });
    const c = await generateText({ model, prompt: "something else entirely" });
    expect(a.text).toBe(simulatedReply("openrouter", "openai/gpt-4o-mini", "a red kite over the sea"));
    expect(a.text).toContain("a red kite over the sea");
    expect(b.text).toBe(a.text);
    expect(c.text).not.toBe(a.text);
    expect(a.usage.outputTokens).toBe(wordChunks(a.text).length);
  });

  test("streamText: one chunk per word, in order, reassembling to the full text", async () => {
    const result = streamText({ model, prompt: "stream me" });
    const parts: string[] = [];
    for await (const t of result.textStream) parts.push(t);
    const full = simulatedReply("openrouter", "openai/gpt-4o-mini", "stream me");
    expect(parts.length).toBeGreaterThan(5);
    expect(parts).toEqual(wordChunks(full));
    expect(parts.join("")).toBe(full);
  });

  test("streamed words are spaced by the configured delay", async () => {
    const slow = new SimulatedLanguageModel("deepseek", "deepseek-chat", { wordDelayMs: 20 });
    const t0 = performance.now();
    const stamps: number[] = [];
    for await (const _ of streamText({ model: slow, prompt: "timing" }).textStream) stamps.push(performance.now() - t0);
    // Generous: the last word arrives well after the first (machine is shared).
    expect(stamps.at(-1)! - stamps[0]!).toBeGreaterThan(20 * (stamps.length - 1) * 0.5);
  });

  test("[simulate:fail]: generateText throws; a stream breaks after a few words", async () => {
    await expect(generateText({ model, prompt: "x [simulate:fail]", maxRetries: 0 })).rejects.toThrow(
      "simulated upstream failure",
    );
    const errors: unknown[] = [];
    const result = streamText({
      model,
      prompt: "y [simulate:fail]",
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    const parts: string[] = [];
    for await (const t of result.textStream) parts.push(t);
    expect(parts).toHaveLength(FAIL_AFTER_WORDS);
    expect(errors[0]).toBeInstanceOf(SimulatedUpstreamError);
  });
});

describe("demo catalog and request validation", () => {
  test("every text provider has models; targets round-trip (model ids may contain / and :)", async () => {
    for (const p of TEXT_PROVIDERS) {
      expect(p.models.length).toBeGreaterThan(0);
      for (const m of p.models) expect(splitTarget(targetValue(p.name, m))).toEqual({ provider: p.name, model: m });
    }
    expect(splitTarget("openai:a:b")).toEqual({ provider: "openai", model: "a:b" });
    expect(findTextProvider("openai")?.api).toBe("responses");
    expect(findTextProvider("deepseek")?.api).toBe("chat");
  });

  test("unknown provider / model messages", async () => {
    expect(() => resolveTextOffering({ provider: "acme", model: "x" })).toThrow("Unsupported provider: acme");
    expect(() => resolveTextOffering({ provider: "openai", model: "gpt-nope" })).toThrow("Unsupported model: gpt-nope");
    expect(() => resolveTextOffering({ provider: "openai", model: "deepseek-chat" })).toThrow(
      "Unsupported model: deepseek-chat",
    );
    expect(resolveTextOffering({ provider: "deepseek", model: "deepseek-chat" }).name).toBe("deepseek");
    expect(() => resolveImageOffering({ provider: "replicate", model: "black-forest-labs/flux-schnell" })).toThrow(
      "Unsupported image provider: replicate",
    );
    expect(() => resolveImageOffering({ provider: "openai", model: "gpt-4o-mini" })).toThrow(
      "Unsupported model: gpt-4o-mini",
    );
  });

  test("missing fields, wrong types, non-objects → invalid params; too long → its own message", async () => {
    const msg = (raw: unknown) => {
      try {
        parseDemoRequest(raw);
        return "ok";
      } catch (e) {
        return (e as AppError).message;
      }
    };
    expect(msg({ provider: "openai", model: "gpt-4o-mini", prompt: "hi" })).toBe("ok");
    expect(msg({ provider: "openai", model: "gpt-4o-mini" })).toBe("invalid params");
    expect(msg({ provider: "openai", prompt: "hi" })).toBe("invalid params");
    expect(msg({ model: "gpt-4o-mini", prompt: "hi" })).toBe("invalid params");
    expect(msg({ provider: "openai", model: "gpt-4o-mini", prompt: "   " })).toBe("invalid params");
    expect(msg({ provider: 1, model: "gpt-4o-mini", prompt: "hi" })).toBe("invalid params");
    expect(msg({ provider: "openai", model: "gpt-4o-mini", prompt: ["hi"] })).toBe("invalid params");
    expect(msg([1, 2])).toBe("invalid params");
    expect(msg("hello")).toBe("invalid params");
    expect(msg(null)).toBe("invalid params");
    expect(msg({ provider: "openai", model: "gpt-4o-mini", prompt: "x".repeat(4000) })).toBe("ok");
    expect(msg({ provider: "openai", model: "gpt-4o-mini", prompt: "x".repeat(4001) })).toBe(
      "invalid params: prompt too long (max 4000)",
    );
    // Another problem besides the length: the general message.
    expect(msg({ provider: 5, model: "gpt-4o-mini", prompt: "x".repeat(4001) })).toBe("invalid params");
  });
});

describe("demo access and rate limit (docs/design.md §5)", () => {
  test("per client through the shared limiter (GCRA, 3 per minute = one per 20 s): deny with Retry-After, free again as time passes", async () => {
    const db = openDatabase(":memory:");
    const clock = manualClock();
    const deps = {
      db,
      config: config({ NODE_ENV: "production", BETTER_AUTH_SECRET: "x".repeat(40), DEMO_RATE_LIMIT: "3" }),
      clock,
    };
    const hit = async (userId: string): Promise<Record<string, string>> => {
      try {
        return await requireDemoAccess(deps, { userId, ip: null });
      } catch (e) {
        return { denied: (e as AppError).message, ...(e as AppError).headers };
      }
    };
    expect(await hit("a")).toMatchObject({
      "X-RateLimit-Limit": "3",
      "X-RateLimit-Remaining": "2",
      "RateLimit-Policy": '"demo";q=3;w=60',
    });
    clock.advance(10_000);
    expect((await hit("a"))["X-RateLimit-Remaining"]).toBe("1");
    expect((await hit("a"))["X-RateLimit-Remaining"]).toBe("0");
    // 3 taken by t0+10 s: the quota is used up until t0+60 s; one request fits again at t0+20 s.
    expect(await hit("a")).toMatchObject({ denied: "Too Many Requests", "Retry-After": "10" });
    expect((await hit("b"))["X-RateLimit-Remaining"]).toBe("2"); // clients are independent
    clock.advance(10_000);
    expect((await hit("a"))["X-RateLimit-Remaining"]).toBe("0");
    expect(await hit("a")).toMatchObject({ denied: "Too Many Requests", "Retry-After": "20" });
    clock.advance(60_000); // a whole window later: the whole quota is back
    expect((await hit("a"))["X-RateLimit-Remaining"]).toBe("2");
  });

  test("development: open to anonymous callers, DEMO_RATE_LIMIT still applies (0 = off)", async () => {
    const db = openDatabase(":memory:");
    const deps = { db, config: config({ NODE_ENV: "development", DEMO_RATE_LIMIT: "1" }), clock: manualClock() };
    expect((await requireDemoAccess(deps, { userId: null, ip: "1.2.3.4" }))["X-RateLimit-Remaining"]).toBe("0");
    expect(requireDemoAccess(deps, { userId: null, ip: "1.2.3.4" })).rejects.toThrow("Too Many Requests");
    const off = { db, config: config({ NODE_ENV: "development", DEMO_RATE_LIMIT: "0" }), clock: manualClock() };
    for (let i = 0; i < 5; i++) expect(await requireDemoAccess(off, { userId: null, ip: "1.2.3.4" })).toEqual({});
  });

  test("production: anonymous refused unless DEMO_PUBLIC; signed-in allowed; limits per user and per IP", async () => {
    const db = openDatabase(":memory:");
    const secret = { NODE_ENV: "production", BETTER_AUTH_SECRET: "x".repeat(40), DEMO_RATE_LIMIT: "2" };
    const closed = { db, config: config(secret), clock: manualClock() };
    await expect(requireDemoAccess(closed, { userId: null, ip: "1.2.3.4" })).rejects.toThrow("no auth, please sign-in");
    expect((await requireDemoAccess(closed, { userId: "u1", ip: "1.2.3.4" }))["X-RateLimit-Remaining"]).toBe("1");
    await requireDemoAccess(closed, { userId: "u1", ip: "1.2.3.4" });
    let limited: AppError | undefined;
    try {
      await requireDemoAccess(closed, { userId: "u1", ip: "1.2.3.4" });
    } catch (e) {
      limited = e as AppError;
    }
    expect(limited?.message).toBe("Too Many Requests");
    expect(limited?.status).toBe(429);
    expect(limited?.headers?.["Retry-After"]).toBe("30"); // 2 per minute: one more fits every 30 s;
    expect((await requireDemoAccess(closed, { userId: "u2", ip: "1.2.3.4" }))["X-RateLimit-Remaining"]).toBe("1");

    const open = { db, config: config({ ...secret, DEMO_PUBLIC: "true" }), clock: manualClock() };
    await requireDemoAccess(open, { userId: null, ip: "9.9.9.9" });
    await requireDemoAccess(open, { userId: null, ip: "9.9.9.9" });
    await expect(requireDemoAccess(open, { userId: null, ip: "9.9.9.9" })).rejects.toThrow("Too Many Requests");
    expect((await requireDemoAccess(open, { userId: null, ip: "8.8.8.8" }))["X-RateLimit-Remaining"]).toBe("1");

    const unlimited = {
      db,
      config: config({ ...secret, DEMO_PUBLIC: "true", DEMO_RATE_LIMIT: "0" }),
      clock: manualClock(),
    };
    for (let i = 0; i < 5; i++) expect(await requireDemoAccess(unlimited, { userId: null, ip: "9.9.9.9" })).toEqual({});
  });

  test("client address: the socket, or the last X-Forwarded-For entry only with TRUST_PROXY", async () => {
    const req = new Request("http://x/", { headers: { "x-forwarded-for": "6.6.6.6, 10.0.0.7" } });
    expect(clientIpOf(config(), req, "127.0.0.1")).toBe("127.0.0.1");
    expect(clientIpOf(config({ TRUST_PROXY: "true" }), req, "127.0.0.1")).toBe("10.0.0.7");
    expect(clientIpOf(config({ TRUST_PROXY: "true" }), new Request("http://x/"), "127.0.0.1")).toBe("127.0.0.1");
  });
});

describe("live text providers through @ai-sdk/openai against a fake OpenAI server", () => {
  let fake: FakeOpenAI;
  let models: ReturnType<typeof createDemoModels>;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ chunkDelayMs: 5 });
    models = createDemoModels(
      config({
        OPENAI_API_KEY: fake.apiKey,
        OPENAI_BASE_URL: fake.baseURL,
        DEEPSEEK_API_KEY: fake.apiKey,
        DEEPSEEK_BASE_URL: fake.baseURL,
        SILICONFLOW_API_KEY: "sk-wrong",
        SILICONFLOW_BASE_URL: fake.baseURL,
        MODEL_MAP: "deepseek:deepseek-chat=deepseek-v3-upstream",
      }),
    );
  });
  afterAll(async () => fake.stop());

  test("openai → Responses API (/v1/responses) with the bearer key", async () => {
    const before = fake.calls.length;
    const r = await generateDemoText({ models }, { provider: "openai", model: "gpt-4o-mini", prompt: "hello there" });
    expect(r).toMatchObject({
      provider: "openai",
      model: "gpt-4o-mini",
      mode: "live",
      text: fakeReply("gpt-4o-mini", "hello there"),
    });
    expect(r.usage.output_tokens).toBe(chunksOf(r.text).length);
    const call = fake.calls[before]!;
    expect(call.path).toBe("/v1/responses");
    expect(call.authorization).toBe(`Bearer ${fake.apiKey}`);
  });

  test("deepseek → Chat Completions (/v1/chat/completions); MODEL_MAP picks the upstream id", async () => {
    const before = fake.calls.length;
    const r = await generateDemoText({ models }, { provider: "deepseek", model: "deepseek-chat", prompt: "hi" });
    expect(r.text).toBe(fakeReply("deepseek-v3-upstream", "hi"));
    expect(r.model).toBe("deepseek-chat");
    expect(fake.calls[before]!.path).toBe("/v1/chat/completions");
  });

  test("providers without a key are simulated", async () => {
    expect(models.text(findTextProvider("openrouter")!, "openai/gpt-4o-mini").mode).toBe("simulated");
  });

  for (const [provider, model] of [
    ["openai", "gpt-4o-mini"],
    ["deepseek", "deepseek-chat"],
  ] as const) {
    test(`${provider}: streamed chunks arrive in order and reassemble to the full text`, async () => {
      const res = await streamDemoText({ models }, { provider, model, prompt: "tell me a story" });
      expect(res.headers.get("content-type")).toContain("text/plain");
      expect(res.headers.get("x-demo-mode")).toBe("live");
      const chunks = await readChunks(res);
      const upstreamModel = provider === "deepseek" ? "deepseek-v3-upstream" : model;
      expect(chunks.length).toBeGreaterThan(3);
      expect(chunks.join("")).toBe(fakeReply(upstreamModel, "tell me a story"));
    });

    test(`${provider}: mid-stream error event ends the stream cleanly with the text so far`, async () => {
      const res = await streamDemoText({ models }, { provider, model, prompt: "break [fake:midstream]" });
      const text = (await readChunks(res)).join("");
      const upstreamModel = provider === "deepseek" ? "deepseek-v3-upstream" : model;
      expect(text).toBe(
        chunksOf(fakeReply(upstreamModel, "break [fake:midstream]")).slice(0, FAKE_FAIL_AFTER).join(""),
      );
    });

    test(`${provider}: a dropped connection mid-stream ends the stream cleanly`, async () => {
      const res = await streamDemoText({ models }, { provider, model, prompt: "drop [fake:drop]" });
      const text = (await readChunks(res)).join("");
      expect(text.length).toBeGreaterThan(0);
      expect(
        fakeReply(provider === "deepseek" ? "deepseek-v3-upstream" : model, "drop [fake:drop]").startsWith(text),
      ).toBe(true);
    });

    test(`${provider}: upstream 500 → envelope error before any stream`, async () => {
      expect(await messageOf(generateDemoText({ models }, { provider, model, prompt: "[fake:500]" }))).toBe(
        `upstream error: ${provider} answered HTTP 500`,
      );
      expect(await messageOf(streamDemoText({ models }, { provider, model, prompt: "[fake:500]" }))).toBe(
        `upstream error: ${provider} answered HTTP 500`,
      );
    });
  }

  test("a wrong key → upstream 401 as an envelope error (text and stream)", async () => {
    const input = { provider: "siliconflow", model: "Qwen/Qwen2.5-7B-Instruct", prompt: "hi" };
    expect(await messageOf(generateDemoText({ models }, input))).toBe("upstream error: siliconflow answered HTTP 401");
    expect(await messageOf(streamDemoText({ models }, input))).toBe("upstream error: siliconflow answered HTTP 401");
  });

  test("an unreachable upstream → envelope error without a status", async () => {
    const dead = createDemoModels(config({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }));
    expect(
      await messageOf(generateDemoText({ models: dead }, { provider: "openai", model: "gpt-4o-mini", prompt: "hi" })),
    ).toBe("upstream error: openai failed");
  });
});

describe("demo images through generateImage", () => {
  let fake: FakeOpenAI;
  const stored: { key: string; bytes: Uint8Array; contentType: string }[] = [];
  // An in-memory ResultStorage: the real ones are tested with the generation engine.
  const storage = {
    kind: "local" as const,
    async put(key: string, bytes: Uint8Array, contentType: string) {
      stored.push({ key, bytes, contentType });
      return `http://localhost:3000/media/${key}`;
    },
  };
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => fake.stop());

  test("openai live: /v1/images/generations with b64_json, one call (maxRetries 0), bytes stored as PNG", async () => {
    const models = createDemoModels(config({ OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.baseURL }));
    const before = fake.calls.length;
    const r = await generateDemoImage(
      { models, storage },
      { provider: "openai", model: "dall-e-3", prompt: "a blue door" },
    );
    expect(r.mode).toBe("live");
    expect(r.result_urls).toHaveLength(1);
    expect(r.result_urls[0]).toMatch(/^http:\/\/localhost:3000\/media\/demo\/.+\.png$/);
    const call = fake.calls[before]!;
    expect(call.path).toBe("/v1/images/generations");
    expect(call.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(call.body).toMatchObject({ model: "dall-e-3", prompt: "a blue door", n: 1, response_format: "b64_json" });
    const file = stored.at(-1)!;
    expect(file.contentType).toBe("image/png");
    expect([...file.bytes.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
  });

  test("openai live: upstream 500 is one call and an envelope error", async () => {
    const models = createDemoModels(config({ OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.baseURL }));
    const before = fake.calls.length;
    expect(
      await messageOf(
        generateDemoImage({ models, storage }, { provider: "openai", model: "dall-e-3", prompt: "[fake:500]" }),
      ),
    ).toBe("upstream error: openai answered HTTP 500");
    expect(fake.calls.length - before).toBe(1);
  });

  test("simulated: a real ImageModelV4 whose pixels come from the renderer it is given", async () => {
    const png = tinyPng(2, 2, [1, 2, 3]);
    const prompts: string[] = [];
    const models = createDemoModels(config(), { renderPng: (p) => (prompts.push(p), png) });
    const r = await generateDemoImage(
      { models, storage },
      { provider: "openai", model: "dall-e-3", prompt: "a green field" },
    );
    expect(r.mode).toBe("simulated");
    expect(prompts).toEqual(["a green field"]);
    expect(stored.at(-1)!.bytes).toEqual(png);
    expect(
      await messageOf(
        generateDemoImage({ models, storage }, { provider: "openai", model: "dall-e-3", prompt: "[simulate:fail]" }),
      ),
    ).toBe("upstream error: openai failed");
  });
});
