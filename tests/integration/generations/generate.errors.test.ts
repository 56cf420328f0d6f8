/**
 * Bad generate requests reach validation: every case runs as a fresh user
 * with plenty of credits (so the balance check can never be what refuses it),
 * asserts the exact message of spec §7 / docs/design.md §1, and proves through the API
 * that nothing was written (no task in the history, nothing reserved).
 * Messages are copied from the spec, not imported from the code under test.
 */
import { describe, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";

const REQUIRED = "invalid params: ai_type, provider, model, prompt required";
const valid = {
  ai_type: "image",
  provider: "replicate",
  model: "black-forest-labs/flux-schnell",
  prompt: "a red fox in snow",
};
const CREDITS = 100;

const s = serverForFile({ env: { SIGNUP_CREDITS: String(CREDITS), JOBS: "off" } });

const without = (k: keyof typeof valid) => {
  const { [k]: _, ...rest } = valid;
  return rest;
};

/** [label, body, exact message (string) or required prefix (RegExp)] */
const CASES: [string, unknown, string | RegExp][] = [
  ["missing ai_type", without("ai_type"), REQUIRED],
  ["missing provider", without("provider"), REQUIRED],
  ["missing model", without("model"), REQUIRED],
  ["missing prompt", without("prompt"), REQUIRED],
  ["empty prompt", { ...valid, prompt: "" }, REQUIRED],
  ["blank prompt", { ...valid, prompt: "   " }, REQUIRED],
  ["prompt as a number", { ...valid, prompt: 42 }, REQUIRED],
  ["ai_type audio", { ...valid, ai_type: "audio" }, "invalid params: ai_type must be image or video"],
  ["unknown image provider", { ...valid, provider: "midjourney" }, "Unsupported image provider: midjourney"],
  [
    "image-only provider for video",
    { ...valid, ai_type: "video", provider: "replicate" },
    "Unsupported video provider: replicate",
  ],
  [
    "unknown video provider",
    { ...valid, ai_type: "video", provider: "openai", model: "dall-e-3" },
    "Unsupported video provider: openai",
  ],
  ["model of another provider", { ...valid, model: "dall-e-3" }, "Unsupported model: dall-e-3"],
  ["video model as image", { ...valid, provider: "kling", model: "kling-v1-6" }, "Unsupported model: kling-v1-6"],
  ["prompt of 4001 characters", { ...valid, prompt: "p".repeat(4001) }, "invalid params: prompt too long (max 4000)"],
  ["options as an array", { ...valid, options: [1, 2] }, /^invalid params/],
  ["options as a string", { ...valid, options: "big" }, /^invalid params/],
];

async function freshUser() {
  const u = await s.api.signUp(uniqueEmail("genval"));
  return { cookie: u.cookie };
}

async function nothingWritten(auth: { cookie: string }) {
  const history = await s.api.post("/api/generator/history", {}, auth);
  expect(history.body.data.total).toBe(0);
  const credits = await s.api.post("/api/get-user-credits", undefined, auth);
  expect(credits.body.data.left_credits).toBe(CREDITS);
  // Nothing reserved either: the whole balance can still be spent on one task at most 100.
}

describe("generate: each bad request gets its exact message and writes nothing", () => {
  for (const [label, body, expected] of CASES) {
    test(label, async () => {
      const auth = await freshUser();
      const r = await s.api.post("/api/generator/generate", body, auth);
      expect(r.status).toBe(200);
      expect(r.body.code).toBe(1);
      expect(r.body.data).toBeNull();
      if (typeof expected === "string") expect(r.body.message).toBe(expected);
      else expect(r.body.message).toMatch(expected);
      await nothingWritten(auth);
    });
  }

  test("the boundary: a prompt of exactly 4000 characters is accepted and reserves the price", async () => {
    const auth = await freshUser();
    const r = await s.api.post("/api/generator/generate", { ...valid, prompt: "p".repeat(4000) }, auth);
    expect(r.body.code).toBe(0);
    const history = await s.api.post("/api/generator/history", {}, auth);
    expect(history.body.data.total).toBe(1);
    expect(history.body.data.generations[0].credits_cost).toBe(3);
  });
});
