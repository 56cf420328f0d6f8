/**
 * review3: a live demo text call costs a flat DEMO_TEXT_CREDITS (1 credit,
 * 3–5 cents at the seeded pack prices) but asked the provider for as many
 * output tokens as the model allows — gpt-4.1-mini writes up to 32,768 (about
 * 5 cents of output alone), OpenRouter's models more. One prompt ("repeat this
 * word 50,000 times") turned each paid credit into the model's whole output
 * budget, billed to the operator, and kept a stream open for minutes. Now every
 * live demo text call (generate and stream, Responses and Chat Completions)
 * asks for at most DEMO_TEXT_MAX_OUTPUT_TOKENS.
 */
import { beforeAll, expect, test } from "bun:test";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-text";
import { uniqueEmail } from "../support/client";
import { insertApiKey, openServerDb } from "../support/db";
import { serverForFile } from "../support/file-server";

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
