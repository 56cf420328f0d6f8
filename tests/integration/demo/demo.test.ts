import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashApiKey } from "~/domain/api-keys/authenticate.server";
import { grantCredits } from "~/domain/credits/ledger.server";
import { systemClock } from "~/lib/clock";
import { simulatedReply, wordChunks } from "~/providers/simulator/language-model.server";
import { chunksOf, FAKE_FAIL_AFTER, type FakeOpenAI, fakeReply, startFakeOpenAI } from "../../fakes/openai-text";
import { type Auth, Client, type Reply, uniqueEmail } from "../../support/client";
import { insertApiKey, openServerDb } from "../../support/db";
import { startServer, type TestServer } from "../../support/server";

/** Headers every demo call of the current describe sends (the paying caller's key, where live calls are made). */
let callerHeaders: Record<string, string> = {};

/** Posts to the stream endpoint and records each chunk with its arrival time. */
async function streamPost(url: string, body: unknown, headers: Record<string, string> = {}) {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...callerHeaders, ...headers },
    body: JSON.stringify(body),
  });
  const chunks: { text: string; at: number }[] = [];
  if (!(res.headers.get("content-type") ?? "").startsWith("text/plain")) return { res, chunks, json: await res.json() };
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = dec.decode(value, { stream: true });
    if (text) chunks.push({ text, at: performance.now() - t0 });
  }
  return { res, chunks, json: null as any };
}

const ENDPOINTS = ["/api/demo/gen-text", "/api/demo/gen-stream-text"] as const;

/** A client whose calls carry an API key unless told otherwise (live demo calls are paid: docs/design.md §5). */
class KeyClient extends Client {
  constructor(
    baseUrl: string,
    private readonly key: string,
  ) {
    super(baseUrl);
  }
  override post<T = any>(path: string, body?: unknown, auth: Auth = {}, init: RequestInit = {}): Promise<Reply<T>> {
    return super.post<T>(path, body, auth.cookie || auth.apiKey !== undefined ? auth : { apiKey: this.key }, init);
  }
}

/** A signed-up user with plenty of credits and an API key: the payer of the live demo calls. */
async function payingKey(server: TestServer): Promise<string> {
  const { userId } = await new Client(server.url).signUp(uniqueEmail("demo-payer"));
  const db = await openServerDb(server.dataDir);
  try {
    await db.tx(function* (t) {
      yield* grantCredits(t, { userId, amount: 100_000, source: "admin" }, systemClock);
    });
    return await insertApiKey(db, userId);
  } finally {
    await db.close();
  }
}

