/**
 * Status streams (GET /api/generator/stream, docs/design.md §10) cannot be turned against the server or outlive
 * their caller: a per-user bound on open streams, closed streams and finished tasks give their slots back, a stream
 * ends once its key is revoked or its session ends, and a client that never finishes its request headers is cut off.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { connect } from "node:net";
import { Client, uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";
import { startServer, type TestServer } from "../../support/server";
import { until } from "../../support/until";

setDefaultTimeout(60_000);

/**
 * Each open stream re-reads its task row while the task is unfinished, so one session or key with one queued task
 * could otherwise pin any number of connections and database reads. A user holds at most a bounded number of open
 * streams (the studio opens at most 3); one more is refused with the envelope, and a closed stream gives its slot back.
 */
describe("a user holds a bounded number of open status streams", () => {
  const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" };
  const OPENED = 40;
  const BOUND = 10; // generous: 3 per studio page × a few tabs

  let web: TestServer; // JOBS=off: the task stays pending, as a queued task does under load
  let api: Client;
  beforeAll(async () => {
    web = await startServer({ env: { JOBS: "off" } });
    api = new Client(web.url);
  });
  afterAll(async () => {
    await web?.dispose();
  });

  test(`one user cannot hold more than ${BOUND} open status streams`, async () => {
    const { cookie } = await api.signUp(uniqueEmail("sse-flood"));
    const gen = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "queued" }, { cookie })).body.data
      .gen_id;
    expect(typeof gen).toBe("string");
    const ctl = new AbortController();
    const opened = await Promise.all(
      Array.from({ length: OPENED }, () =>
        fetch(`${web.url}/api/generator/stream?gen_id=${gen}`, {
          headers: { cookie, accept: "text/event-stream" },
          signal: ctl.signal,
        }).catch(() => null),
      ),
    );
    const streaming = opened.filter(
      (r) => r?.status === 200 && r.headers.get("content-type")?.startsWith("text/event-stream"),
    ).length;
    const refused = opened.find((r) => r?.status === 429);
    const refusedBody = await refused?.json();
    ctl.abort();
    expect(streaming).toBeLessThanOrEqual(BOUND);
    expect(streaming).toBeGreaterThan(0);
    expect(refused?.headers.get("content-type")).toContain("application/json");
    expect(refusedBody).toEqual({ code: 1, message: "Too Many Requests", data: null });

    // Closed streams give their slot back.
    let again: Response | undefined;
    for (let i = 0; i < 50; i++) {
      again = await fetch(`${web.url}/api/generator/stream?gen_id=${gen}`, {
        headers: { cookie, accept: "text/event-stream" },
      });
      if (again.status === 200) break;
      await again.body?.cancel();
      await Bun.sleep(100);
    }
    expect(again?.status).toBe(200);
    await again?.body?.cancel();
  });
});

/**
 * A revoked key or an ended session must stop receiving a task's status, as every other request with it is refused
 * within one second (docs/decisions/084-stream-ends-on-revocation.md): an open
 * stream re-checks its caller every 500 ms and closes; the reconnect meets the 401 / sign-in envelope.
 */
