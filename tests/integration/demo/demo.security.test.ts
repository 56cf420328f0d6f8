/**
 * review2: "a demo call that reaches a live, paid provider costs the catalog
 * price" (docs/design.md §5) — the JSON endpoints charge, but the /playground page's
 * form action called the same live models directly: a signed-in user with no
 * credits got live DALL·E 3 images (and live text) for free, as often as the
 * demo rate limit allows.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type OpenAIServer, startOpenAIServer } from "../../support/openai-server";

setDefaultTimeout(30_000);

let o: OpenAIServer;
beforeAll(
  async () =>
    void (o = await startOpenAIServer({
      NODE_ENV: "production",
      BETTER_AUTH_SECRET: "it-secret-it-secret-it-secret-it-secret",
      SIGNUP_CREDITS: "0",
    })),
);
afterAll(() => o?.stop());

test("the playground's live image costs its price: with no credits the upstream is never called", async () => {
  const { cookie } = await o.signUp("playground");
  expect(await o.credits(cookie)).toBe(0);
  // The JSON endpoint refuses (insufficient credits) without reaching the provider.
  const json = await o.api.post(
    "/api/demo/gen-image",
    { provider: "openai", model: "dall-e-3", prompt: "a paper boat" },
    { cookie },
  );
  expect(json.body.code).toBe(1);
  expect(o.upstreamCalls()).toEqual([]);

  const res = await fetch(`${o.server.url}/playground`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: o.server.url, cookie },
    body: new URLSearchParams({ intent: "image", target: "openai:dall-e-3", prompt: "a paper boat" }),
  });
  const html = await res.text();
  expect(o.upstreamCalls()).toEqual([]); // the paid provider was reached for free
  expect(html).toContain("insufficient credits");
});
