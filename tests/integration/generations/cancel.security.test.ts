/**
 * Canceling a task (docs/design.md §10) is never a way to get work for free or to make the operator pay: a task
 * canceled while its provider runs leaves no result file and no charge, cancels of live tasks that already reached
 * their provider are bounded (docs/decisions/083-live-cancel-limit.md), and tasks that end unpaid are bounded per
 * user (docs/decisions/094-unpaid-task-limit.md).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type OpenAIFake, startOpenAIFake } from "../../fakes/openai";
import { Client, uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";
import { startServer, type TestServer } from "../../support/server";
import { until } from "../../support/until";

setDefaultTimeout(120_000);

/**
 * A canceled task is never charged, so its result must never be delivered either: a sync provider's call is not
 * interrupted by the cancel, and its files must not stay downloadable under their predictable key on the public /media.
 */
describe("a task canceled while its provider runs", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    // Simulated openai is a sync provider; 1.5 s per call leaves time to cancel while it runs.
    server = await startServer({ env: { SIMULATOR_DELAY_MS: "1500", SIGNUP_CREDITS: "10" } });
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
  });

  test("a task canceled while its sync provider call runs leaves no downloadable result and no charge", async () => {
    const { cookie } = await api.signUp(uniqueEmail("cancelmedia"));
    const gen = await api.post(
      "/api/generator/generate",
      { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "a lighthouse" },
      { cookie },
    );
    expect(gen.body.code).toBe(0);
    const genId = gen.body.data.gen_id as string;
    // Wait until the runner has claimed it (the upstream call is running).
    const deadline = Date.now() + 10_000;
    for (;;) {
      const q = await api.post("/api/generator/query", { gen_id: genId }, { cookie });
      if (q.body.data.status === "processing") break;
      if (Date.now() > deadline) throw new Error(`task never processing: ${JSON.stringify(q.body)}`);
      await Bun.sleep(20);
    }
    const c = await api.post("/api/generator/cancel", { gen_id: genId }, { cookie });
    expect(c.body.code).toBe(0);
    // Let the provider call finish and the runner do whatever it does with the result.
    await Bun.sleep(3000);
    const q = await api.post("/api/generator/query", { gen_id: genId }, { cookie });
    expect(q.body.data.status).toBe("failed");
    expect(q.body.data.error_message).toBe("canceled");
    expect((await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits).toBe(10);
    // Not charged, so the result must not be served.
    for (const ext of ["png", "jpg", "webp"]) {
      const res = await fetch(`${server.url}/media/${genId}/0.${ext}`);
      await res.arrayBuffer();
      expect(`${ext}: ${res.status}`).toBe(`${ext}: 404`);
    }
    // Nor kept on disk under any name.
    const dir = join(server.dataDir, "media", genId);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  });
});

/**
 * A live task that reached its provider is already paid upstream by the operator (OpenAI and Kling have no cancel
 * API), so create → processing → cancel in a loop would spend the operator's money while the balance never moves. At
 * most 10 such cancels per user an hour; the 11th answers 429 with Retry-After and that task runs on and is charged.
 * Pending tasks still cancel freely.
 */
describe("live cancels at the provider are bounded", () => {
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
});

/**
 * A canceled or failed task costs nothing, so generate + cancel would be a free write without bound (tasks are kept
 * as the record, each an event to the user's webhooks). Every task that ends unpaid takes a slot of a per-user bucket;
 * while it is empty, generate answers 429 with Retry-After and creates nothing.
 */
describe("tasks that end unpaid are bounded", () => {
  const UNPAID_PER_HOUR = 100; // docs/decisions/094-unpaid-task-limit.md
  const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" }; // 3 credits (spec 8.1)

  // JOBS=off: tasks stay pending until canceled.
  const s = serverForFile({ env: { JOBS: "off", SIGNUP_CREDITS: "3" } });

  test("create + cancel: 100 unpaid tasks an hour, then generate answers 429 and creates nothing", async () => {
    const { cookie } = await s.api.signUp(uniqueEmail("churn"));
    for (let i = 0; i < UNPAID_PER_HOUR; i++) {
      const g = await s.api.post(
        "/api/generator/generate",
        { ...IMAGE, prompt: `churn ${i}` },
        { cookie },
        { headers: { "idempotency-key": `k-${i}` } },
      );
      expect({ i, code: g.body.code }).toEqual({ i, code: 0 });
      const c = await s.api.post("/api/generator/cancel", { gen_id: g.body.data.gen_id }, { cookie });
      expect({ i, status: c.body.data?.status }).toEqual({ i, status: "failed" });
    }
    const refused = await s.api.post("/api/generator/generate", { ...IMAGE, prompt: "one more" }, { cookie });
    expect({ http: refused.status, body: refused.body }).toEqual({
      http: 429,
      body: { code: 1, message: "Too Many Requests", data: null },
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // A replay creates nothing, so it still answers the first task.
    const replay = await s.api.post(
      "/api/generator/generate",
      { ...IMAGE, prompt: "churn 7" },
      { cookie },
      { headers: { "idempotency-key": "k-7" } },
    );
    expect(replay.body.code).toBe(0);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    // Nothing was stored by the refused create; the reservation is free (3 credits).
    const history = (await s.api.post("/api/generator/history", { page_size: 1 }, { cookie })).body.data;
    expect(history.total).toBe(UNPAID_PER_HOUR);
    expect((await s.api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits).toBe(3);
    // Another user is not affected.
    const other = await s.api.signUp(uniqueEmail("churn-other"));
    expect(
      (await s.api.post("/api/generator/generate", { ...IMAGE, prompt: "mine" }, { cookie: other.cookie })).body.code,
    ).toBe(0);
  });
});
