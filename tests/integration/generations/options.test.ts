/**
 * Per-model options over HTTP: bad options are refused with their exact
 * message before anything is written (no task, nothing reserved, nothing sent
 * upstream); good ones are stored and arrive at the provider (Replicate live
 * against its fake, which validates flux-schnell's input schema).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ReplicateFake, startReplicateFake } from "../../fakes/replicate";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";

const CREDITS = 50;
const flux = {
  ai_type: "image",
  provider: "replicate",
  model: "black-forest-labs/flux-schnell",
  prompt: "a red fox in snow",
};
let fake: ReplicateFake;
let server: TestServer;
let c: Client;

beforeAll(async () => {
  fake = startReplicateFake();
  fake.steps = { starting: 0, processing: 0 };
  server = await startServer({
    env: {
      REPLICATE_API_TOKEN: fake.token,
      REPLICATE_BASE_URL: fake.baseUrl,
      OUTBOUND_ALLOW_PRIVATE: "true",
      SIGNUP_CREDITS: String(CREDITS),
    },
  });
  c = new Client(server.url);
});
afterAll(async () => {
  await server?.dispose();
  await fake?.stop();
});

// Messages written out here, not imported from the code under test.
const CASES: [string, Record<string, unknown>, string][] = [
  [
    "1 MB of options",
    { ...flux, options: { negative: "x".repeat(1_000_000) } },
    "invalid params: options must be at most 8192 bytes of JSON",
  ],
  [
    "an unknown key",
    { ...flux, options: { num_outputs: 4 } },
    "invalid params: options.num_outputs is not accepted by black-forest-labs/flux-schnell (accepted: aspect_ratio, seed, output_format, output_quality, num_inference_steps, megapixels, go_fast)",
  ],
  [
    "a ratio flux does not offer",
    { ...flux, options: { aspect_ratio: "2:1" } },
    "invalid params: options.aspect_ratio must be one of 1:1, 16:9, 21:9, 3:2, 2:3, 4:5, 5:4, 3:4, 4:3, 9:16, 9:21",
  ],
  [
    "a negative seed",
    { ...flux, options: { seed: -1 } },
    "invalid params: options.seed must be an integer from 0 to 2147483647",
  ],
  [
    "Runway duration 30",
    { ai_type: "video", provider: "runway", model: "gen4.5", prompt: "waves", options: { duration: 30 } },
    "invalid params: options.duration must be an integer from 2 to 10",
  ],
  [
    "Kling 7 seconds",
    { ai_type: "video", provider: "kling", model: "kling-v1-6", prompt: "waves", options: { duration: 7 } },
    "invalid params: options.duration must be one of 5, 10",
  ],
  [
    "DALL·E 3 with gpt-image's size",
    { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "x", options: { size: "1536x1024" } },
    "invalid params: options.size must be one of 1024x1024, 1792x1024, 1024x1792",
  ],
];

describe("bad options: exact message, nothing stored, nothing sent upstream", () => {
  for (const [label, body, message] of CASES) {
    test(label, async () => {
      const { cookie } = await c.signUp(uniqueEmail("opts"));
      fake.state.reset();
      const r = await c.post("/api/generator/generate", body, { cookie });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ code: 1, message, data: null });
      const history = await c.post("/api/generator/history", {}, { cookie });
      expect(history.body.data.total).toBe(0);
      const credits = await c.post("/api/get-user-credits", undefined, { cookie });
      expect(credits.body.data.left_credits).toBe(CREDITS);
      expect(fake.state.requests).toEqual([]);
    });
  }
});

describe("good options", () => {
  test("are accepted and arrive upstream as given", async () => {
    const { cookie } = await c.signUp(uniqueEmail("opts-ok"));
    fake.state.reset();
    const options = { aspect_ratio: "16:9", seed: 42, output_format: "png" };
    const r = await c.post("/api/generator/generate", { ...flux, options }, { cookie });
    expect(r.body.code).toBe(0);
    for (let i = 0; i < 100; i++) {
      const q = await c.post("/api/generator/query", { gen_id: r.body.data.gen_id }, { cookie });
      if (q.body.data.status === "completed") break;
      expect(q.body.data.status).not.toBe("failed");
      await Bun.sleep(100);
    }
    const create = fake.state.requests.find((q) => q.method === "POST")!;
    expect(create.body).toEqual({ input: { prompt: flux.prompt, ...options } });
  });
});
