/**
 * The demo costs what it costs the operator (docs/design.md §5): a live call is paid even when the client hangs up,
 * the playground page charges like the JSON endpoints, anonymous limits count an IPv6 /64 as one client, and live
 * text calls ask the provider for at most DEMO_TEXT_MAX_OUTPUT_TOKENS.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type FakeOpenAI, startFakeOpenAI } from "../../fakes/openai-text";
import { uniqueEmail } from "../../support/client";
import { insertApiKey, openServerDb } from "../../support/db";
import { serverForFile } from "../../support/file-server";
import { type OpenAIServer, startOpenAIServer } from "../../support/openai-server";

setDefaultTimeout(30_000);

/**
 * A demo call that reaches a live, paid provider costs the catalog price (docs/design.md §5) on the /playground page's
 * form action too, which calls the same live models: with no credits the upstream is never called.
 */
describe("the playground charges like the JSON endpoints", () => {
  let o: OpenAIServer;
  beforeAll(
    async () =>
      void (o = await startOpenAIServer({
        NODE_ENV: "production",
        BETTER_AUTH_SECRET: "it-secret-it-secret-it-secret-it-secret",
        SIGNUP_CREDITS: "0",
      })),
  );
  afterAll(() => o?.stop());

  test("the playground's live image costs its price: with no credits the upstream is never called", async () => {
    const { cookie } = await o.signUp("playground");
    expect(await o.credits(cookie)).toBe(0);
    // The JSON endpoint refuses (insufficient credits) without reaching the provider.
    const json = await o.api.post(
      "/api/demo/gen-image",
      { provider: "openai", model: "dall-e-3", prompt: "a paper boat" },
      { cookie },
    );
    expect(json.body.code).toBe(1);
    expect(o.upstreamCalls()).toEqual([]);

    const res = await fetch(`${o.server.url}/playground`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: o.server.url, cookie },
      body: new URLSearchParams({ intent: "image", target: "openai:dall-e-3", prompt: "a paper boat" }),
    });
    const html = await res.text();
    expect(o.upstreamCalls()).toEqual([]); // the paid provider was reached for free
    expect(html).toContain("insufficient credits");
  });
});

/**
 * A live demo call is paid before the upstream call and given back only if the upstream fails. A client that
 * disconnects aborts the SDK call, but the paid provider was reached and bills the operator: the credits stay spent
 * (docs/decisions/059-paid-demo-call-on-disconnect.md).
 */
describe("a client that hangs up still pays for the live call", () => {
  let o: OpenAIServer;
  // A slow OpenAI Images API: answers after 1.5 s (a real one bills the image whether or not we wait).
  beforeAll(
    async () =>
      void (o = await startOpenAIServer({ NODE_ENV: "development", SIGNUP_CREDITS: "10" }, { delayMs: 1500 })),
  );
  afterAll(() => o?.stop());

  test("a client that disconnects during a live demo image still pays for the upstream call it caused", async () => {
    const { cookie } = await o.signUp("demoabort");
    const abort = new AbortController();
    const pending = fetch(`${o.server.url}/api/demo/gen-image`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, origin: o.server.url },
      body: JSON.stringify({ provider: "openai", model: "dall-e-3", prompt: "a paper boat" }),
      signal: abort.signal,
    }).catch(() => null);
    const deadline = Date.now() + 10_000;
    while (o.upstreamCalls().length === 0) {
      if (Date.now() > deadline) throw new Error("the upstream was never called");
      await Bun.sleep(20);
    }
    abort.abort();
    await pending;
    await Bun.sleep(2500); // the upstream answers meanwhile; the server has settled the charge
    expect(o.upstreamCalls()).toEqual(["/v1/images/generations"]);
    // dall-e-3 costs 5 in the catalog: the reached upstream is paid for.
    expect(await o.credits(cookie)).toBe(5);
  });
});

/**
 * An IPv6 host owns a whole /64 and may rotate its source address at will, so the anonymous demo limit
 * (DEMO_RATE_LIMIT per client address) counts a /64 as one client, as better-auth's limiter does; IPv4 and IPv4-mapped
 * addresses stay per address (docs/decisions/073-demo-ipv6-64-buckets.md).
 */
