/**
 * Task links: the query answer, history entries and webhook payloads carry `urls: {get, cancel, stream, web}`
 * built from PUBLIC_URL, and each link works as documented (get and cancel take the gen_id from the URL).
 */
import { describe, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";
import { startReceiver } from "../../support/webhook-receiver";

const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" };
const it = serverForFile({ env: { SIMULATOR_DELAY_MS: "300", WEBHOOK_ALLOW_PRIVATE: "true", SIGNUP_CREDITS: "100" } });

describe("task links", () => {
  test("query and history carry urls; get, cancel, stream and web work as links", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("links"));
    const key = (await it.api.post("/api/keys/create", { name: "links" }, { cookie })).body.data.key as string;
    const gen = (await it.api.post("/api/generator/generate", { ...IMAGE, prompt: "linked" }, { apiKey: key })).body
      .data.gen_id as string;
    const q = await it.api.post("/api/generator/query", { gen_id: gen }, { apiKey: key });
    const base = it.server.url;
    expect(q.body.data.urls).toEqual({
      get: `${base}/api/generator/query?gen_id=${gen}`,
      cancel: `${base}/api/generator/cancel?gen_id=${gen}`,
      stream: `${base}/api/generator/stream?gen_id=${gen}`,
      web: `${base}/studio/${gen}`,
    });
    const links = q.body.data.urls;
    // get: a POST with no body, the key in the header.
    const got = await (await fetch(links.get, { method: "POST", headers: { "x-api-key": key } })).json();
    expect(got.code).toBe(0);
    expect(got.data.gen_id).toBe(gen);
    // The body wins over the URL: another id in the body is looked up (and is not found).
    const other = await it.api.post(
      new URL(links.get).pathname + new URL(links.get).search,
      { gen_id: "nope" },
      {
        apiKey: key,
      },
    );
    expect(other.body.message).toBe("generation not found");
    // stream: an SSE response.
    const sse = await fetch(links.stream, { headers: { "x-api-key": key } });
    expect(sse.headers.get("content-type")).toStartWith("text/event-stream");
    await sse.body?.cancel();
    // web: the studio page (redirects to sign-in without a session, 200 with one).
    const page = await fetch(links.web, { headers: { cookie }, redirect: "manual" });
    expect(page.status).toBe(200);
    // history entries.
    const h = await it.api.post("/api/generator/history", {}, { apiKey: key });
    expect(h.body.data.generations[0].urls.get).toBe(links.get);
    // cancel through its link, for a slow task.
    const slow = (
      await it.api.post("/api/generator/generate", { ...IMAGE, prompt: "to cancel [simulate:slow]" }, { apiKey: key })
    ).body.data.gen_id;
    const slowLinks = (await it.api.post("/api/generator/query", { gen_id: slow }, { apiKey: key })).body.data.urls;
    const canceled = await (await fetch(slowLinks.cancel, { method: "POST", headers: { "x-api-key": key } })).json();
    expect(canceled.code).toBe(0);
    expect(canceled.data.status).toBe("failed");
    expect(canceled.data.error_message).toBe("canceled");
  });

  test("another user's link answers generation not found", async () => {
    const a = await it.api.signUp(uniqueEmail("links-a"));
    const b = await it.api.signUp(uniqueEmail("links-b"));
    const gen = (await it.api.post("/api/generator/generate", { ...IMAGE, prompt: "mine" }, { cookie: a.cookie })).body
      .data.gen_id;
    const res = await it.api.post(`/api/generator/query?gen_id=${gen}`, {}, { cookie: b.cookie });
    expect(res.body.message).toBe("generation not found");
  });

  test("webhook payloads carry the task's urls", async () => {
    const rcv = startReceiver();
    try {
      const { cookie } = await it.api.signUp(uniqueEmail("links-hook"));
      const wh = (await it.api.post("/api/webhooks/create", { url: rcv.url }, { cookie })).body.data;
      const gen = (await it.api.post("/api/generator/generate", { ...IMAGE, prompt: "hooked" }, { cookie })).body.data
        .gen_id;
      const [got] = await rcv.waitFor(1, 20_000);
      const payload = rcv.verify(got!, wh.secret);
      expect(payload.data.gen_id).toBe(gen);
      expect(payload.data.urls.get).toBe(`${it.server.url}/api/generator/query?gen_id=${gen}`);
      expect(payload.data.urls.web).toBe(`${it.server.url}/studio/${gen}`);
    } finally {
      await rcv.stop();
    }
  });
});
