/**
 * Webhook endpoints cannot be turned against the operator or outlive the credential that set them up: a refused URL
 * names no internal address, IPv6 spellings of private and metadata addresses are refused, revoking a key disables
 * the endpoints it created or re-keyed (docs/decisions/087-key-revocation-disables-webhooks.md), and resends are
 * bounded per user (docs/decisions/085-webhook-resend-limit.md).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client, uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";
import { startServer, type TestServer } from "../../support/server";
import { until } from "../../support/until";
import { type Receiver, startReceiver } from "../../support/webhook-receiver";

setDefaultTimeout(60_000);

/**
 * Webhooks can be managed with an API key, so someone holding a leaked key could add an endpoint of their own (or
 * re-key the user's): revoking the key — the documented answer to a leak — disables the endpoints it created or
 * re-keyed, in the same transaction, with a reason, and fails their queued deliveries. Endpoints set up in a session
 * are untouched; resend re-enables one once the user has checked it.
 */
describe("revoking a key disables the webhooks it set up", () => {
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
});

/**
 * The URL check must not tell a caller what the server's own resolver knows (internal names, their addresses, or
 * "could not be resolved"): the refusal names the host and the rule, never an address, a range or the resolver's
 * answer, and is the same for a name that does not resolve.
 */
describe("a refused webhook URL names no internal address", () => {
  const s = serverForFile(); // WEBHOOK_ALLOW_PRIVATE unset, as in production

  const IPV4 = /\b\d{1,3}(\.\d{1,3}){3}\b/;
  const LEAKS = [
    IPV4,
    /::/,
    /loopback|private|linkLocal|link-local|reserved|uniqueLocal|unspecified|ENOTFOUND|EAI_|getaddrinfo/i,
  ];

  test("a refused webhook URL names no address, range or resolver error; an internal name and an unknown one answer alike", async () => {
    const { cookie } = await s.api.signUp(uniqueEmail("wh-dns"));
    const init = { headers: { origin: s.server.url } };
    const refusal = async (url: string) => (await s.api.post("/api/webhooks/create", { url }, { cookie }, init)).body;
    const answers: Record<string, string> = {};
    for (const url of [
      "http://localhost/hook",
      "http://127.0.0.1:8080/hook",
      "http://10.0.3.7/x",
      "http://[::1]/x",
      "http://169.254.169.254/latest",
      "http://no-such-host.invalid/x",
    ]) {
      const body = await refusal(url);
      expect({ url, code: body.code }).toEqual({ url, code: 1 });
      expect(body.message).toStartWith("invalid params: url refused");
      answers[url] = body.message;
      // The host the caller wrote may appear; nothing the server looked up may.
      const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
      const told = body.message.split(host).join("HOST");
      for (const leak of LEAKS)
        expect({ url, message: body.message, leaks: leak.test(told) }).toEqual({
          url,
          message: body.message,
          leaks: false,
        });
    }
    console.log(answers);
    // A name the internal resolver knows and one nobody knows: the same sentence, only the host differs.
    expect(answers["http://localhost/hook"]!.replace("localhost", "HOST")).toBe(
      answers["http://no-such-host.invalid/x"]!.replace("no-such-host.invalid", "HOST"),
    );
    expect((await s.api.post("/api/webhooks/list", undefined, { cookie }, init)).body.data.webhooks).toEqual([]);
  });
});

/**
 * An IPv6 address outside global unicast space (2000::/3) may carry an IPv4 address a host's old tunnels route to:
 * `http://[::a9fe:a9fe]/` is the cloud metadata address, `http://[::7f00:1]/` is 127.0.0.1. Refused, nothing stored.
 */
