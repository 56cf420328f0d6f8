/**
 * Spec §4.1–4.3 and §3.1 over HTTP against the real server: every message,
 * the fields of each status, ordering, paging bounds, isolation, credits
 * reserved at creation and debited once on success only, and result files.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Auth, Client, uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { startServer, type TestServer } from "../../support/server";

let server: TestServer;
let idle: TestServer; // JOBS=off: tasks stay pending
let api: Client;

const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" } as const; // 3 credits
const SYNC_IMAGE = { ai_type: "image", provider: "openai", model: "dall-e-3" } as const; // 5 credits
const VIDEO = { ai_type: "video", provider: "kling", model: "kling-v1" } as const; // 10 credits
const PROBE = { ai_type: "video", provider: "kling", model: "kling-v1-6", prompt: "probe" } as const; // 15 credits

beforeAll(async () => {
  [server, idle] = await Promise.all([
    startServer({ env: { SIMULATOR_DELAY_MS: "60" } }),
    startServer({ env: { JOBS: "off", SIGNUP_CREDITS: "30" } }),
  ]);
  api = new Client(server.url);
});
afterAll(async () => {
  await Promise.all([server?.dispose(), idle?.dispose()]);
});

async function user(c: Client = api): Promise<Auth & { userId: string }> {
  const { cookie, userId } = await c.signUp(uniqueEmail("gen"));
  return { cookie, userId };
}

async function generate(auth: Auth, body: Record<string, unknown>, c: Client = api) {
  return (await c.post("/api/generator/generate", body, auth)).body;
}

async function waitFor(
  auth: Auth,
  genId: string,
  statuses = ["completed", "failed"],
  timeoutMs = 15_000,
  c: Client = api,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await c.post("/api/generator/query", { gen_id: genId }, auth);
    if (r.body.code !== 0) throw new Error(JSON.stringify(r.body));
    if (statuses.includes(r.body.data.status)) return r.body.data;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${genId}: ${JSON.stringify(r.body.data)}`);
    await Bun.sleep(30);
  }
}

/** The available balance, read through the insufficient-credits message of a 15-credit model. */
async function available(auth: Auth, c: Client = api): Promise<number> {
  const r = await generate(auth, PROBE, c);
  const m = /^insufficient credits: need 15, have (\d+)$/.exec(r.message);
  if (!m) throw new Error(`probe did not fail as expected: ${JSON.stringify(r)}`);
  return Number(m[1]);
}

