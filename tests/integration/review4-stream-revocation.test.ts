/**
 * Every request with a revoked key is refused within one second (docs/decisions/040-api-key-cache.md), and an open status
 * stream must not outlive that: it re-checks its caller's credential every 500 ms (through the same ≤ 1 s caches as
 * every request) and closes when it no longer works; the client's reconnect then meets the 401 / sign-in envelope
 * (docs/decisions/084-stream-ends-on-revocation.md).
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../support/client";
import { serverForFile } from "../support/file-server";

setDefaultTimeout(60_000);

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
