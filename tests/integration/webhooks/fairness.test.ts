/**
 * Webhook deliveries share one pool of WEBHOOK_CONCURRENCY senders (docs/decisions/060-fair-webhook-senders.md). Taken
 * oldest-due first with no per-user share, one user whose endpoints never answer would hold every sender for
 * WEBHOOK_TIMEOUT_MS per attempt (and refill the queue with retries and resends), so everyone else's webhooks would
 * wait behind theirs: a free account could stall delivery for all users.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";
import { type Receiver, startReceiver } from "../../support/webhook-receiver";

setDefaultTimeout(60_000);

let server: TestServer;
let hang: Receiver;
let ok: Receiver;
beforeAll(async () => {
  hang = startReceiver("/hang");
  hang.fallback = "hang";
  ok = startReceiver("/ok");
  server = await startServer({
    env: {
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_CONCURRENCY: "2",
      WEBHOOK_TIMEOUT_MS: "4000",
      WEBHOOK_RETRY_SCHEDULE: "100,100,100,100,100,100",
      SIGNUP_CREDITS: "100",
    },
  });
});
afterAll(async () => {
  await server?.dispose();
  hang?.releaseHung();
  await hang?.stop();
  await ok?.stop();
});

const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "a red fox" };

test("one user's hanging endpoints do not hold back another user's webhook", async () => {
  const api = new Client(server.url);
  const attacker = await api.signUp(uniqueEmail("wh-hog"));
  for (let i = 0; i < 4; i++) {
    const r = await api.post(
      "/api/webhooks/create",
      { url: `${hang.url}?n=${i}` },
      { cookie: attacker.cookie, apiKey: undefined },
      { headers: { origin: server.url } },
    );
    expect(r.body.code).toBe(0);
  }
  // Two tasks → 8 deliveries to endpoints that never answer.
  for (let i = 0; i < 2; i++)
    expect(
      (await api.post("/api/generator/generate", { ...IMAGE, prompt: `hog ${i}` }, { cookie: attacker.cookie })).body
        .code,
    ).toBe(0);
  await hang.waitFor(2, 15_000); // every sender is now stuck on the attacker's endpoints

  const victim = await api.signUp(uniqueEmail("wh-victim"));
  expect((await api.post("/api/webhooks/create", { url: ok.url }, { cookie: victim.cookie })).body.code).toBe(0);
  const gen = await api.post("/api/generator/generate", IMAGE, { cookie: victim.cookie });
  expect(gen.body.code).toBe(0);
  // The victim's task completes in well under a second (simulated, 50 ms); its webhook follows at once when a sender is free.
  const t0 = Date.now();
  await ok.waitFor(1, 30_000);
  const waited = Date.now() - t0;
  // With the attacker holding both senders for 4 s per attempt, the victim waits ≥ 4 s; a fair share answers at once.
  expect(waited).toBeLessThan(3000);
});
