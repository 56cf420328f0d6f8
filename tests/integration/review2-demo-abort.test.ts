/**
 * review2: a live demo call is paid before the upstream call and given back
 * "if the upstream fails". A client that disconnects while the upstream is
 * working aborts the SDK call (request.signal), which counts as a failure: the
 * credits come back although the paid provider was reached and bills the
 * operator. Repeating this costs the operator real money at no cost to the caller.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type OpenAIServer, startOpenAIServer } from "../support/openai-server";

setDefaultTimeout(30_000);

let o: OpenAIServer;
// A slow OpenAI Images API: answers after 1.5 s (a real one bills the image whether or not we wait).
beforeAll(
  async () => void (o = await startOpenAIServer({ NODE_ENV: "development", SIGNUP_CREDITS: "10" }, { delayMs: 1500 })),
);
afterAll(() => o?.stop());

test("a client that disconnects during a live demo image still pays for the upstream call it caused", async () => {
  const { cookie } = await o.signUp("demoabort");
  const abort = new AbortController();
  const pending = fetch(`${o.server.url}/api/demo/gen-image`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, origin: o.server.url },
    body: JSON.stringify({ provider: "openai", model: "dall-e-3", prompt: "a paper boat" }),
    signal: abort.signal,
  }).catch(() => null);
  const deadline = Date.now() + 10_000;
  while (o.upstreamCalls().length === 0) {
    if (Date.now() > deadline) throw new Error("the upstream was never called");
    await Bun.sleep(20);
  }
  abort.abort();
  await pending;
  await Bun.sleep(2500); // the upstream answers meanwhile; the server has settled the charge
  expect(o.upstreamCalls()).toEqual(["/v1/images/generations"]);
  // dall-e-3 costs 5 in the catalog: the reached upstream is paid for.
  expect(await o.credits(cookie)).toBe(5);
});
