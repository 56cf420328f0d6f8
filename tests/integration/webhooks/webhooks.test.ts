/**
 * Webhooks over real HTTP (docs/design.md §10): receivers verify signatures with the
 * `standardwebhooks` library; retries keep the webhook-id; a SIGKILLed server
 * delivers after restart; rotation; private destinations refused; an endpoint
 * that keeps failing is disabled with its reason; resend; isolation.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";
import { until } from "../../support/until";
import { type Receiver, startReceiver } from "../../support/webhook-receiver";

// A loaded shared machine makes servers slow to start and answer.

const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" };
const FAST = {
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_TIMEOUT_MS: "1000",
  WEBHOOK_RETRY_SCHEDULE: "200,200,200,200,200",
  SIGNUP_CREDITS: "100",
};

async function finalStatus(api: Client, cookie: string, genId: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api.post("/api/generator/query", { gen_id: genId }, { cookie });
    if (r.body.data.status === "completed" || r.body.data.status === "failed") return r.body.data;
    if (Date.now() > deadline) throw new Error(`${genId} not finished`);
    await Bun.sleep(25);
  }
}

async function deliveriesOf(api: Client, cookie: string, webhookId: string) {
  const r = await api.post("/api/webhooks/deliveries", { webhook_id: webhookId }, { cookie });
  expect(r.body.code).toBe(0);
  return r.body.data.deliveries as any[];
}

describe("webhooks", () => {
  let server: TestServer;
  let api: Client;
  const receivers: Receiver[] = [];
  const receiver = () => {
    const r = startReceiver();
    receivers.push(r);
    return r;
  };
  beforeAll(async () => {
    server = await startServer({ env: FAST });
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  test("a receiver verifying with the standardwebhooks library gets generation.completed and generation.failed; data = the query response", async () => {
    const rcv = receiver();
    const { cookie } = await api.signUp(uniqueEmail("wh"));
    const created = await api.post("/api/webhooks/create", { url: rcv.url, description: "ci" }, { cookie });
    expect(created.body.code).toBe(0);
    const wh = created.body.data;
    expect(wh).toMatchObject({
      url: rcv.url,
      events: ["generation.completed", "generation.failed"],
      description: "ci",
      status: "active",
      disabled_reason: null,
    });
    expect(wh.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);

    const ok = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "a fox" }, { cookie })).body.data.gen_id;
    const bad = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "a fox [simulate:fail]" }, { cookie }))
      .body.data.gen_id;
    const okFinal = await finalStatus(api, cookie, ok);
    const badFinal = await finalStatus(api, cookie, bad);
    const got = await rcv.waitFor(2);
    const payloads = got.map((r) => rcv.verify(r, wh.secret) as any);
    const byGen = new Map(payloads.map((p) => [p.data.gen_id, p]));
    expect(byGen.get(ok)).toEqual({
      type: "generation.completed",
      timestamp: expect.stringMatching(/Z$/),
      data: okFinal,
    });
    expect(byGen.get(bad)).toEqual({
      type: "generation.failed",
      timestamp: expect.stringMatching(/Z$/),
      data: badFinal,
    });
    // A wrong secret does not verify (the check can fail).
    expect(() =>
      new Webhook(`whsec_${Buffer.from("x".repeat(24)).toString("base64")}`).verify(got[0]!.body, {
        "webhook-id": got[0]!.id,
        "webhook-timestamp": got[0]!.timestamp,
        "webhook-signature": got[0]!.signature,
      }),
    ).toThrow();
    for (const r of got) {
      expect(r.id).toMatch(/^msg_/);
      expect(Math.abs(Number(r.timestamp) - Date.now() / 1000)).toBeLessThan(30);
    }
    const log = await until("delivered", async () => {
      const d = await deliveriesOf(api, cookie, wh.webhook_id);
      return d.length === 2 && d.every((x) => x.status === "delivered") ? d : undefined;
    });
    expect(log[0]).toMatchObject({ attempts: 1, response_status: 200, last_error: null });
    expect(log[0].recent_attempts.length).toBe(1);

    // Subscribed to one type only: the other is not sent.
    const only = receiver();
    const u2 = await api.signUp(uniqueEmail("wh-only"));
    const sub = (
      await api.post("/api/webhooks/create", { url: only.url, events: ["generation.failed"] }, { cookie: u2.cookie })
    ).body.data;
    expect(sub.events).toEqual(["generation.failed"]);
    await finalStatus(
      api,
      u2.cookie,
      (await api.post("/api/generator/generate", { ...IMAGE, prompt: "fine" }, { cookie: u2.cookie })).body.data.gen_id,
    );
    const f = (
      await api.post("/api/generator/generate", { ...IMAGE, prompt: "x [simulate:fail]" }, { cookie: u2.cookie })
    ).body.data.gen_id;
    await finalStatus(api, u2.cookie, f);
    await only.waitFor(1);
    await Bun.sleep(300);
    expect(only.received.length).toBe(1);
    expect(only.verify(only.received[0]!, sub.secret).type).toBe("generation.failed");
  }, 30_000);

  test("500, then a timeout, then 200: the event arrives with one webhook-id and is delivered once", async () => {
    const rcv = receiver();
    rcv.script = [{ status: 500 }, { status: 200, delayMs: 1500 }, { status: 200 }];
    const { cookie } = await api.signUp(uniqueEmail("wh-retry"));
    const wh = (await api.post("/api/webhooks/create", { url: rcv.url }, { cookie })).body.data;
    const gen = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "retry me" }, { cookie })).body.data
      .gen_id;
    await finalStatus(api, cookie, gen);
    const got = await rcv.waitFor(3);
    expect(new Set(got.map((r) => r.id)).size).toBe(1);
    for (const r of got) expect(rcv.verify(r, wh.secret).data.gen_id).toBe(gen);
    const d = await until("delivered", async () => {
      const [x] = await deliveriesOf(api, cookie, wh.webhook_id);
      return x?.status === "delivered" ? x : undefined;
    });
    expect(d.attempts).toBe(3);
    expect(d.event_id).toBe(got[0]!.id);
    const attempts = [...d.recent_attempts].reverse();
    expect(attempts.map((a: any) => a.response_status)).toEqual([500, null, 200]);
    expect(attempts[1].error).toContain("no answer within 1000 ms");
    await Bun.sleep(800);
    expect(rcv.received.length).toBe(3); // nothing after the 2xx
  }, 30_000);

  test("rotating the secret: the new secret verifies, the old one keeps verifying during the overlap", async () => {
    const rcv = receiver();
    const { cookie } = await api.signUp(uniqueEmail("wh-rotate"));
    const wh = (await api.post("/api/webhooks/create", { url: rcv.url }, { cookie })).body.data;
    const rotated = await api.post("/api/webhooks/rotate-secret", { webhook_id: wh.webhook_id }, { cookie });
    expect(rotated.body.code).toBe(0);
    const secret = rotated.body.data.secret;
    expect(secret).not.toBe(wh.secret);
    expect(Date.parse(rotated.body.data.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const gen = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "rotate" }, { cookie })).body.data
      .gen_id;
    await finalStatus(api, cookie, gen);
    const [r] = await rcv.waitFor(1);
    expect(r!.signature.split(" ").length).toBe(2);
    expect(rcv.verify(r!, secret).data.gen_id).toBe(gen);
    expect(rcv.verify(r!, wh.secret).data.gen_id).toBe(gen);
    // The list never shows secrets.
    const list = await api.post("/api/webhooks/list", undefined, { cookie });
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
  }, 30_000);

  test("an endpoint failing past WEBHOOK_DISABLE_AFTER_MS is disabled with the reason; resend re-enables it and keeps the webhook-id", async () => {
    const s = await startServer({
      env: { ...FAST, WEBHOOK_DISABLE_AFTER_MS: "1000", WEBHOOK_RETRY_SCHEDULE: "300,300,300,300,300,300,300,300" },
    });
    try {
      const c = new Client(s.url);
      const rcv = receiver();
      rcv.fallback = { status: 503 };
      const { cookie } = await c.signUp(uniqueEmail("wh-disable"));
      const wh = (await c.post("/api/webhooks/create", { url: rcv.url }, { cookie })).body.data;
      const gen = (await c.post("/api/generator/generate", { ...IMAGE, prompt: "nobody listens" }, { cookie })).body
        .data.gen_id;
      await finalStatus(c, cookie, gen);
      const listed = await until("disabled", async () => {
        const l = (await c.post("/api/webhooks/list", undefined, { cookie })).body.data.webhooks[0];
        return l.status === "disabled" ? l : undefined;
      });
      expect(listed.disabled_reason).toContain("no successful delivery since");
      expect(listed.disabled_reason).toContain("HTTP 503");
      const [d] = await deliveriesOf(c, cookie, wh.webhook_id);
      expect(d.status).toBe("failed");
      const n = rcv.received.length;

      rcv.fallback = { status: 200 };
      const resent = await c.post("/api/webhooks/resend", { delivery_id: d.delivery_id }, { cookie });
      expect(resent.body.data).toEqual({ delivery_id: d.delivery_id, status: "pending" });
      await rcv.waitFor(n + 1);
      expect(rcv.received[n]!.id).toBe(d.event_id);
      const after = (await c.post("/api/webhooks/list", undefined, { cookie })).body.data.webhooks[0];
      expect(after).toMatchObject({ status: "active", disabled_reason: null });
    } finally {
      await s.dispose();
    }
  }, 40_000);

  test("isolation: another user's webhook and delivery are not found; delete removes", async () => {
    const rcv = receiver();
    const a = await api.signUp(uniqueEmail("wh-a"));
    const b = await api.signUp(uniqueEmail("wh-b"));
    const wh = (await api.post("/api/webhooks/create", { url: rcv.url }, { cookie: a.cookie })).body.data;
    for (const path of ["/api/webhooks/delete", "/api/webhooks/rotate-secret", "/api/webhooks/deliveries"]) {
      expect((await api.post(path, { webhook_id: wh.webhook_id }, { cookie: b.cookie })).body).toEqual({
        code: 1,
        message: "webhook not found",
        data: null,
      });
    }
    expect(
      (await api.post("/api/webhooks/resend", { delivery_id: "dlv_nope" }, { cookie: b.cookie })).body.message,
    ).toBe("delivery not found");
    expect((await api.post("/api/webhooks/list", undefined, { cookie: b.cookie })).body.data.webhooks).toEqual([]);
    expect(
      (await api.post("/api/webhooks/delete", { webhook_id: wh.webhook_id }, { cookie: a.cookie })).body.data,
    ).toEqual({ webhook_id: wh.webhook_id, deleted: true });
    expect((await api.post("/api/webhooks/list", undefined, { cookie: a.cookie })).body.data.webhooks).toEqual([]);
    expect(
      (await api.post("/api/webhooks/create", { url: rcv.url, events: ["generation.started"] }, { cookie: a.cookie }))
        .body.message,
    ).toBe("invalid params");
    expect(
      (await api.post("/api/webhooks/create", { url: "ftp://example.com/x" }, { cookie: a.cookie })).body.message,
    ).toStartWith("invalid params: url refused");
  }, 30_000);
});

describe("private destinations", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startServer(); // WEBHOOK_ALLOW_PRIVATE unset
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
  });

  test("loopback, private and link-local (metadata) destinations are refused", async () => {
    const { cookie } = await api.signUp(uniqueEmail("wh-ssrf"));
    for (const url of [
      "http://127.0.0.1:8080/hook",
      "http://localhost/hook",
      "http://10.0.0.5/x",
      "http://192.168.1.1/x",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/x",
      "http://[::ffff:127.0.0.1]/x",
    ]) {
      const r = await api.post("/api/webhooks/create", { url }, { cookie });
      expect({ url, code: r.body.code }).toEqual({ url, code: 1 });
      expect(r.body.message).toStartWith("invalid params: url refused");
    }
    expect((await api.post("/api/webhooks/list", undefined, { cookie })).body.data.webhooks).toEqual([]);
  }, 30_000);
});

describe("crash safety", () => {
  test("a server SIGKILLed after the transition, mid-delivery, delivers the event after restart (same webhook-id)", async () => {
    const rcv = startReceiver();
    rcv.script = ["hang"];
    const first = await startServer({ env: FAST });
    const dataDir = first.dataDir;
    let second: TestServer | undefined;
    try {
      const api = new Client(first.url);
      const { cookie } = await api.signUp(uniqueEmail("wh-kill"));
      const wh = (await api.post("/api/webhooks/create", { url: rcv.url }, { cookie })).body.data;
      const gen = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "crash" }, { cookie })).body.data
        .gen_id;
      await rcv.waitFor(1); // the attempt is in flight: the receiver holds it
      expect(await first.stop("SIGKILL")).not.toBe(0);
      rcv.releaseHung();
      second = await startServer({ env: FAST, dataDir, port: first.port });
      const got = await rcv.waitFor(2, 20_000);
      expect(got[1]!.id).toBe(got[0]!.id);
      const payload = rcv.verify(got[1]!, wh.secret);
      expect(payload).toMatchObject({ type: "generation.completed", data: { gen_id: gen, status: "completed" } });
      const api2 = new Client(second.url);
      const d = await until("delivered", async () => {
        const [x] = await deliveriesOf(api2, cookie, wh.webhook_id);
        return x?.status === "delivered" ? x : undefined;
      });
      expect(d.event_id).toBe(got[0]!.id);
    } finally {
      await second?.dispose();
      await first.dispose();
      await rcv.stop();
    }
  }, 40_000);
});
