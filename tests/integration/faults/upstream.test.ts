/**
 * Upstream providers misbehaving (through the fakes in tests/fakes, the
 * server's *_BASE_URL pointing at them, a short IMAGE_DEADLINE_MS): 500s,
 * 429s, a hanging call and malformed JSON. Each time the service stays up,
 * the task ends completed or failed with a clear message, and only completed
 * tasks are charged.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startOpenAIFake } from "../../fakes/openai";
import { startReplicateFake } from "../../fakes/replicate";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";
import { expectHealthy, expectLedgerBalanced, finalState } from "./support";

const replicate = startReplicateFake();
const openai = startOpenAIFake();
let server: TestServer;
let c: Client;
let cookie: string;
const REPLICATE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" } as const; // 3 credits
const OPENAI = { ai_type: "image", provider: "openai", model: "dall-e-3" } as const; // 5 credits
const DEADLINE_MS = 3000;

beforeAll(async () => {
  server = await startServer({
    env: {
      REPLICATE_API_TOKEN: replicate.token,
      REPLICATE_BASE_URL: replicate.baseUrl,
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      IMAGE_DEADLINE_MS: String(DEADLINE_MS),
      OUTBOUND_ALLOW_PRIVATE: "true", // the fakes serve result files on 127.0.0.1
      SIGNUP_CREDITS: "500",
      JOB_TICK_MS: "50",
    },
  });
  c = new Client(server.url);
  ({ cookie } = await c.signUp(uniqueEmail("upstream")));
});
afterAll(async () => {
  await server?.dispose();
  await replicate.stop();
  await openai.stop();
});
beforeEach(() => {
  replicate.state.reset();
  openai.state.reset();
  replicate.steps = { starting: 0, processing: 0 };
  replicate.outcome = "succeeded";
});

async function run(kind: typeof REPLICATE | typeof OPENAI, prompt = "a lighthouse") {
  const before = (await c.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits as number;
  const r = await c.post("/api/generator/generate", { ...kind, prompt }, { cookie });
  expect(r.body.code).toBe(0);
  const t0 = Date.now();
  const end = await finalState(c, { cookie }, r.body.data.gen_id, 20_000);
  const after = (await c.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits as number;
  return { ...end, ms: Date.now() - t0, charged: before - after };
}

const creates = (f: { state: { requests: { method: string }[] } }) =>
  f.state.requests.filter((q) => q.method === "POST").length;

describe("upstream faults: the task ends with a clear message, charged only on success, service up", () => {
  test("Replicate answers the create with a 500 → failed, not retried (a paid job may exist), no charge", async () => {
    replicate.state.fail("create", "server");
    const r = await run(REPLICATE);
    expect(r).toMatchObject({ status: "failed", error_message: "Replicate had a server error", charged: 0 });
    expect(creates(replicate)).toBe(1);
  });

  test("one 429 on create → retried with backoff → completed, charged once", async () => {
    replicate.state.fail("create", "rate_limit", 1);
    const r = await run(REPLICATE);
    expect(r).toMatchObject({ status: "completed", charged: 3 });
    expect(creates(replicate)).toBe(2);
  });

  test("429 on every create → failed (rate limited, or timed out at the deadline), no charge", async () => {
    replicate.state.fail("create", "rate_limit", 1000);
    const r = await run(REPLICATE);
    expect(r.status).toBe("failed");
    expect(r.error_message).toMatch(/^(Replicate is busy \(rate limited\); try again later|generation timed out)$/);
    expect(r.charged).toBe(0);
    expect(r.ms).toBeLessThan(DEADLINE_MS + 5000);
  });

  test("malformed JSON from the create → failed with an unreadable-response message, no charge", async () => {
    replicate.state.fail("create", "malformed");
    expect(await run(REPLICATE)).toMatchObject({
      status: "failed",
      error_message: "Replicate sent an unreadable response",
      charged: 0,
    });
  });

  test("a 500 while polling is retried (the job exists once) → completed, charged once", async () => {
    replicate.state.fail("poll", "server", 1);
    const r = await run(REPLICATE);
    expect(r).toMatchObject({ status: "completed", charged: 3 });
    expect(creates(replicate)).toBe(1);
  });

  test("malformed JSON while polling → failed, no charge", async () => {
    replicate.state.fail("poll", "malformed", 1000);
    const r = await run(REPLICATE);
    expect(r).toMatchObject({ status: "failed", charged: 0 });
    expect(r.error_message).toMatch(/^(Replicate sent an unreadable response|generation timed out)$/);
  });

  test("a create that hangs → failed with `generation timed out` at the deadline, no charge", async () => {
    replicate.state.fail("create", "hang");
    const r = await run(REPLICATE);
    expect(r).toMatchObject({ status: "failed", error_message: "generation timed out", charged: 0 });
    expect(r.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 1000);
    replicate.state.releaseAll();
  });

  test("OpenAI (one synchronous call): 500 → failed; hang → timed out; malformed → failed; none charged", async () => {
    openai.state.fail("create", "server");
    expect(await run(OPENAI)).toMatchObject({ status: "failed", charged: 0 });
    openai.state.fail("create", "malformed");
    expect(await run(OPENAI)).toMatchObject({ status: "failed", charged: 0 });
    openai.state.fail("create", "hang");
    expect(await run(OPENAI)).toMatchObject({ status: "failed", error_message: "generation timed out", charged: 0 });
    openai.state.releaseAll();
    expect(creates(openai)).toBe(3); // maxRetries 0: never a second paid call
  });

  test("afterwards: healthy, a clean task completes, every ledger balances, nothing logged as a crash", async () => {
    await expectHealthy(server.url);
    expect(await run(REPLICATE)).toMatchObject({ status: "completed", charged: 3 });
    expect(await run(OPENAI)).toMatchObject({ status: "completed", charged: 5 });
    await expectLedgerBalanced(server.dataDir);
    expect(server.proc.exitCode).toBeNull();
    expect(server.logs()).not.toContain("generation step crashed");
    expect(server.logs()).not.toContain("unhandled error");
  });
});
