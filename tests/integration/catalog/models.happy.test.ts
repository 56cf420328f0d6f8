/**
 * POST /api/models and the fal and Google providers through the whole service: live against their fakes (fal's
 * queue, Gemini/Imagen/Veo), and simulated without keys. A text prompt alone runs an image and a video model of
 * each; a prompt the provider fails ends `failed` and costs nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FalFake, startFalFake } from "../../fakes/fal";
import { type GoogleFake, startGoogleFake } from "../../fakes/google";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";

async function waitForFinal(api: Client, cookie: string, id: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api.post("/api/generator/query", { gen_id: id }, { cookie });
    if (r.body.data.status === "completed" || r.body.data.status === "failed") return r.body.data;
    if (Date.now() > deadline) throw new Error(`task ${id} still ${r.body.data.status}`);
    await Bun.sleep(150);
  }
}

const textOnly = (models: any[], provider: string, aiType: string) =>
  models.filter((m) => m.provider === provider && m.ai_type === aiType && !m.options.required?.length);

let fal: FalFake;
let google: GoogleFake;
let live: TestServer;
let simulated: TestServer;

beforeAll(async () => {
  fal = startFalFake();
  google = startGoogleFake();
  fal.steps = { queued: 1, running: 0 };
  google.pollsBeforeDone = 0;
  [live, simulated] = await Promise.all([
    startServer({
      env: {
        FAL_KEY: fal.key,
        FAL_QUEUE_URL: fal.baseUrl,
        GEMINI_API_KEY: google.apiKey,
        GEMINI_BASE_URL: google.baseUrl,
        OUTBOUND_ALLOW_PRIVATE: "true",
        SIGNUP_CREDITS: "500",
      },
    }),
    startServer({ env: { SIGNUP_CREDITS: "500", SIMULATOR_DELAY_MS: "50" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([live?.dispose(), simulated?.dispose()]);
  await Promise.all([fal?.stop(), google?.stop()]);
});

describe("POST /api/models", () => {
  test("no sign-in needed; every model with price, mode, inputs and a JSON Schema of its options", async () => {
    const r = await new Client(simulated.url).post("/api/models", undefined);
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    const models = r.body.data.models as any[];
    const dalle = models.find((m) => m.provider === "openai" && m.model === "dall-e-3");
    expect(dalle).toEqual({
      ai_type: "image",
      provider: "openai",
      model: "dall-e-3",
      label: "DALL·E 3",
      credits: 5,
      pricing: { base: 5 },
      mode: "simulated",
      inputs: ["text"],
      options: {
        type: "object",
        properties: {
          size: { type: "string", enum: ["1024x1024", "1792x1024", "1024x1792"], default: "1024x1024", title: "Size" },
          quality: { type: "string", enum: ["standard", "hd"], default: "standard", title: "Quality" },
          style: { type: "string", enum: ["vivid", "natural"], default: "vivid", title: "Style" },
        },
        additionalProperties: false,
      },
      typical_seconds: 0.05,
      requires_plan: false,
    });
    const i2v = models.find((m) => m.model === "fal-ai/kling-video/v1.6/standard/image-to-video");
    expect(i2v.inputs).toEqual(["text", "image"]);
    expect(i2v.options.required).toEqual(["image"]);
    expect(i2v.options.properties.image["x-atelier-type"]).toBe("image");
  });

  test("fal and google each offer an image and a video model a text prompt alone runs; live when the key is set", async () => {
    for (const [server, mode] of [
      [live, "live"],
      [simulated, "simulated"],
    ] as const) {
      const models = (await new Client(server.url).post("/api/models", undefined)).body.data.models as any[];
      for (const provider of ["fal", "google"])
        for (const aiType of ["image", "video"]) {
          const found = textOnly(models, provider, aiType);
          expect({ provider, aiType, count: found.length > 0 }).toEqual({ provider, aiType, count: true });
          for (const m of found) {
            expect(m.inputs).toContain("text");
            expect(m.mode).toBe(mode);
          }
        }
    }
  });
});

describe("fal and Google through the API", () => {
  test("live: each text-only fal and Google model completes from a prompt alone and is charged its price", async () => {
    const api = new Client(live.url);
    const { cookie } = await api.signUp(uniqueEmail("newprov"));
    const models = (await api.post("/api/models", undefined)).body.data.models as any[];
    const runnable = models.filter((m) => (m.provider === "fal" || m.provider === "google") && !m.options.required);
    let spent = 0;
    for (const m of runnable) {
      const r = await api.post(
        "/api/generator/generate",
        { ai_type: m.ai_type, provider: m.provider, model: m.model, prompt: `a kite over a beach (${m.model})` },
        { cookie },
      );
      expect(r.body.code).toBe(0);
      const done = await waitForFinal(api, cookie, r.body.data.gen_id);
      expect({ model: m.model, status: done.status }).toEqual({ model: m.model, status: "completed" });
      spent += m.credits;
      const file = await fetch(done.result_urls[0]);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toStartWith(m.ai_type === "image" ? "image/" : "video/");
    }
    const credits = (await api.post("/api/get-user-credits", undefined, { cookie })).body.data;
    expect(credits.left_credits).toBe(500 - spent);
    expect(fal.wrongPaths).toEqual([]);
  });

  test("a prompt the provider fails ends failed and costs nothing (fal and Google)", async () => {
    const api = new Client(live.url);
    const { cookie } = await api.signUp(uniqueEmail("refused"));
    fal.outcome = "failed";
    google.outcome = "blocked";
    try {
      for (const [provider, aiType, model] of [
        ["fal", "image", "fal-ai/flux/dev"],
        ["google", "image", "gemini-2.5-flash-image"],
        ["google", "video", "veo-3.0-fast-generate-001"],
      ]) {
        const r = await api.post(
          "/api/generator/generate",
          { ai_type: aiType, provider, model, prompt: "something the provider refuses" },
          { cookie },
        );
        const done = await waitForFinal(api, cookie, r.body.data.gen_id);
        expect({ model, status: done.status }).toEqual({ model, status: "failed" });
      }
    } finally {
      fal.outcome = "succeeded";
      google.outcome = "succeeded";
    }
    const credits = (await api.post("/api/get-user-credits", undefined, { cookie })).body.data;
    expect(credits.left_credits).toBe(500);
  });

  test("simulated without keys: a fal video and a Google image complete", async () => {
    const api = new Client(simulated.url);
    const { cookie } = await api.signUp(uniqueEmail("sim"));
    for (const [provider, aiType, model] of [
      ["fal", "video", "fal-ai/kling-video/v1.6/standard/text-to-video"],
      ["google", "image", "imagen-4.0-generate-001"],
      ["google", "video", "veo-3.0-fast-generate-001"],
    ]) {
      const r = await api.post(
        "/api/generator/generate",
        { ai_type: aiType, provider, model, prompt: "a kite" },
        { cookie },
      );
      expect(r.body.code).toBe(0);
      expect((await waitForFinal(api, cookie, r.body.data.gen_id)).status).toBe("completed");
    }
  });

  test("an image-to-video model without its image is refused before anything is created", async () => {
    const api = new Client(simulated.url);
    const { cookie } = await api.signUp(uniqueEmail("noimage"));
    const r = await api.post(
      "/api/generator/generate",
      { ai_type: "video", provider: "fal", model: "fal-ai/kling-video/v1.6/standard/image-to-video", prompt: "rock" },
      { cookie },
    );
    expect(r.body).toEqual({ code: 1, message: "invalid params: options.image is required", data: null });
  });
});