describe("demo endpoints in development (open), live and simulated", () => {
  let server: TestServer;
  let api: Client;
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ chunkDelayMs: 15 });
    server = await startServer({
      env: {
        NODE_ENV: "development",
        OPENAI_API_KEY: fake.apiKey,
        OPENAI_BASE_URL: fake.baseURL,
        DEEPSEEK_API_KEY: fake.apiKey,
        DEEPSEEK_BASE_URL: fake.baseURL,
        SILICONFLOW_API_KEY: "sk-wrong-key",
        SILICONFLOW_BASE_URL: fake.baseURL,
        DEMO_SIMULATOR_WORD_MS: "15",
        DEMO_RATE_LIMIT: "0",
        RATE_LIMIT_STANDARD: "100000",
      },
    });
    const key = await payingKey(server);
    api = new KeyClient(server.url, key);
    callerHeaders = { "x-api-key": key };
  });
  afterAll(async () => {
    callerHeaders = {};
    await server?.dispose();
    await fake?.stop();
  });

  test("gen-text, simulated provider: envelope with provider, model, mode, text, usage", async () => {
    const r = await api.post("/api/demo/gen-text", {
      provider: "openrouter",
      model: "openai/gpt-4o-mini",
      prompt: "a lighthouse at dusk",
    });
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    const text = simulatedReply("openrouter", "openai/gpt-4o-mini", "a lighthouse at dusk");
    expect(r.body.data).toEqual({
      provider: "openrouter",
      model: "openai/gpt-4o-mini",
      mode: "simulated",
      text,
      usage: { input_tokens: 4, output_tokens: wordChunks(text).length, total_tokens: 4 + wordChunks(text).length },
    });
  });

  test("gen-text, openai live: Responses API on the fake with the bearer key", async () => {
    const before = fake.calls.length;
    const r = await api.post("/api/demo/gen-text", { provider: "openai", model: "gpt-4.1-mini", prompt: "hello" });
    expect(r.body.code).toBe(0);
    expect(r.body.data.text).toBe(fakeReply("gpt-4.1-mini", "hello"));
    expect(r.body.data.mode).toBe("live");
    expect(fake.calls.slice(before).map((c) => [c.path, c.authorization])).toEqual([
      ["/v1/responses", `Bearer ${fake.apiKey}`],
    ]);
  });

  test("gen-text, deepseek live: Chat Completions on the fake", async () => {
    const before = fake.calls.length;
    const r = await api.post("/api/demo/gen-text", { provider: "deepseek", model: "deepseek-chat", prompt: "hi" });
    expect(r.body.data.text).toBe(fakeReply("deepseek-chat", "hi"));
    expect(fake.calls[before]!.path).toBe("/v1/chat/completions");
  });

  for (const [provider, model, expected] of [
    ["openai", "gpt-4o-mini", fakeReply("gpt-4o-mini", "tell me about rivers")],
    ["deepseek", "deepseek-chat", fakeReply("deepseek-chat", "tell me about rivers")],
    [
      "openrouter",
      "meta-llama/llama-3.3-70b-instruct",
      simulatedReply("openrouter", "meta-llama/llama-3.3-70b-instruct", "tell me about rivers"),
    ],
  ] as const) {
    test(`gen-stream-text (${provider}): plain text, several chunks over time, in order, reassembling to the full text`, async () => {
      const { res, chunks } = await streamPost(`${server.url}/api/demo/gen-stream-text`, {
        provider,
        model,
        prompt: "tell me about rivers",
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      // At least two reads (a loaded machine may coalesce chunks in transit; the timing check below proves streaming).
      expect(chunks.length).toBeGreaterThanOrEqual(2);
      expect(chunks.map((c) => c.text).join("")).toBe(expected);
      // Streamed, not buffered: the last chunk arrives clearly after the first (15 ms per word upstream).
      expect(chunks.at(-1)!.at - chunks[0]!.at).toBeGreaterThan(50);
    });
  }

  test("DEMO_RATE_LIMIT=0 turns the demo limit off", async () => {
    for (let i = 0; i < 3; i++) {
      const r = await api.post("/api/demo/gen-text", {
        provider: "openrouter",
        model: "openai/gpt-4o-mini",
        prompt: `n${i}`,
      });
      expect(r.body.code).toBe(0);
    }
  });

  for (const path of ENDPOINTS) {
    test(`${path}: bad input → envelope errors (HTTP 200, code 1, data null)`, async () => {
      const cases: [unknown, string][] = [
        [{}, "invalid params"],
        [{ provider: "openai", model: "gpt-4o-mini" }, "invalid params"],
        [{ provider: "openai", prompt: "x" }, "invalid params"],
        [{ model: "gpt-4o-mini", prompt: "x" }, "invalid params"],
        [{ provider: "openai", model: "gpt-4o-mini", prompt: 42 }, "invalid params"],
        ["[1,2]", "invalid params"],
        ["{not json", "invalid params: body is not valid JSON"],
        [
          { provider: "openai", model: "gpt-4o-mini", prompt: "x".repeat(4001) },
          "invalid params: prompt too long (max 4000)",
        ],
        [{ provider: "acme", model: "gpt-4o-mini", prompt: "x" }, "Unsupported provider: acme"],
        [{ provider: "openai", model: "gpt-9", prompt: "x" }, "Unsupported model: gpt-9"],
        [{ provider: "deepseek", model: "gpt-4o-mini", prompt: "x" }, "Unsupported model: gpt-4o-mini"],
      ];
      for (const [body, message] of cases) {
        const r = await api.post(path, body);
        expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: { code: 1, message, data: null } });
      }
    });

    test(`${path}: upstream 401 and 500 → envelope errors`, async () => {
      const wrongKey = await api.post(path, {
        provider: "siliconflow",
        model: "Qwen/Qwen2.5-7B-Instruct",
        prompt: "hi",
      });
      expect(wrongKey.body).toEqual({ code: 1, message: "upstream error: siliconflow answered HTTP 401", data: null });
      const down = await api.post(path, { provider: "openai", model: "gpt-4o-mini", prompt: "[fake:500]" });
      expect(down.body).toEqual({ code: 1, message: "upstream error: openai answered HTTP 500", data: null });
    });

    test(`${path}: GET → 405`, async () => {
      const res = await fetch(server.url + path);
      expect(res.status).toBe(405);
      expect(await res.json()).toEqual({ code: 1, message: "method not allowed", data: null });
    });
  }

  test("gen-image, openai live: generateImage on the fake (b64_json), stored and served from /media", async () => {
    const before = fake.calls.length;
    const r = await api.post("/api/demo/gen-image", { provider: "openai", model: "dall-e-3", prompt: "a paper boat" });
    expect(r.body.code).toBe(0);
    expect(r.body.data).toMatchObject({ provider: "openai", model: "dall-e-3", mode: "live" });
    expect(r.body.data.result_urls).toHaveLength(1);
    const url: string = r.body.data.result_urls[0];
    expect(url.startsWith(`${server.url}/media/demo/`)).toBe(true);
    expect(fake.calls.slice(before).map((c) => c.path)).toEqual(["/v1/images/generations"]);
    const img = await fetch(url);
    expect(img.status).toBe(200);
    expect(img.headers.get("content-type")).toContain("image/png");
    expect([...new Uint8Array(await img.arrayBuffer()).subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
  });

  test("gen-image errors: unknown provider / model, bad input, upstream 500 (one call, no retry)", async () => {
    const cases: [unknown, string][] = [
      [
        { provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "x" },
        "Unsupported image provider: replicate",
      ],
      [{ provider: "openai", model: "gpt-4o-mini", prompt: "x" }, "Unsupported model: gpt-4o-mini"],
      [{ provider: "openai", model: "dall-e-3" }, "invalid params"],
      [
        { provider: "openai", model: "dall-e-3", prompt: "x".repeat(4001) },
        "invalid params: prompt too long (max 4000)",
      ],
    ];
    for (const [body, message] of cases)
      expect((await api.post("/api/demo/gen-image", body)).body).toEqual({ code: 1, message, data: null });
    const before = fake.calls.length;
    const down = await api.post("/api/demo/gen-image", { provider: "openai", model: "dall-e-3", prompt: "[fake:500]" });
    expect(down.body).toEqual({ code: 1, message: "upstream error: openai answered HTTP 500", data: null });
    expect(fake.calls.length - before).toBe(1);
  });

  test("simulated failure: gen-text → envelope error; stream → words so far, then a clean end", async () => {
    const r = await api.post("/api/demo/gen-text", {
      provider: "openrouter",
      model: "openai/gpt-4o-mini",
      prompt: "oops [simulate:fail]",
    });
    expect(r.body).toEqual({ code: 1, message: "upstream error: openrouter failed", data: null });
    const { res, chunks } = await streamPost(`${server.url}/api/demo/gen-stream-text`, {
      provider: "openrouter",
      model: "openai/gpt-4o-mini",
      prompt: "oops [simulate:fail]",
    });
    expect(res.status).toBe(200);
    expect(chunks.map((c) => c.text).join("")).toBe(
      wordChunks(simulatedReply("openrouter", "openai/gpt-4o-mini", "oops [simulate:fail]"))
        .slice(0, 3)
        .join(""),
    );
  });

  for (const marker of ["[fake:midstream]", "[fake:drop]"]) {
    test(`upstream failure mid-stream (${marker}): the stream ends cleanly and the failure is logged`, async () => {
      const prompt = `go ${marker}`;
      const logged = () => server.logs().split("demo stream ended by an upstream error").length - 1;
      const before = logged();
      const { res, chunks } = await streamPost(`${server.url}/api/demo/gen-stream-text`, {
        provider: "openai",
        model: "gpt-4o-mini",
        prompt,
      });
      expect(res.status).toBe(200);
      const text = chunks.map((c) => c.text).join("");
      const full = fakeReply("gpt-4o-mini", prompt);
      const partial = chunksOf(full).slice(0, FAKE_FAIL_AFTER).join("");
      // An error event arrives after every chunk before it; a dropped connection may lose what was still in flight.
      if (marker === "[fake:midstream]") expect(text).toBe(partial);
      else expect({ prefix: partial.startsWith(text), text }).toEqual({ prefix: true, text });
      // The server is still healthy and the failure is in its log.
      for (let i = 0; i < 40 && logged() === before; i++) await Bun.sleep(25);
      expect(logged()).toBeGreaterThan(before);
      const again = await api.post("/api/demo/gen-text", {
        provider: "openai",
        model: "gpt-4o-mini",
        prompt: "still there?",
      });
      expect(again.body.code).toBe(0);
    });
  }
});