describe("IPv4-compatible IPv6 webhook URLs are refused", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startServer(); // WEBHOOK_ALLOW_PRIVATE stays at its default (false)
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
  });

  test("webhook URLs on IPv4-compatible IPv6 addresses are refused and nothing is stored", async () => {
    const { cookie } = await api.signUp(uniqueEmail("r5-ssrf"));
    for (const [url, host] of [
      ["http://[::a9fe:a9fe]/latest/meta-data/", "::a9fe:a9fe"],
      ["http://[::169.254.169.254]/", "::a9fe:a9fe"],
      ["http://[::7f00:1]:8080/hook", "::7f00:1"],
    ] as const) {
      const r = await api.post("/api/webhooks/create", { url }, { cookie });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        code: 1,
        message: `invalid params: url refused: ${host} is not a public internet address`,
        data: null,
      });
    }
    const list = await api.post("/api/webhooks/list", undefined, { cookie });
    expect(list.body.data.webhooks).toEqual([]);
  });
});

/**
 * A resend queues a delivery again at once, and session requests are not rate limited, so a loop of resends would make
 * the server POST to any public address the account chose as fast as it sends. Each resend takes a slot of a per-user
 * bucket (docs/decisions/085-webhook-resend-limit.md); the 101st answers 429 and queues nothing.
 */
describe("resends are bounded per user", () => {
  const RESENDS_PER_HOUR = 100; // docs/decisions/085-webhook-resend-limit.md
  const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "a fox" };

  const rcv: Receiver = startReceiver();
  const s = serverForFile(
    {
      env: {
        WEBHOOK_ALLOW_PRIVATE: "true",
        WEBHOOK_TIMEOUT_MS: "1000",
        SIGNUP_CREDITS: "10",
        SIMULATOR_DELAY_MS: "50",
        JOB_TICK_MS: "50",
      },
    },
    () => rcv.stop(),
  );

  test("resend: 100 an hour per user, then HTTP 429 and nothing queued", async () => {
    const { cookie } = await s.api.signUp(uniqueEmail("resend-flood"));
    const wh = (await s.api.post("/api/webhooks/create", { url: rcv.url }, { cookie })).body.data;
    await s.api.post("/api/generator/generate", IMAGE, { cookie });
    const deliveryId = await until("the first delivery", async () => {
      const d = (await s.api.post("/api/webhooks/deliveries", { webhook_id: wh.webhook_id }, { cookie })).body.data
        .deliveries[0];
      return d?.status === "delivered" ? (d.delivery_id as string) : undefined;
    });

    const answers: { http: number; code: number; retryAfter: string | null }[] = [];
    for (let i = 0; i < RESENDS_PER_HOUR + 5; i++) {
      const r = await s.api.post("/api/webhooks/resend", { delivery_id: deliveryId }, { cookie });
      answers.push({ http: r.status, code: r.body.code, retryAfter: r.headers.get("retry-after") });
    }
    expect(answers.slice(0, RESENDS_PER_HOUR).every((a) => a.http === 200 && a.code === 0)).toBe(true);
    for (const a of answers.slice(RESENDS_PER_HOUR)) {
      expect({ http: a.http, code: a.code }).toEqual({ http: 429, code: 1 });
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    const refused = await s.api.post("/api/webhooks/resend", { delivery_id: deliveryId }, { cookie });
    expect(refused.body).toEqual({ code: 1, message: "Too Many Requests", data: null });

    // Another user's allowance is their own.
    const other = await s.api.signUp(uniqueEmail("resend-other"));
    const otherWh = (await s.api.post("/api/webhooks/create", { url: rcv.url }, { cookie: other.cookie })).body.data;
    await s.api.post("/api/generator/generate", IMAGE, { cookie: other.cookie });
    const otherDelivery = await until("the other user's delivery", async () => {
      const d = (
        await s.api.post("/api/webhooks/deliveries", { webhook_id: otherWh.webhook_id }, { cookie: other.cookie })
      ).body.data.deliveries[0];
      return d?.status === "delivered" ? (d.delivery_id as string) : undefined;
    });
    expect(
      (await s.api.post("/api/webhooks/resend", { delivery_id: otherDelivery }, { cookie: other.cookie })).body.code,
    ).toBe(0);
  });
});
