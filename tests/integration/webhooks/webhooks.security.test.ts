/**
 * Webhooks can be managed with an API key (docs/events.md), so revoking a leaked key — the documented answer to a
 * leak — must also cut off what the key set up: an endpoint pointing at the attacker's server, or a secret the
 * attacker rotated. An endpoint remembers the API key that created it or rotated its secret; revoking that key
 * disables the endpoint in the same transaction, with a reason that says why, and fails its queued deliveries.
 * Endpoints set up in a session are untouched; resend re-enables one once the user has checked it
 * (docs/decisions/087-key-revocation-disables-webhooks.md).
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";
import { type Receiver, startReceiver } from "../../support/webhook-receiver";

setDefaultTimeout(60_000);

const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" };

const receivers: Receiver[] = [];
const receiver = () => {
  const r = startReceiver();
  receivers.push(r);
  return r;
};
const s = serverForFile({
  env: {
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_TIMEOUT_MS: "1000",
    SIGNUP_CREDITS: "20",
    SIMULATOR_DELAY_MS: "50",
    JOB_TICK_MS: "50",
  },
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
});

async function finished(cookie: string, genId: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await s.api.post("/api/generator/query", { gen_id: genId }, { cookie });
    if (r.body.data.status === "completed" || r.body.data.status === "failed") return r.body.data;
    if (Date.now() > deadline) throw new Error(`${genId} not finished`);
    await Bun.sleep(25);
  }
}

test("revoking a key disables the webhooks it created or re-keyed; the user's own stay active", async () => {
  const { cookie } = await s.api.signUp(uniqueEmail("wh-key-revoke"));
  const leaked = (await s.api.post("/api/keys/create", { name: "ci" }, { cookie })).body.data;
  const attacker = receiver();
  const mine = receiver();
  const rekeyed = receiver();
  // With the leaked key: a new endpoint at the attacker's server, and a new secret for one of the user's endpoints.
  const planted = (await s.api.post("/api/webhooks/create", { url: attacker.url }, { apiKey: leaked.key })).body.data;
  expect(planted.status).toBe("active");
  const own = (await s.api.post("/api/webhooks/create", { url: mine.url }, { cookie })).body.data;
  const ownRekeyed = (await s.api.post("/api/webhooks/create", { url: rekeyed.url }, { cookie })).body.data;
  const stolenSecret = (
    await s.api.post("/api/webhooks/rotate-secret", { webhook_id: ownRekeyed.webhook_id }, { apiKey: leaked.key })
  ).body.data.secret;
  expect(stolenSecret).toMatch(/^whsec_/);

  expect((await s.api.post("/api/keys/revoke", { key_id: leaked.key_id }, { cookie })).body.data.status).toBe(
    "revoked",
  );

  const list = (await s.api.post("/api/webhooks/list", undefined, { cookie })).body.data.webhooks as any[];
  const byId = new Map(list.map((w) => [w.webhook_id, w]));
  expect(byId.get(own.webhook_id)).toMatchObject({ status: "active", disabled_reason: null });
  for (const id of [planted.webhook_id, ownRekeyed.webhook_id]) {
    expect(byId.get(id).status).toBe("disabled");
    expect(byId.get(id).disabled_reason).toContain("API key");
    expect(byId.get(id).disabled_reason).toContain("revoked");
  }

  // The next event goes to the user's own endpoint only.
  const gen = (await s.api.post("/api/generator/generate", { ...IMAGE, prompt: "after the revocation" }, { cookie }))
    .body.data.gen_id;
  await finished(cookie, gen);
  const got = await mine.waitFor(1);
  expect(mine.verify(got[0]!, own.secret).data.gen_id).toBe(gen);
  await Bun.sleep(1000);
  expect(attacker.received).toEqual([]);
  expect(rekeyed.received).toEqual([]);
});

test("an endpoint created with a key stays active while that key does (revoking another key leaves it alone)", async () => {
  const { cookie } = await s.api.signUp(uniqueEmail("wh-key-kept"));
  const k1 = (await s.api.post("/api/keys/create", { name: "kept" }, { cookie })).body.data;
  const k2 = (await s.api.post("/api/keys/create", { name: "other" }, { cookie })).body.data;
  const r = receiver();
  const wh = (await s.api.post("/api/webhooks/create", { url: r.url }, { apiKey: k1.key })).body.data;
  // Revoking another key leaves it alone.
  await s.api.post("/api/keys/revoke", { key_id: k2.key_id }, { cookie });
  const list = (await s.api.post("/api/webhooks/list", undefined, { cookie })).body.data.webhooks as any[];
  expect(list.find((w) => w.webhook_id === wh.webhook_id)).toMatchObject({ status: "active", disabled_reason: null });
  const gen = (await s.api.post("/api/generator/generate", { ...IMAGE, prompt: "still delivered" }, { cookie })).body
    .data.gen_id;
  await finished(cookie, gen);
  expect(r.verify((await r.waitFor(1))[0]!, wh.secret).data.gen_id).toBe(gen);
});
