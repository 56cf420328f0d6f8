/**
 * A canceled task is never charged (docs/design.md §10), but a live task that has reached its provider is already
 * paid for upstream by the operator — OpenAI (and Kling) have no cancel API. Without a bound, create → wait for
 * `processing` → cancel in a loop would make the operator pay for image after image while the user's balance never
 * moves. So at most 10 such cancels per user an hour; the 11th answers HTTP 429 `Too Many Requests` with
 * Retry-After, and that task runs on and is charged when it completes. Pending tasks still cancel freely
 * (docs/decisions/083-live-cancel-limit.md).
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { type OpenAIFake, startOpenAIFake } from "../fakes/openai";
import { Client, uniqueEmail } from "../support/client";
import { serverForFile } from "../support/file-server";
import { startServer } from "../support/server";
import { until } from "../support/until";

setDefaultTimeout(120_000);

const LIVE_CANCELS_PER_HOUR = 10; // docs/decisions/083-live-cancel-limit.md
const DALL_E_3 = { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "a lighthouse at night" }; // 5 credits (spec 8.1)

const openai: OpenAIFake = startOpenAIFake();
openai.delayMs = 3000; // the upstream call is still in flight when the cancel lands, even on a loaded machine
const s = serverForFile(
  {
    env: {
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      OUTBOUND_ALLOW_PRIVATE: "true",
      SIGNUP_CREDITS: "10",
      JOB_TICK_MS: "50",
    },
  },
  () => openai.stop(),
);

async function status(cookie: string, genId: string): Promise<string> {
  return (await s.api.post("/api/generator/query", { gen_id: genId }, { cookie })).body.data.status;
}

const generations = () => openai.state.requests.filter((r) => r.path === "/v1/images/generations").length;
const leftCredits = async (cookie: string) =>
  (await s.api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits as number;

test("canceling live tasks at their provider: 10 an hour, then 429 and the task runs on and is charged", async () => {
  const { cookie } = await s.api.signUp(uniqueEmail("live-cancel"));
  expect(await leftCredits(cookie)).toBe(10);
  const paidBefore = generations();
  const answers: { code: number; http: number; retryAfter: string | null; genId: string }[] = [];
  for (let i = 0; i < LIVE_CANCELS_PER_HOUR + 1; i++) {
    const created = await s.api.post("/api/generator/generate", DALL_E_3, { cookie });
    expect(created.body.code).toBe(0);
    const genId = created.body.data.gen_id as string;
    // The runner has taken it and the provider call is under way (the operator is paying for it now).
    const sent = paidBefore + i + 1;
    await until(
      "the upstream call",
      async () => (generations() >= sent && (await status(cookie, genId)) === "processing" ? true : undefined),
      20_000,
      10,
    );
    const c = await s.api.post("/api/generator/cancel", { gen_id: genId }, { cookie });
    answers.push({ code: c.body.code, http: c.status, retryAfter: c.headers.get("retry-after"), genId });
    if (c.body.code !== 0)
      expect({ i, http: c.status, body: c.body }).toEqual({
        i: LIVE_CANCELS_PER_HOUR,
        http: 429,
        body: { code: 1, message: "Too Many Requests", data: null },
      });
    // Let the upstream call finish before the next one (the 10 credits hold one dall-e-3 at a time).
    await until(
      "the task to finish",
      async () => (["completed", "failed"].includes(await status(cookie, genId)) ? true : undefined),
      20_000,
      10,
    );
  }
  expect(answers.slice(0, LIVE_CANCELS_PER_HOUR).map((a) => a.code)).toEqual(Array(LIVE_CANCELS_PER_HOUR).fill(0));
  const last = answers[LIVE_CANCELS_PER_HOUR]!;
  expect({ code: last.code, http: last.http }).toEqual({ code: 1, http: 429 });
  expect(Number(last.retryAfter)).toBeGreaterThan(0);
  // The refused cancel changed nothing: the task completed and was charged 5 credits.
  expect(await status(cookie, last.genId)).toBe("completed");
  expect(await leftCredits(cookie)).toBe(5);
  expect(generations() - paidBefore).toBe(LIVE_CANCELS_PER_HOUR + 1);
});

test("a pending live task cancels freely (nothing was sent upstream)", async () => {
  const stopped = await startServer({
    env: {
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      OUTBOUND_ALLOW_PRIVATE: "true",
      SIGNUP_CREDITS: "10",
      JOBS: "off",
    },
  });
  try {
    const a = new Client(stopped.url);
    const { cookie } = await a.signUp(uniqueEmail("live-cancel-pending"));
    for (let i = 0; i < LIVE_CANCELS_PER_HOUR + 2; i++) {
      const created = await a.post("/api/generator/generate", DALL_E_3, { cookie });
      const c = await a.post("/api/generator/cancel", { gen_id: created.body.data.gen_id }, { cookie });
      expect(c.body.data).toMatchObject({ status: "failed", error_message: "canceled" });
    }
  } finally {
    await stopped.dispose();
  }
});
