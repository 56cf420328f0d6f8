/**
 * Streams and slow clients (docs/decisions/103-payments-webhooks-streams-probes.md):
 * - Status streams a client opens and never reads do not keep their slots: the
 *   server ends them with the task, whether or not anyone read a byte.
 * - A client that sends its request headers a byte at a time (slowloris) is cut
 *   off by the HTTP server (Bun closes a connection whose headers are not complete
 *   within about 10 s).
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { connect } from "node:net";
import { Client, uniqueEmail } from "../support/client";
import { startServer, type TestServer } from "../support/server";
import { until } from "../support/until";

setDefaultTimeout(60_000);

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
