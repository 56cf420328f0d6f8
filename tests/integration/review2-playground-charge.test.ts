/**
 * review2: "a demo call that reaches a live, paid provider costs the catalog
 * price" (DESIGN §5) — the JSON endpoints charge, but the /playground page's
 * form action called the same live models directly: a signed-in user with no
 * credits got live DALL·E 3 images (and live text) for free, as often as the
 * demo rate limit allows.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { tinyPng } from "../fakes/openai-text";
import { Client, uniqueEmail } from "../support/client";
import { startServer, type TestServer } from "../support/server";

setDefaultTimeout(30_000);

let server: TestServer;
let upstream: ReturnType<typeof Bun.serve>;
const calls: string[] = [];
beforeAll(async () => {
  const b64 = Buffer.from(tinyPng()).toString("base64");
  upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      calls.push(path);
      await req.text();
      if (path === "/v1/images/generations") return Response.json({ created: Math.floor(Date.now() / 1000), data: [{ b64_json: b64 }] });
      return new Response("not here", { status: 404 });
    },
  });
  server = await startServer({
    env: {
      NODE_ENV: "production",
      BETTER_AUTH_SECRET: "it-secret-it-secret-it-secret-it-secret",
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: `http://127.0.0.1:${upstream.port}/v1`,
      SIGNUP_CREDITS: "0",
      DEMO_RATE_LIMIT: "0",
    },
  });
});
afterAll(async () => {
  await server?.dispose();
  upstream?.stop(true);
});

test("the playground's live image costs its price: with no credits the upstream is never called", async () => {
  const api = new Client(server.url);
  const { cookie } = await api.signUp(uniqueEmail("playground"));
  expect((await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits).toBe(0);
  // The JSON endpoint refuses (insufficient credits) without reaching the provider.
  const json = await api.post("/api/demo/gen-image", { provider: "openai", model: "dall-e-3", prompt: "a paper boat" }, { cookie });
  expect(json.body.code).toBe(1);
  expect(calls).toEqual([]);

  const res = await fetch(`${server.url}/playground`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url, cookie },
    body: new URLSearchParams({ intent: "image", target: "openai:dall-e-3", prompt: "a paper boat" }),
  });
  const html = await res.text();
  expect(calls).toEqual([]); // the paid provider was reached for free
  expect(html).toContain("insufficient credits");
});