describe("a stream ends when its key is revoked or its session ends", () => {
  const IMAGE = {
    ai_type: "image",
    provider: "replicate",
    model: "black-forest-labs/flux-schnell",
    prompt: "a fox that never finishes",
  };

  // JOBS=off: nobody runs the task, so it stays pending and its stream stays open.
  const s = serverForFile({ env: { JOBS: "off", SIGNUP_CREDITS: "10" } });

  /** Opens the stream, waits for its first event, and returns a promise of the ms until the server closes it (or "open"). */
  async function openStream(headers: Record<string, string>, genId: string) {
    const res = await fetch(`${s.server.url}/api/generator/stream?gen_id=${genId}`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes("event: status")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("stream closed before its first event");
      seen += new TextDecoder().decode(value);
    }
    return {
      closedWithin: async (ms: number): Promise<"closed" | "open"> => {
        const drain = (async () => {
          for (;;) if ((await reader.read()).done) return "closed" as const;
        })();
        const result = await Promise.race([drain, Bun.sleep(ms).then(() => "open" as const)]);
        if (result === "open") await reader.cancel().catch(() => {});
        return result;
      },
    };
  }

  test("a stream opened with a key closes soon after the key is revoked", async () => {
    const { cookie } = await s.api.signUp(uniqueEmail("sse-revoke"));
    const created = await s.api.post("/api/keys/create", { name: "leaked" }, { cookie });
    const { key, key_id } = created.body.data;
    const gen = await s.api.post("/api/generator/generate", IMAGE, { apiKey: key });
    const stream = await openStream({ "x-api-key": key }, gen.body.data.gen_id);
    expect((await s.api.post("/api/keys/revoke", { key_id }, { cookie })).body.data.status).toBe("revoked");
    // Re-checked every 500 ms through the key cache (≤ 1 s stale): closed well within 3 s.
    expect(await stream.closedWithin(3000)).toBe("closed");
    // The reconnect is refused.
    const again = await fetch(`${s.server.url}/api/generator/stream?gen_id=${gen.body.data.gen_id}`, {
      headers: { "x-api-key": key },
    });
    expect(again.status).toBe(401);
    expect(await again.json()).toEqual({ code: 1, message: "API key revoked", data: null });
  });

  test("a stream opened with a session closes soon after the session signs out", async () => {
    const { cookie } = await s.api.signUp(uniqueEmail("sse-signout"));
    const gen = await s.api.post("/api/generator/generate", IMAGE, { cookie });
    const stream = await openStream({ cookie }, gen.body.data.gen_id);
    const out = await fetch(`${s.server.url}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie, origin: s.server.url, "content-type": "application/json" },
      body: "{}",
    });
    expect(out.status).toBe(200);
    expect(await stream.closedWithin(3000)).toBe("closed");
  });

  test("a stream whose caller stays valid stays open", async () => {
    const { cookie } = await s.api.signUp(uniqueEmail("sse-stays"));
    const gen = await s.api.post("/api/generator/generate", IMAGE, { cookie });
    const stream = await openStream({ cookie }, gen.body.data.gen_id);
    expect(await stream.closedWithin(2500)).toBe("open");
  });
});

/**
 * Streams a client opens and never reads are ended with their task, so their slots come back; a client that sends
 * its request headers a byte at a time (slowloris) is cut off by the HTTP server within about 10 s.
 */
describe("unread streams and slow clients do not keep their slots", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startServer({ env: { SIMULATOR_DELAY_MS: "2000", SIGNUP_CREDITS: "20" } });
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
  });

  const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" };

  test("unread streams are ended with their task and free their slots", async () => {
    const { cookie } = await api.signUp(uniqueEmail("r5-unread"));
    const key = (await api.post("/api/keys/create", { name: "s" }, { cookie })).body.data.key;
    const gen = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "unread" }, { apiKey: key })).body.data
      .gen_id;
    const open = () => fetch(`${server.url}/api/generator/stream?gen_id=${gen}`, { headers: { "x-api-key": key } });
    const held = [];
    for (let i = 0; i < 10; i++) held.push(await open()); // headers only: nobody reads the bodies
    expect(held.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect((await open()).status).toBe(429);
    await until("the task finishes", async () => {
      const r = await api.post("/api/generator/query", { gen_id: gen }, { cookie }); // polled by session: the key has a per-minute limit
      if (!r.body.data) throw new Error(`query: HTTP ${r.status} ${JSON.stringify(r.body)}`);
      const s = r.body.data.status;
      return s === "completed" || s === "failed" ? s : undefined;
    });
    // The server closed all ten although none was read: the slots are free.
    const next = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "next" }, { cookie })).body.data.gen_id;
    const again = await until(
      "a slot is free",
      async () => {
        const r = await fetch(`${server.url}/api/generator/stream?gen_id=${next}`, { headers: { "x-api-key": key } });
        if (r.status === 200) return r;
        await r.body?.cancel();
        return undefined;
      },
      15_000,
      100,
    );
    await again.body?.cancel();
    for (const r of held) await r.body?.cancel().catch(() => {});
  });

  test("a client sending its headers a byte at a time is disconnected (slowloris)", async () => {
    const socket = connect(server.port, "127.0.0.1");
    const closedAt = new Promise<number>((resolve) => socket.on("close", () => resolve(Date.now())));
    socket.on("error", () => {});
    const t0 = Date.now();
    socket.write("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    let closed = false;
    void closedAt.then(() => (closed = true));
    for (let i = 0; i < 12 && !closed; i++) {
      await Bun.sleep(2000);
      if (!closed) socket.write(`X-Drip-${i}: a\r\n`);
    }
    expect(closed).toBe(true);
    expect((await closedAt) - t0).toBeLessThan(20_000);
    socket.destroy();
  });
});