describe("POST /api/generator/generate (spec 4.1)", () => {
  test("not signed in: no auth, please sign-in", async () => {
    const r = await api.post("/api/generator/generate", { ...IMAGE, prompt: "x" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ code: 1, message: "no auth, please sign-in", data: null });
  });

  test("an unknown API key is rejected with HTTP 401", async () => {
    const r = await api.post("/api/generator/generate", { ...IMAGE, prompt: "x" }, { apiKey: "atl_not-a-real-key" });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe(1);
  });

  test("any of ai_type, provider, model, prompt missing, empty or not a string", async () => {
    const a = await user();
    const full = { ...IMAGE, prompt: "a red fox" };
    const cases: Record<string, unknown>[] = [{}];
    for (const k of ["ai_type", "provider", "model", "prompt"] as const) {
      const { [k]: _, ...without } = full;
      cases.push(
        without,
        { ...full, [k]: "" },
        { ...full, [k]: "   " },
        { ...full, [k]: 42 },
        { ...full, [k]: null },
        { ...full, [k]: ["x"] },
      );
    }
    for (const body of cases) {
      expect(await generate(a, body)).toEqual({
        code: 1,
        message: "invalid params: ai_type, provider, model, prompt required",
        data: null,
      });
    }
  });

  test("ai_type other than image or video", async () => {
    const a = await user();
    for (const ai_type of ["audio", "IMAGE", "text"]) {
      expect(await generate(a, { ...IMAGE, ai_type, prompt: "x" })).toEqual({
        code: 1,
        message: "invalid params: ai_type must be image or video",
        data: null,
      });
    }
  });

  test("provider not offered for the ai_type names the provider", async () => {
    const a = await user();
    expect((await generate(a, { ai_type: "video", provider: "openai", model: "dall-e-3", prompt: "x" })).message).toBe(
      "Unsupported video provider: openai",
    );
    expect((await generate(a, { ai_type: "video", provider: "nope", model: "m", prompt: "x" })).message).toBe(
      "Unsupported video provider: nope",
    );
    expect((await generate(a, { ai_type: "image", provider: "runway", model: "gen4.5", prompt: "x" })).message).toBe(
      "Unsupported image provider: runway",
    );
    expect(await generate(a, { ai_type: "image", provider: "midjourney", model: "v6", prompt: "x" })).toEqual({
      code: 1,
      message: "Unsupported image provider: midjourney",
      data: null,
    });
  });

  test("model not offered by that provider for that ai_type", async () => {
    const a = await user();
    expect(await generate(a, { ai_type: "image", provider: "openai", model: "kling-v1", prompt: "x" })).toEqual({
      code: 1,
      message: "Unsupported model: kling-v1",
      data: null,
    });
    // kling-v1-6 exists for video only.
    expect((await generate(a, { ai_type: "image", provider: "kling", model: "kling-v1-6", prompt: "x" })).message).toBe(
      "Unsupported model: kling-v1-6",
    );
  });

  test("prompt over 4000 characters; exactly 4000 is accepted", async () => {
    const a = await user();
    expect(await generate(a, { ...IMAGE, prompt: "p".repeat(4001) })).toEqual({
      code: 1,
      message: "invalid params: prompt too long (max 4000)",
      data: null,
    });
    expect((await generate(a, { ...IMAGE, prompt: "p".repeat(4000) })).code).toBe(0);
  });

  test("options of the wrong type, or a body that is not an object: invalid params", async () => {
    const a = await user();
    const notObject = { code: 1 as const, message: "invalid params: options must be an object", data: null };
    expect(await generate(a, { ...IMAGE, prompt: "x", options: "big" })).toEqual(notObject);
    expect(await generate(a, { ...IMAGE, prompt: "x", options: [1] })).toEqual(notObject);
    const arr = await api.post("/api/generator/generate", "[1,2]", a);
    expect(arr.body).toEqual({ code: 1, message: "invalid params", data: null });
    const ok = await generate(a, { ...IMAGE, prompt: "with options", options: { aspect_ratio: "16:9" } });
    expect(ok.code).toBe(0);
  });

  test("success: code 0, data {gen_id, status: pending, message}", async () => {
    const a = await user();
    const r = await api.post("/api/generator/generate", { ...IMAGE, prompt: "a lighthouse at dawn" }, a);
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    expect(Object.keys(r.body.data).sort()).toEqual(["gen_id", "message", "status"]);
    expect(r.body.data.status).toBe("pending");
    expect(typeof r.body.data.gen_id).toBe("string");
    expect(r.body.data.gen_id.length).toBeGreaterThan(8);
    expect(typeof r.body.data.message).toBe("string");
    expect(r.body.data.message.length).toBeGreaterThan(0);
  });

  test("insufficient credits: need <cost>, have <available>; unfinished tasks hold their cost", async () => {
    const a = await user(new Client(idle.url)); // 30 credits, runner off: tasks stay pending
    const c = new Client(idle.url);
    expect((await generate(a, { ...VIDEO, prompt: "one" }, c)).code).toBe(0); // 30 → 20 available
    expect((await generate(a, { ...VIDEO, prompt: "two" }, c)).code).toBe(0); // → 10
    expect((await generate(a, { ...SYNC_IMAGE, prompt: "three" }, c)).code).toBe(0); // → 5
    expect(await generate(a, { ...PROBE }, c)).toEqual({
      code: 1,
      message: "insufficient credits: need 15, have 5",
      data: null,
    });
    expect((await generate(a, { ...IMAGE, prompt: "four" }, c)).code).toBe(0); // → 2
    expect(await generate(a, { ...SYNC_IMAGE, prompt: "five" }, c)).toEqual({
      code: 1,
      message: "insufficient credits: need 5, have 2",
      data: null,
    });
  });

  test("30 concurrent creates against a balance that covers 10: exactly 10 accepted", async () => {
    const c = new Client(idle.url);
    const a = await user(c); // 30 credits; IMAGE costs 3
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => generate(a, { ...IMAGE, prompt: `race ${i}` }, c)),
    );
    const ok = results.filter((r) => r.code === 0);
    const rejected = results.filter((r) => r.code === 1);
    expect(ok.length).toBe(10);
    expect(new Set(ok.map((r) => r.data.gen_id)).size).toBe(10);
    expect(rejected.length).toBe(20);
    for (const r of rejected)
      expect(r).toEqual({ code: 1, message: "insufficient credits: need 3, have 0", data: null });
    const h = await c.post("/api/generator/history", { page_size: 100 }, a);
    expect(h.body.data.total).toBe(10);
  });
});

