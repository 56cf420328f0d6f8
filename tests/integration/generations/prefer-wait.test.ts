/**
 * `Prefer: wait` on POST /api/generator/generate: the answer is held until the task finishes (with the query
 * response's fields), or the wait runs out (still pending or processing); a client that leaves frees its wait; the
 * per-user bound answers at once instead of holding; a shutdown answers held waits at once; a task finished by
 * another process (a worker on the same database) ends the wait.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";

const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" };
const MESSAGE = "generation task created; poll /api/generator/query with gen_id";

const generate = (server: TestServer, cookie: string, prompt: string, prefer?: string, signal?: AbortSignal) =>
  fetch(`${server.url}/api/generator/generate`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, origin: server.url, ...(prefer ? { prefer } : {}) },
    body: JSON.stringify({ ...IMAGE, prompt }),
    signal,
  });

describe("Prefer: wait", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startServer({ env: { SIMULATOR_DELAY_MS: "400", SIGNUP_CREDITS: "100" } });
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
  });

  test("wait=20 answers the completed task with result_urls, gen_id and message", async () => {
    const { cookie } = await api.signUp(uniqueEmail("wait"));
    const t0 = Date.now();
    const res = await generate(server, cookie, "a fox, waited for", "wait=20");
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.code).toBe(0);
    expect(body.data.status).toBe("completed");
    expect(body.data.result_urls.length).toBeGreaterThan(0);
    expect(body.data.message).toBe(MESSAGE);
    expect(body.data.completed_at).toEndWith("Z");
    expect(res.headers.get("preference-applied")).toBe("wait=20");
    expect(Date.now() - t0).toBeLessThan(15_000);
    const q = await api.post("/api/generator/query", { gen_id: body.data.gen_id }, { cookie });
    expect(q.body.data.result_urls).toEqual(body.data.result_urls);
  });

  test("a failing task answers failed with its error_message", async () => {
    const { cookie } = await api.signUp(uniqueEmail("wait-fail"));
    const body = await (await generate(server, cookie, "broken [simulate:fail]", "wait")).json();
    expect(body.data.status).toBe("failed");
    expect(typeof body.data.error_message).toBe("string");
    expect(body.data.gen_id).toBeString();
  });

  test("a wait that runs out answers the unfinished task after about N seconds", async () => {
    const { cookie } = await api.signUp(uniqueEmail("wait-slow"));
    const t0 = Date.now();
    const res = await generate(server, cookie, "slow [simulate:slow]", "wait=1");
    const body = await res.json();
    const took = Date.now() - t0;
    expect(["pending", "processing"]).toContain(body.data.status);
    expect(body.data.message).toBe(MESSAGE);
    expect(body.data.created_at).toEndWith("Z");
    expect(took).toBeGreaterThanOrEqual(950);
    expect(took).toBeLessThan(3500);
  });

  test("without the header nothing changes: status pending at once", async () => {
    const { cookie } = await api.signUp(uniqueEmail("nowait"));
    const res = await generate(server, cookie, "plain");
    const body = await res.json();
    expect(body.data).toEqual({ gen_id: body.data.gen_id, status: "pending", message: MESSAGE });
    expect(res.headers.get("preference-applied")).toBeNull();
  });

  test("clients that leave free their waits: after 10 aborted waits the same user's next wait is applied", async () => {
    const { cookie } = await api.signUp(uniqueEmail("wait-abort"));
    const aborts = Array.from({ length: 10 }, () => new AbortController());
    const held = aborts.map((a, i) =>
      generate(server, cookie, `held ${i} [simulate:slow]`, "wait=30", a.signal).catch(() => null),
    );
    await Bun.sleep(1500);
    for (const a of aborts) a.abort();
    await Promise.all(held);
    // Had the ten waits kept their slots (the user's bound is 10; they wait 30 s), these would answer unapplied.
    // A few tries: a loaded machine may take a moment to see the disconnects.
    let applied: string | null = null;
    for (let i = 0; i < 5 && applied === null; i++) {
      await Bun.sleep(500);
      const res = await generate(server, cookie, `after aborts ${i} [simulate:slow]`, "wait=1");
      applied = res.headers.get("preference-applied");
    }
    expect(applied).toBe("wait=1");
  });
});

describe("Prefer: wait bounds and shutdown", () => {
  test("over MAX_WAITS_PER_USER (10) the wait is not applied; a shutdown answers held waits at once", async () => {
    const server = await startServer({ env: { SIMULATOR_DELAY_MS: "5000", SIGNUP_CREDITS: "100" } });
    try {
      const api = new Client(server.url);
      const { cookie } = await api.signUp(uniqueEmail("wait-ten"));
      const held = Array.from({ length: 10 }, (_, i) => generate(server, cookie, `held ${i}`, "wait=60"));
      await Bun.sleep(1500);
      const t0 = Date.now();
      const extra = await generate(server, cookie, "the eleventh", "wait=60");
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(extra.headers.get("preference-applied")).toBeNull();
      expect((await extra.json()).data.status).toBe("pending");
      const t1 = Date.now();
      await server.stop("SIGTERM");
      const answers = await Promise.all(held.map(async (r) => (await r).json()));
      expect(Date.now() - t1).toBeLessThan(10_000);
      for (const a of answers) {
        expect(a.code).toBe(0);
        expect(["pending", "processing", "completed"]).toContain(a.data.status);
      }
    } finally {
      await server.dispose();
    }
  });

  test("a task finished by another process (a worker on the same database) ends the wait", async () => {
    const web = await startServer({ env: { JOBS: "off", SIMULATOR_DELAY_MS: "300" } });
    let worker: TestServer | undefined;
    try {
      const api = new Client(web.url);
      const { cookie } = await api.signUp(uniqueEmail("wait-node"));
      const pending = generate(web, cookie, "made elsewhere", "wait=30");
      await Bun.sleep(500);
      worker = await startServer({ dataDir: web.dataDir, env: { SIMULATOR_DELAY_MS: "300" } });
      const body = await (await pending).json();
      expect(body.data.status).toBe("completed");
      expect(body.data.result_urls.length).toBeGreaterThan(0);
    } finally {
      await worker?.stop();
      await web.dispose();
    }
  });
});
