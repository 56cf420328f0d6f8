/**
 * A production-build server whose OpenAI is the Images API fake
 * (tests/fakes/openai.ts): for demo and playground tests that must see whether,
 * and how often, the paid provider was reached. The demo rate limit is off.
 *
 *   let o: OpenAIServer;
 *   beforeAll(async () => void (o = await startOpenAIServer({ SIGNUP_CREDITS: "0" })));
 *   afterAll(() => o?.stop());
 */
import { type OpenAIFake, startOpenAIFake } from "../fakes/openai";
import { Client, uniqueEmail } from "./client";
import { startServer, type TestServer } from "./server";

export interface OpenAIServer {
  openai: OpenAIFake;
  server: TestServer;
  api: Client;
  /** The paths the fake OpenAI was called on, in order. */
  upstreamCalls(): string[];
  /** A new account (e-mail from `tag`) and its session cookie. */
  signUp(tag: string): Promise<{ cookie: string }>;
  /** `left_credits` through the public API. */
  credits(cookie: string): Promise<number>;
  stop(): Promise<void>;
}

export async function startOpenAIServer(
  env: Record<string, string> = {},
  opts: { delayMs?: number } = {},
): Promise<OpenAIServer> {
  const openai = startOpenAIFake();
  openai.delayMs = opts.delayMs ?? 0;
  const server = await startServer({
    env: { OPENAI_API_KEY: openai.apiKey, OPENAI_BASE_URL: openai.baseUrl, DEMO_RATE_LIMIT: "0", ...env },
  }).catch(async (e) => {
    await openai.stop();
    throw e;
  });
  const api = new Client(server.url);
  return {
    openai,
    server,
    api,
    upstreamCalls: () => openai.state.requests.map((r) => r.path),
    signUp: (tag) => api.signUp(uniqueEmail(tag)),
    credits: async (cookie) => (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits,
    async stop() {
      await server.dispose();
      await openai.stop();
    },
  };
}
