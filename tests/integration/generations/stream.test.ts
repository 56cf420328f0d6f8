/**
 * GET /api/generator/stream (docs/design.md §10) over real HTTP: the status on each
 * change, closed after the final one, including a completion made by another
 * server process on the same database; errors before the stream are envelopes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, uniqueEmail } from "../../support/client";
import { insertApiKey, openServerDb } from "../../support/db";
import { startServer, type TestServer } from "../../support/server";

// A loaded shared machine makes servers slow to start and answer.

const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" };

/** Reads a whole SSE response: the `data` of each `status` event, in order. */
async function readEvents(res: Response): Promise<any[]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((block) => block.includes("event: status"))
    .map((block) =>
      JSON.parse(
        block
          .split("\n")
          .find((l) => l.startsWith("data: "))!
          .slice(6),
      ),
    );
}

describe("status stream", () => {
  let web: TestServer; // JOBS=off: this process never runs a task
  let worker: TestServer | undefined;
  let api: Client;
  beforeAll(async () => {
    web = await startServer({ env: { JOBS: "off", SIMULATOR_DELAY_MS: "600" } });
    api = new Client(web.url);
  });
  afterAll(async () => {
    await worker?.stop();
    await web?.dispose();
  });

  test("the stream sees processing and the completion made by another process, then closes", async () => {
    const { cookie } = await api.signUp(uniqueEmail("sse"));
    const gen = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "streamed fox" }, { cookie })).body.data
      .gen_id;
    const res = await fetch(`${web.url}/api/generator/stream?gen_id=${gen}`, {
      headers: { cookie, accept: "text/event-stream" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const events = readEvents(res);
    await Bun.sleep(300); // the stream is open, the task still pending (nobody runs it)
    worker = await startServer({ dataDir: web.dataDir, env: { SIMULATOR_DELAY_MS: "600" } });
    const got = await events; // resolves only when the server closes the stream
    expect(got[0]).toMatchObject({ gen_id: gen, status: "pending" });
    expect(got.map((e) => e.status)).toContain("processing");
    const last = got[got.length - 1];
    const q = await api.post("/api/generator/query", { gen_id: gen }, { cookie });
    expect(last).toEqual(q.body.data);
    expect(last.status).toBe("completed");
    expect(typeof last.started_at).toBe("string");
  }, 30_000);

  test("a finished task: one event, then the stream closes; with an API key too", async () => {
    const { cookie, userId } = await api.signUp(uniqueEmail("sse-done"));
    const gen = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "done" }, { cookie })).body.data.gen_id;
    await api.post("/api/generator/cancel", { gen_id: gen }, { cookie });
    const db = await openServerDb(web.dataDir);
    const key = await insertApiKey(db, userId);
    void db.close();
    const got = await readEvents(
      await fetch(`${web.url}/api/generator/stream?gen_id=${gen}`, { headers: { "x-api-key": key } }),
    );
    expect(got).toEqual([expect.objectContaining({ gen_id: gen, status: "failed", error_message: "canceled" })]);
  });

  test("errors before the stream are envelopes: not signed in, not found (another user's), missing gen_id, bad key, wrong method", async () => {
    const a = await api.signUp(uniqueEmail("sse-a"));
    const b = await api.signUp(uniqueEmail("sse-b"));
    const gen = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "mine" }, { cookie: a.cookie })).body
      .data.gen_id;
    const get = async (qs: string, headers: Record<string, string> = {}) => {
      const r = await fetch(`${web.url}/api/generator/stream${qs}`, { headers });
      return { status: r.status, type: r.headers.get("content-type"), body: await r.json() };
    };
    expect(await get(`?gen_id=${gen}`)).toMatchObject({
      status: 200,
      body: { code: 1, message: "no auth, please sign-in", data: null },
    });
    expect((await get(`?gen_id=${gen}`, { cookie: b.cookie })).body.message).toBe("generation not found");
    expect((await get(``, { cookie: a.cookie })).body.message).toBe("invalid params");
    expect((await get(`?gen_id=${gen}`, { "x-api-key": "atl_nope" })).status).toBe(401);
    const post = await fetch(`${web.url}/api/generator/stream?gen_id=${gen}`, {
      method: "POST",
      headers: { cookie: a.cookie },
    });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
  });
});
