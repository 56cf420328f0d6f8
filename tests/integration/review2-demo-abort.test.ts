/**
 * review2: a live demo call is paid before the upstream call and given back
 * "if the upstream fails". A client that disconnects while the upstream is
 * working aborts the SDK call (request.signal), which counts as a failure: the
 * credits come back although the paid provider was reached and bills the
 * operator. Repeating this costs the operator real money at no cost to the caller.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { tinyPng } from "../fakes/openai-text";
import { Client, uniqueEmail } from "../support/client";
import { startServer, type TestServer } from "../support/server";

setDefaultTimeout(30_000);

let server: TestServer;
let upstream: ReturnType<typeof Bun.serve>;
let calls = 0;
beforeAll(async () => {
  const b64 = Buffer.from(tinyPng()).toString("base64");
  // A slow OpenAI Images API: answers after 1.5 s (a real one bills the image whether or not we wait).
  upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (new URL(req.url).pathname !== "/v1/images/generations") return new Response("no", { status: 404 });
      calls++;
      await req.text();
      await Bun.sleep(1500);
      return Response.json({ created: Math.floor(Date.now() / 1000), data: [{ b64_json: b64 }] });
    },
  });
  server = await startServer({
    env: { NODE_ENV: "development", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `http://127.0.0.1:${upstream.port}/v1`, SIGNUP_CREDITS: "10", DEMO_RATE_LIMIT: "0" },
  });
});
afterAll(async () => {
  await server?.dispose();
  upstream?.stop(true);
});

test("a client that disconnects during a live demo image still pays for the upstream call it caused", async () => {
  const api = new Client(server.url);
  const { cookie } = await api.signUp(uniqueEmail("demoabort"));
  const abort = new AbortController();
  const pending = fetch(`${server.url}/api/demo/gen-image`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, origin: server.url },
    body: JSON.stringify({ provider: "openai", model: "dall-e-3", prompt: "a paper boat" }),
    signal: abort.signal,
  }).catch(() => null);
  const deadline = Date.now() + 10_000;
  while (calls === 0) {
    if (Date.now() > deadline) throw new Error("the upstream was never called");
    await Bun.sleep(20);
  }
  abort.abort();
  await pending;
  await Bun.sleep(2500); // the upstream answers meanwhile; the server has settled the charge
  expect(calls).toBe(1);
  const left = (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits;
  // dall-e-3 costs 5 in the catalog: the reached upstream is paid for.
  expect(left).toBe(5);
});