describe("POST /api/generator/query (spec 4.2)", () => {
  test("pending: gen_id, status, created_at", async () => {
    const c = new Client(idle.url);
    const a = await user(c);
    const created = await generate(a, { ...IMAGE, prompt: "waiting" }, c);
    const r = await c.post("/api/generator/query", { gen_id: created.data.gen_id }, a);
    expect(r.body.code).toBe(0);
    expect(Object.keys(r.body.data).sort()).toEqual(["created_at", "gen_id", "status", "urls"]);
    expect(r.body.data.status).toBe("pending");
    expect(r.body.data.gen_id).toBe(created.data.gen_id);
    expect(r.body.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test("processing: gen_id, status, created_at (and started_at, additive)", async () => {
    const a = await user();
    const created = await generate(a, { ...IMAGE, prompt: "slow one [simulate:slow]" }); // 10 × 60 ms
    const data = await waitFor(a, created.data.gen_id, ["processing"]);
    expect(Object.keys(data).sort()).toEqual(["created_at", "gen_id", "started_at", "status", "urls"]);
    expect(Date.parse(data.started_at)).toBeGreaterThanOrEqual(Date.parse(data.created_at));
    const done = await waitFor(a, created.data.gen_id);
    expect(done.status).toBe("completed");
  });

  test("completed: result_urls (absolute, served files) and completed_at", async () => {
    const a = await user();
    const created = await generate(a, { ...IMAGE, prompt: "a red fox in the snow" });
    const data = await waitFor(a, created.data.gen_id);
    expect(Object.keys(data).sort()).toEqual([
      "completed_at",
      "created_at",
      "gen_id",
      "result_urls",
      "started_at",
      "status",
      "urls",
    ]);
    expect(data.status).toBe("completed");
    expect(Array.isArray(data.result_urls)).toBe(true);
    expect(data.result_urls.length).toBe(1);
    expect(data.result_urls[0]).toStartWith(`${server.url}/media/${created.data.gen_id}/`);
    expect(Date.parse(data.completed_at)).toBeGreaterThanOrEqual(Date.parse(data.created_at));
    const file = await fetch(data.result_urls[0]);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect([...bytes.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  test("sync provider (openai) completes too; a video is a real MP4", async () => {
    const a = await user();
    const img = await generate(a, { ...SYNC_IMAGE, prompt: "sync provider" });
    expect((await waitFor(a, img.data.gen_id)).status).toBe("completed");
    const b = await user();
    const vid = await generate(b, { ...VIDEO, prompt: "a drone shot over mountains" });
    const data = await waitFor(b, vid.data.gen_id);
    expect(data.status).toBe("completed");
    const file = await fetch(data.result_urls[0]);
    expect(file.headers.get("content-type")).toBe("video/mp4");
    expect(data.result_urls[0]).toEndWith(".mp4");
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(4, 8))).toBe("ftyp");
  });

  test("failed: error_message and completed_at, still envelope code 0", async () => {
    const a = await user();
    const created = await generate(a, { ...IMAGE, prompt: "please [simulate:fail]" });
    const r = await waitFor(a, created.data.gen_id);
    expect(Object.keys(r).sort()).toEqual([
      "completed_at",
      "created_at",
      "error_message",
      "gen_id",
      "started_at",
      "status",
      "urls",
    ]);
    expect(r.status).toBe("failed");
    expect(r.error_message).toContain("(simulated)");
    const again = await api.post("/api/generator/query", { gen_id: created.data.gen_id }, a);
    expect(again.body.code).toBe(0);
  });

  test("unknown gen_id and another user's gen_id: generation not found", async () => {
    const a = await user();
    const b = await user();
    const created = await generate(a, { ...IMAGE, prompt: "mine" });
    expect((await api.post("/api/generator/query", { gen_id: "does-not-exist" }, a)).body).toEqual({
      code: 1,
      message: "generation not found",
      data: null,
    });
    expect((await api.post("/api/generator/query", { gen_id: created.data.gen_id }, b)).body).toEqual({
      code: 1,
      message: "generation not found",
      data: null,
    });
  });

  test("gen_id missing or not a string: invalid params; not signed in: no auth", async () => {
    const a = await user();
    expect((await api.post("/api/generator/query", {}, a)).body).toEqual({
      code: 1,
      message: "invalid params",
      data: null,
    });
    expect((await api.post("/api/generator/query", { gen_id: 5 }, a)).body).toEqual({
      code: 1,
      message: "invalid params",
      data: null,
    });
    expect((await api.post("/api/generator/query", { gen_id: "x" })).body.message).toBe("no auth, please sign-in");
  });
});

describe("POST /api/generator/history (spec 4.3)", () => {
  test("entries newest first with the spec's fields; result_urls a JSON string; credits_cost 0 when failed", async () => {
    const a = await user();
    const ok = (await generate(a, { ...IMAGE, prompt: "first" })).data.gen_id;
    await waitFor(a, ok);
    const bad = (await generate(a, { ...IMAGE, prompt: "second [simulate:fail]" })).data.gen_id;
    await waitFor(a, bad);
    const r = await api.post("/api/generator/history", {}, a);
    expect(r.body.code).toBe(0);
    const d = r.body.data;
    expect(Object.keys(d).sort()).toEqual(["generations", "page", "page_size", "total"]);
    expect(d.total).toBe(2);
    expect(d.page).toBe(1);
    expect(d.page_size).toBe(20);
    expect(d.generations.map((g: any) => g.gen_id)).toEqual([bad, ok]);
    const [failed, done] = d.generations;
    expect(Object.keys(done).sort()).toEqual(
      [
        "ai_type",
        "completed_at",
        "created_at",
        "credits_cost",
        "gen_id",
        "model",
        "prompt",
        "provider",
        "result_urls",
        "started_at",
        "status",
        "urls",
      ].sort(),
    );
    expect(done).toMatchObject({
      ai_type: "image",
      provider: IMAGE.provider,
      model: IMAGE.model,
      prompt: "first",
      status: "completed",
      credits_cost: 3,
    });
    expect(typeof done.result_urls).toBe("string");
    const urls = JSON.parse(done.result_urls);
    expect(urls.length).toBe(1);
    expect(urls[0]).toStartWith(`${server.url}/media/`);
    expect(failed).toMatchObject({ status: "failed", credits_cost: 0, result_urls: "[]" });
    expect(typeof failed.completed_at).toBe("string");
  });

  test("pending tasks show their price", async () => {
    const c = new Client(idle.url);
    const a = await user(c);
    await generate(a, { ...SYNC_IMAGE, prompt: "later" }, c);
    const r = await c.post("/api/generator/history", {}, a);
    expect(r.body.data.generations[0]).toMatchObject({
      status: "pending",
      credits_cost: 5,
      result_urls: "[]",
      completed_at: null,
    });
  });

  test("paging: page / page_size, beyond the end, clamp to 100", async () => {
    const c = new Client(idle.url);
    const a = await user(c);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await generate(a, { ...IMAGE, prompt: `p${i}` }, c)).data.gen_id);
      await Bun.sleep(3); // distinct created_at
    }
    const newestFirst = [...ids].reverse();
    const p1 = await c.post("/api/generator/history", { page: 1, page_size: 2 }, a);
    const p2 = await c.post("/api/generator/history", { page: 2, page_size: 2 }, a);
    const p3 = await c.post("/api/generator/history", { page: 3, page_size: 2 }, a);
    const p9 = await c.post("/api/generator/history", { page: 9, page_size: 2 }, a);
    expect(p1.body.data.generations.map((g: any) => g.gen_id)).toEqual(newestFirst.slice(0, 2));
    expect(p2.body.data.generations.map((g: any) => g.gen_id)).toEqual(newestFirst.slice(2, 4));
    expect(p3.body.data.generations.map((g: any) => g.gen_id)).toEqual(newestFirst.slice(4));
    expect(p9.body.data).toEqual({ generations: [], total: 5, page: 9, page_size: 2 });
    expect(p2.body.data).toMatchObject({ total: 5, page: 2, page_size: 2 });
    const big = await c.post("/api/generator/history", { page_size: 500 }, a);
    expect(big.body.data.page_size).toBe(100);
    expect(big.body.data.generations.length).toBe(5);
  });

  test("page and page_size must be integers ≥ 1", async () => {
    const a = await user();
    for (const body of [
      { page: 0 },
      { page: -1 },
      { page: 1.5 },
      { page: "2" },
      { page_size: 0 },
      { page_size: "10" },
      { page_size: true },
    ]) {
      expect((await api.post("/api/generator/history", body, a)).body).toEqual({
        code: 1,
        message: "invalid params",
        data: null,
      });
    }
  });

  test("isolation: a user sees only their own tasks; no auth without a session", async () => {
    const a = await user();
    const b = await user();
    await generate(a, { ...IMAGE, prompt: "private" });
    const r = await api.post("/api/generator/history", {}, b);
    expect(r.body.data).toEqual({ generations: [], total: 0, page: 1, page_size: 20 });
    expect((await api.post("/api/generator/history", {})).body.message).toBe("no auth, please sign-in");
  });
});

describe("credits (spec §3.1, docs/design.md §3)", () => {
  test("debited once on success, nothing on failure", async () => {
    const a = await user(); // 10 credits
    const ok = (await generate(a, { ...IMAGE, prompt: "paid" })).data.gen_id;
    const bad = (await generate(a, { ...IMAGE, prompt: "free [simulate:fail]" })).data.gen_id;
    expect((await waitFor(a, ok)).status).toBe("completed");
    expect((await waitFor(a, bad)).status).toBe("failed");
    expect(await available(a)).toBe(7);
    await Bun.sleep(300); // any duplicate processing would have had time to happen
    expect(await available(a)).toBe(7);
    const debits = await queryServerDb(
      server.dataDir,
      "SELECT gen_id, amount, charged FROM credit_debits WHERE user_id = ?",
      a.userId,
    );
    expect(debits).toEqual([{ gen_id: ok, amount: 3, charged: 3 }]);
    const [left] = await queryServerDb(
      server.dataDir,
      "SELECT sum(remaining) AS n FROM credit_grants WHERE user_id = ?",
      a.userId,
    );
    expect(Number(left!.n)).toBe(7);
  });

  test("a task over its deadline fails with 'generation timed out' and costs nothing", async () => {
    const s = await startServer({ env: { SIMULATOR_DELAY_MS: "300", IMAGE_DEADLINE_MS: "1000" } });
    try {
      const c = new Client(s.url);
      const a = await user(c);
      const id = (await generate(a, { ...IMAGE, prompt: "too slow [simulate:slow]" }, c)).data.gen_id; // 3 s > 1 s
      const data = await waitFor(a, id, ["completed", "failed"], 10_000, c);
      expect(data.status).toBe("failed");
      expect(data.error_message).toBe("generation timed out");
      expect(await available(a, c)).toBe(10);
    } finally {
      await s.dispose();
    }
  });
});

describe("/media/… (result files)", () => {
  let url: string;
  let size: number;
  beforeAll(async () => {
    const a = await user();
    const id = (await generate(a, { ...VIDEO, prompt: "seekable" })).data.gen_id;
    url = (await waitFor(a, id)).result_urls[0];
    size = (await (await fetch(url)).arrayBuffer()).byteLength;
  });

  test("full file: type, length, long-lived cache, accepts ranges", async () => {
    const r = await fetch(url);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("video/mp4");
    expect(r.headers.get("accept-ranges")).toBe("bytes");
    expect(r.headers.get("cache-control")).toContain("max-age=31536000");
    expect(Number(r.headers.get("content-length"))).toBe(size);
    const etag = r.headers.get("etag")!;
    expect((await fetch(url, { headers: { "if-none-match": etag } })).status).toBe(304);
  });

  test("Range requests: first bytes, suffix, open end, unsatisfiable", async () => {
    const full = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const a = await fetch(url, { headers: { range: "bytes=4-7" } });
    expect(a.status).toBe(206);
    expect(a.headers.get("content-range")).toBe(`bytes 4-7/${size}`);
    expect(new TextDecoder().decode(await a.arrayBuffer())).toBe("ftyp"); // an MP4's first box
    const b = await fetch(url, { headers: { range: "bytes=-10" } });
    expect(b.status).toBe(206);
    expect([...new Uint8Array(await b.arrayBuffer())]).toEqual([...full.slice(size - 10)]);
    const c = await fetch(url, { headers: { range: `bytes=${size - 3}-` } });
    expect(c.headers.get("content-range")).toBe(`bytes ${size - 3}-${size - 1}/${size}`);
    expect((await c.arrayBuffer()).byteLength).toBe(3);
    const d = await fetch(url, { headers: { range: `bytes=${size + 10}-${size + 20}` } });
    expect(d.status).toBe(416);
    expect(d.headers.get("content-range")).toBe(`bytes */${size}`);
  });

  test("unknown files and path tricks are 404; the database is never served", async () => {
    expect((await fetch(`${server.url}/media/nope/0.png`)).status).toBe(404);
    expect((await fetch(`${server.url}/media/%2e%2e/atelier.db`)).status).toBe(404);
    expect((await fetch(`${server.url}/media/..%2fatelier.db`)).status).toBe(404);
    expect((await fetch(`${server.url}/media/../atelier.db`)).status).toBe(404);
  });
});
