/**
 * docs/design.md §10 over real HTTP: Idempotency-Key on generate (concurrent
 * duplicates → one task, another body → 409) and cancel (pending, processing
 * with each real adapter against its fake, finished, another user's).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { creditDebits, generations, idempotencyKeys } from "#db/schema";
import { type AllFakes, startAllFakes } from "../../fakes";
import { Client, uniqueEmail } from "../../support/client";
import { insertApiKey, openServerDb } from "../../support/db";
import { startServer, type TestServer } from "../../support/server";

// A loaded shared machine makes servers slow to start and answer.

const IMAGE = {
  ai_type: "image",
  provider: "replicate",
  model: "black-forest-labs/flux-schnell",
  prompt: "a red fox in snow",
};

async function credits(api: Client, cookie: string): Promise<number> {
  return (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits;
}

async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

describe("Idempotency-Key and cancel of pending tasks (runner off: tasks stay pending)", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startServer({ env: { JOBS: "off", SIGNUP_CREDITS: "20" } });
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
  });

  test("3 concurrent creates with one key make one task and reserve once; a repeat answers the first gen_id", async () => {
    const { cookie, userId } = await api.signUp(uniqueEmail("idem"));
    const key = crypto.randomUUID();
    const replies = await Promise.all(
      [0, 1, 2].map(() =>
        api.post("/api/generator/generate", IMAGE, { cookie }, { headers: { "Idempotency-Key": key } }),
      ),
    );
    for (const r of replies) {
      expect(r.status).toBe(200);
      expect(r.body.code).toBe(0);
      expect(r.body.data.status).toBe("pending");
    }
    const ids = new Set(replies.map((r) => r.body.data.gen_id));
    expect(ids.size).toBe(1);
    expect(replies.filter((r) => r.headers.get("idempotent-replayed") === "true").length).toBe(2);

    // Same body in another key order: still a repeat.
    const again = await api.post(
      "/api/generator/generate",
      { prompt: IMAGE.prompt, model: IMAGE.model, provider: IMAGE.provider, ai_type: IMAGE.ai_type },
      { cookie },
      { headers: { "Idempotency-Key": key } },
    );
    expect(again.body.data.gen_id).toBe([...ids][0]);

    const db = await openServerDb(server.dataDir);
    try {
      expect((await db.many(db.select().from(generations).where(eq(generations.userId, userId)))).length).toBe(1);
    } finally {
      void db.close();
    }
    // One reservation of 3 credits: 20 − 3 available.
    const r = await api.post("/api/generator/generate", { ...IMAGE, prompt: "another" }, { cookie });
    expect(r.body.code).toBe(0);
    const hist = await api.post("/api/generator/history", {}, { cookie });
    expect(hist.body.data.total).toBe(2);
  });

  test("the same key with a different body answers HTTP 409 and creates nothing", async () => {
    const { cookie, userId } = await api.signUp(uniqueEmail("idem409"));
    const key = "order-42";
    const first = await api.post("/api/generator/generate", IMAGE, { cookie }, { headers: { "Idempotency-Key": key } });
    expect(first.body.code).toBe(0);
    const other = await api.post(
      "/api/generator/generate",
      { ...IMAGE, prompt: "a different fox" },
      { cookie },
      { headers: { "Idempotency-Key": key } },
    );
    expect(other.status).toBe(409);
    expect(other.body).toEqual({
      code: 1,
      message: "invalid params: Idempotency-Key reused with a different request",
      data: null,
    });
    const hist = await api.post("/api/generator/history", {}, { cookie });
    expect(hist.body.data.total).toBe(1);
    // Keys are per user: another user may use the same key.
    const b = await api.signUp(uniqueEmail("idem-other"));
    const theirs = await api.post(
      "/api/generator/generate",
      { ...IMAGE, prompt: "a different fox" },
      { cookie: b.cookie },
      { headers: { "Idempotency-Key": key } },
    );
    expect(theirs.body.code).toBe(0);
    expect(theirs.body.data.gen_id).not.toBe(first.body.data.gen_id);
    const db = await openServerDb(server.dataDir);
    try {
      expect((await db.many(db.select().from(idempotencyKeys).where(eq(idempotencyKeys.userId, userId)))).length).toBe(
        1,
      );
    } finally {
      void db.close();
    }
  });

  test("a key older than 24 h is forgotten: the same key makes a new task", async () => {
    const { cookie, userId } = await api.signUp(uniqueEmail("idem-old"));
    const first = await api.post(
      "/api/generator/generate",
      IMAGE,
      { cookie },
      { headers: { "Idempotency-Key": "k-old" } },
    );
    const db = await openServerDb(server.dataDir);
    try {
      await db.run(
        db
          .update(idempotencyKeys)
          .set({ createdAt: Date.now() - 24 * 3600_000 - 1000 })
          .where(eq(idempotencyKeys.userId, userId)),
      );
    } finally {
      void db.close();
    }
    const second = await api.post(
      "/api/generator/generate",
      IMAGE,
      { cookie },
      { headers: { "Idempotency-Key": "k-old" } },
    );
    expect(second.body.code).toBe(0);
    expect(second.body.data.gen_id).not.toBe(first.body.data.gen_id);
  });

  test("a malformed key is invalid params", async () => {
    const { cookie } = await api.signUp(uniqueEmail("idem-bad"));
    const r = await api.post(
      "/api/generator/generate",
      IMAGE,
      { cookie },
      { headers: { "Idempotency-Key": "x".repeat(256) } },
    );
    expect(r.body.code).toBe(1);
    expect(r.body.message).toStartWith("invalid params: Idempotency-Key");
  });

  test("cancel: pending → failed `canceled`, reservation released; finished → already finished; another user's → not found", async () => {
    const { cookie } = await api.signUp(uniqueEmail("cancel"));
    const before = await credits(api, cookie);
    const created = await api.post("/api/generator/generate", IMAGE, { cookie });
    const genId = created.body.data.gen_id;

    const stranger = await api.signUp(uniqueEmail("stranger"));
    const foreign = await api.post("/api/generator/cancel", { gen_id: genId }, { cookie: stranger.cookie });
    expect(foreign.body).toEqual({ code: 1, message: "generation not found", data: null });
    const unknown = await api.post("/api/generator/cancel", { gen_id: crypto.randomUUID() }, { cookie });
    expect(unknown.body.message).toBe("generation not found");

    const c = await api.post("/api/generator/cancel", { gen_id: genId }, { cookie });
    expect(c.body.code).toBe(0);
    expect(c.body.data).toMatchObject({ gen_id: genId, status: "failed", error_message: "canceled" });
    const q = await api.post("/api/generator/query", { gen_id: genId }, { cookie });
    expect(q.body.data).toMatchObject({ status: "failed", error_message: "canceled" });
    expect(q.body.data.started_at).toBeUndefined();

    const twice = await api.post("/api/generator/cancel", { gen_id: genId }, { cookie });
    expect(twice.body).toEqual({ code: 1, message: "generation already finished", data: null });
    expect(await credits(api, cookie)).toBe(before);
    const hist = await api.post("/api/generator/history", {}, { cookie });
    expect(hist.body.data.generations[0]).toMatchObject({
      gen_id: genId,
      status: "failed",
      credits_cost: 0,
      started_at: null,
    });
  });

  test("cancel with an API key; a missing gen_id is invalid params", async () => {
    const { userId } = await api.signUp(uniqueEmail("cancel-key"));
    const db = await openServerDb(server.dataDir);
    const key = await insertApiKey(db, userId);
    void db.close();
    const created = await api.post("/api/generator/generate", IMAGE, { apiKey: key });
    const c = await api.post("/api/generator/cancel", { gen_id: created.body.data.gen_id }, { apiKey: key });
    expect(c.body.data.status).toBe("failed");
    expect((await api.post("/api/generator/cancel", {}, { apiKey: key })).body.message).toBe("invalid params");
  });
});

describe("cancel of processing tasks: each real adapter against its fake", () => {
  let fakes: AllFakes;
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    fakes = await startAllFakes();
    // Upstream jobs that stay running long enough to cancel.
    fakes.replicate.steps = { starting: 1, processing: 1000 };
    fakes.runway.walk = Array.from({ length: 1000 }, () => "RUNNING" as const);
    fakes.kling.steps = { submitted: 1, processing: 1000 };
    fakes.openai.delayMs = 1500;
    server = await startServer({ env: { ...fakes.env, SIGNUP_CREDITS: "200" } });
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
    await fakes?.stop();
  });

  const upstreamIdOf = async (genId: string) => {
    const db = await openServerDb(server.dataDir);
    try {
      return await db.one(db.select().from(generations).where(eq(generations.id, genId)));
    } finally {
      await db.close();
    }
  };

  async function startAndCancel(body: Record<string, unknown>) {
    const { cookie } = await api.signUp(uniqueEmail("cancel-live"));
    const before = await credits(api, cookie);
    const created = await api.post("/api/generator/generate", body, { cookie });
    expect(created.body.code).toBe(0);
    const genId = created.body.data.gen_id as string;
    const row = await waitFor("the upstream task id", async () => {
      const r = await upstreamIdOf(genId);
      return r?.upstreamTaskId ? r : undefined;
    });
    const c = await api.post("/api/generator/cancel", { gen_id: genId }, { cookie });
    expect(c.body.data).toMatchObject({ gen_id: genId, status: "failed", error_message: "canceled" });
    expect(typeof c.body.data.started_at).toBe("string");
    return { cookie, genId, upstreamTaskId: row.upstreamTaskId!, before };
  }

  async function expectStillCanceled(cookie: string, genId: string, before: number) {
    await Bun.sleep(1500);
    const q = await api.post("/api/generator/query", { gen_id: genId }, { cookie });
    expect(q.body.data).toMatchObject({ status: "failed", error_message: "canceled" });
    expect(await credits(api, cookie)).toBe(before);
    const db = await openServerDb(server.dataDir);
    try {
      expect(await db.many(db.select().from(creditDebits).where(eq(creditDebits.genId, genId)))).toEqual([]);
    } finally {
      void db.close();
    }
  }

  test("Replicate: POST /v1/predictions/{id}/cancel is made", async () => {
    const { cookie, genId, upstreamTaskId, before } = await startAndCancel(IMAGE);
    expect(fakes.replicate.canceled).toEqual([upstreamTaskId]);
    const call = fakes.replicate.state.requests.find((r) => r.path === `/v1/predictions/${upstreamTaskId}/cancel`);
    expect(call?.method).toBe("POST");
    expect(call?.headers.authorization).toBe(`Bearer ${fakes.replicate.token}`);
    await expectStillCanceled(cookie, genId, before);
  }, 30_000);

  test("Runway: DELETE /v1/tasks/{id} is made", async () => {
    const { cookie, genId, upstreamTaskId, before } = await startAndCancel({
      ai_type: "video",
      provider: "runway",
      model: "gen4.5",
      prompt: "waves",
    });
    expect(fakes.runway.canceled).toEqual([upstreamTaskId]);
    const call = fakes.runway.state.requests.find((r) => r.method === "DELETE");
    expect(call?.path).toBe(`/v1/tasks/${upstreamTaskId}`);
    expect(call?.headers["x-runway-version"]).toBe("2024-11-06");
    await expectStillCanceled(cookie, genId, before);
  }, 30_000);

  test("Kling (no cancel API): polling stops", async () => {
    const { cookie, genId, upstreamTaskId, before } = await startAndCancel({
      ai_type: "image",
      provider: "kling",
      model: "kling-v1",
      prompt: "a kite",
    });
    const polls = () =>
      fakes.kling.state.requests.filter((r) => r.method === "GET" && r.path.includes(upstreamTaskId)).length;
    await Bun.sleep(300); // a poll in flight at the moment of the cancel may still land
    const seen = polls();
    await expectStillCanceled(cookie, genId, before);
    expect(polls()).toBe(seen);
  }, 30_000);

  test("OpenAI (sync): a result arriving after the cancel is ignored", async () => {
    const { cookie } = await api.signUp(uniqueEmail("cancel-openai"));
    const before = await credits(api, cookie);
    const created = await api.post(
      "/api/generator/generate",
      { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "a slow lighthouse" },
      { cookie },
    );
    const genId = created.body.data.gen_id as string;
    await waitFor("processing", async () =>
      (await api.post("/api/generator/query", { gen_id: genId }, { cookie })).body.data.status === "processing"
        ? true
        : undefined,
    );
    const c = await api.post("/api/generator/cancel", { gen_id: genId }, { cookie });
    expect(c.body.data.error_message).toBe("canceled");
    await Bun.sleep(1500); // the fake answers after 1.5 s
    await expectStillCanceled(cookie, genId, before);
  }, 30_000);
});