describe("the anonymous limit counts an IPv6 /64 as one client", () => {
  const LIMIT = 3;
  // TRUST_PROXY: the client address comes from the proxy's X-Forwarded-For (as behind nginx), so the test can choose it.
  const s = serverForFile({ env: { DEMO_PUBLIC: "true", DEMO_RATE_LIMIT: String(LIMIT), TRUST_PROXY: "true" } });

  const demo = (clientIp: string) =>
    fetch(`${s.server.url}/api/demo/gen-text`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": clientIp },
      body: JSON.stringify({ provider: "openrouter", model: "openai/gpt-4o-mini", prompt: "hello" }),
    });

  test(`10 anonymous calls from 10 addresses of one IPv6 /64 get ${LIMIT} answers, then 429`, async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 10; i++) {
      const r = await demo(`2001:db8:7:9:${i.toString(16)}:beef:${(i * 7).toString(16)}:1`);
      await r.text();
      statuses.push(r.status);
    }
    console.log(`statuses from one /64: ${statuses.join(",")}`);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT).every((s) => s === 429)).toBe(true);
  });

  test("another /64, and IPv4 addresses, each keep their own count", async () => {
    const other = await demo("2001:db8:7:a::1");
    expect(other.status).toBe(200);
    await other.text();
    for (const ip of ["198.51.100.7", "198.51.100.8"]) {
      const r = await demo(ip);
      expect({ ip, status: r.status }).toEqual({ ip, status: 200 });
      await r.text();
    }
  });
});

/**
 * A live demo text call costs a flat DEMO_TEXT_CREDITS, so the provider must not be asked for the model's whole output
 * budget (billed to the operator, and a stream open for minutes): every live demo text call (generate and stream,
 * Responses and Chat Completions) asks for at most DEMO_TEXT_MAX_OUTPUT_TOKENS (docs/decisions/070-demo-text-output-cap.md).
 */
describe("live demo text asks for at most DEMO_TEXT_MAX_OUTPUT_TOKENS", () => {
  /** The documented cap (docs/decisions/070-demo-text-output-cap.md). */
  const CAP = 1024;

  let fake: FakeOpenAI;
  let key: string;

  const s = serverForFile(
    async () => {
      fake = await startFakeOpenAI();
      return {
        env: {
          OPENAI_API_KEY: fake.apiKey,
          OPENAI_BASE_URL: fake.baseURL,
          DEEPSEEK_API_KEY: fake.apiKey,
          DEEPSEEK_BASE_URL: fake.baseURL,
          DEMO_RATE_LIMIT: "0",
        },
      };
    },
    () => fake?.stop(),
  );
  beforeAll(async () => {
    const { userId } = await s.api.signUp(uniqueEmail("demo-cap")); // SIGNUP_CREDITS: 10
    const db = await openServerDb(s.server.dataDir);
    key = await insertApiKey(db, userId);
    await db.close();
  });

  const call = (path: string, body: unknown) =>
    fetch(s.server.url + path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify(body),
    });

  /** The output bound the upstream request asked for: Responses `max_output_tokens`, Chat `max_tokens` / `max_completion_tokens`. */
  const askedFor = (body: any): unknown => body?.max_output_tokens ?? body?.max_completion_tokens ?? body?.max_tokens;

  for (const [path, provider, model] of [
    ["/api/demo/gen-text", "openai", "gpt-4.1-mini"],
    ["/api/demo/gen-stream-text", "openai", "gpt-4o-mini"],
    ["/api/demo/gen-text", "deepseek", "deepseek-chat"],
    ["/api/demo/gen-stream-text", "deepseek", "deepseek-chat"],
  ] as const) {
    test(`${path} (${provider} live) asks the provider for at most ${CAP} output tokens`, async () => {
      const before = fake.calls.length;
      const res = await call(path, { provider, model, prompt: "Repeat the word 'credit' 50,000 times." });
      expect(res.status).toBe(200);
      await res.text();
      const sent = fake.calls
        .slice(before)
        .filter((c) => c.path.endsWith("/responses") || c.path.endsWith("/chat/completions"));
      expect(sent).toHaveLength(1);
      const bound = askedFor(sent[0]!.body);
      console.log(`${path} ${provider}: output bound sent upstream = ${JSON.stringify(bound)}`);
      expect(typeof bound).toBe("number");
      expect(bound as number).toBeLessThanOrEqual(CAP);
    });
  }
});