describe("demo endpoints in production (docs/design.md §5)", () => {
  let server: TestServer;
  let api: Client;
  const body = { provider: "openrouter", model: "openai/gpt-4o-mini", prompt: "prod" };

  beforeAll(async () => {
    server = await startServer({
      env: {
        NODE_ENV: "production",
        BETTER_AUTH_SECRET: "it-secret-it-secret-it-secret-it-secret",
        DEMO_RATE_LIMIT: "3",
        DEMO_SIMULATOR_WORD_MS: "1",
      },
    });
    api = new Client(server.url);
  });
  afterAll(() => server?.dispose());

  test("anonymous → no auth, please sign-in (even with a bad body)", async () => {
    for (const path of [...ENDPOINTS, "/api/demo/gen-image"]) {
      expect((await api.post(path, body)).body).toEqual({ code: 1, message: "no auth, please sign-in", data: null });
      expect((await api.post(path, "{bad")).body).toEqual({ code: 1, message: "no auth, please sign-in", data: null });
    }
  });

  test("a session is allowed, with a per-user limit of DEMO_RATE_LIMIT per minute (429 + Retry-After)", async () => {
    const { cookie } = await api.signUp(uniqueEmail("demo-prod"));
    const first = await api.post("/api/demo/gen-text", body, { cookie });
    expect(first.body.code).toBe(0);
    expect(first.headers.get("x-ratelimit-limit")).toBe("3");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("2");
    const { res, chunks } = await streamPost(`${server.url}/api/demo/gen-stream-text`, body, { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("1");
    expect(chunks.map((c) => c.text).join("")).toBe(simulatedReply("openrouter", "openai/gpt-4o-mini", "prod"));
    expect((await api.post("/api/demo/gen-text", body, { cookie })).body.code).toBe(0);
    const limited = await api.post("/api/demo/gen-text", body, { cookie });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ code: 1, message: "Too Many Requests", data: null });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another user has their own allowance.
    const other = await api.signUp(uniqueEmail("demo-prod-2"));
    expect((await api.post("/api/demo/gen-text", body, { cookie: other.cookie })).body.code).toBe(0);
  });

  test("an API key is allowed; a bad key is refused with 401", async () => {
    const { userId } = await api.signUp(uniqueEmail("demo-key"));
    const key = `atl_${crypto.randomUUID().replaceAll("-", "")}`;
    const db = await openServerDb(server.dataDir);
    await db
      .raw(
        "INSERT INTO api_keys (id, user_id, name, start, key_hash, status, created_at) VALUES (?, ?, 'demo', ?, ?, 'active', ?)",
      )
      .run(crypto.randomUUID(), userId, key.slice(0, 8), hashApiKey(key), Date.now());
    await db.close();
    expect((await api.post("/api/demo/gen-text", body, { apiKey: key })).body.code).toBe(0);
    const bad = await api.post("/api/demo/gen-text", body, { apiKey: "atl_nope" });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ code: 1, message: "API key not found", data: null });
  });

  test("the playground page asks anonymous visitors to sign in", async () => {
    const res = await fetch(`${server.url}/playground`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/sign-in?next=%2Fplayground");
  });
});

describe("demo endpoints in production with DEMO_PUBLIC=true", () => {
  let server: TestServer;
  let api: Client;
  const body = { provider: "siliconflow", model: "Qwen/Qwen2.5-7B-Instruct", prompt: "public" };

  beforeAll(async () => {
    server = await startServer({
      env: {
        NODE_ENV: "production",
        BETTER_AUTH_SECRET: "it-secret-it-secret-it-secret-it-secret",
        DEMO_PUBLIC: "true",
        DEMO_RATE_LIMIT: "2",
        TRUST_PROXY: "true",
        DEMO_SIMULATOR_WORD_MS: "1",
      },
    });
    api = new Client(server.url);
  });
  afterAll(() => server?.dispose());

  test("anonymous clients are allowed, limited per client address", async () => {
    const from = (ip: string) => ({ headers: { "x-forwarded-for": ip } });
    expect((await api.post("/api/demo/gen-text", body, {}, from("203.0.113.5"))).body.code).toBe(0);
    const { res } = await streamPost(`${server.url}/api/demo/gen-stream-text`, body, {
      "x-forwarded-for": "203.0.113.5",
    });
    expect(res.status).toBe(200);
    const third = await api.post("/api/demo/gen-stream-text", body, {}, from("203.0.113.5"));
    expect(third.status).toBe(429);
    expect(third.body.message).toBe("Too Many Requests");
    // A different address has its own allowance.
    expect((await api.post("/api/demo/gen-text", body, {}, from("198.51.100.7"))).body.code).toBe(0);
  });

  test("gen-image, simulated (no OpenAI key): a rendered PNG, stored and served", async () => {
    const r = await api.post(
      "/api/demo/gen-image",
      { provider: "openai", model: "dall-e-3", prompt: "a quiet lake" },
      {},
      { headers: { "x-forwarded-for": "192.0.2.44" } },
    );
    expect(r.body.code).toBe(0);
    expect(r.body.data.mode).toBe("simulated");
    const img = await fetch(r.body.data.result_urls[0]);
    expect(img.status).toBe(200);
    const bytes = new Uint8Array(await img.arrayBuffer());
    expect([...bytes.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    expect(bytes.length).toBeGreaterThan(500);
  });

  test("the playground page is open", async () => {
    const res = await fetch(`${server.url}/playground`, { redirect: "manual" });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Playground");
  });
});
