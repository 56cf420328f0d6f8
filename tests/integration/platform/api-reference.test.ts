/**
 * The API reference matches the running server: every routed endpoint of the
 * endpoint table is called over HTTP and its real answer is checked against the
 * documented response schema (strict: an undocumented field fails). The
 * OpenAPI document and the /docs page are served publicly.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ENDPOINTS, type EndpointPath } from "~/http/endpoints.server";
import { type Auth, Client, uniqueEmail } from "../../support/client";
import { signUpAdmin } from "../../support/fixtures";
import { png } from "../../support/images";
import { startServer, type TestServer } from "../../support/server";

let server: TestServer;
let api: Client;
let user: { cookie: string; userId: string; email: string };
let admin: { cookie: string; userId: string };
const covered = new Set<string>();
const unrouted = new Set<string>();

beforeAll(async () => {
  server = await startServer({ env: { ADMIN_EMAILS: "boss@admin.test", WEBHOOK_ALLOW_PRIVATE: "true" } });
  api = new Client(server.url);
  const email = uniqueEmail("ref");
  user = { ...(await api.signUp(email)), email };
  admin = await signUpAdmin(server, "boss@admin.test");
});
afterAll(async () => {
  await server?.dispose();
});

/** Calls an endpoint and checks the answer against its documented schema. */
async function check(path: EndpointPath, body: unknown, auth: Auth) {
  const def = ENDPOINTS[path];
  const r = await api.post(path, body, auth);
  if (r.status === 404 && r.body.message === "not found") {
    unrouted.add(path); // documented but not routed: the test below fails
    return undefined;
  }
  expect({ path, code: r.body.code, message: r.body.message }).toEqual({ path, code: 0, message: r.body.message });
  const parsed = def.response.safeParse(r.body.data);
  expect({ path, issues: parsed.success ? [] : parsed.error.issues }).toEqual({ path, issues: [] });
  if ("successMessage" in def && def.successMessage) expect(r.body.message).toBe(def.successMessage);
  covered.add(path);
  return r.body.data;
}

const waitFor = async (genId: string, auth: Auth, status: string) => {
  for (let i = 0; i < 200; i++) {
    const r = await api.post("/api/generator/query", { gen_id: genId }, auth);
    if (r.body.data?.status === status) return;
    await Bun.sleep(25);
  }
  throw new Error(`${genId} never reached ${status}`);
};

describe("real responses match the documented schemas", () => {
  test("account endpoints", async () => {
    const auth = { cookie: user.cookie };
    await check("/api/get-user-info", undefined, auth);
    await check("/api/get-user-credits", undefined, auth);
    expect(await check("/api/get-user-subscription", undefined, auth)).toBeNull();
    await check("/api/ping", undefined, auth);
    await check("/api/update-invite", { is_affiliate: true }, auth);
    await check("/api/add-feedback", { content: "schema check", rating: 4 }, auth);
    await check("/api/account/export", undefined, auth);
  });

  test("deleting an account", async () => {
    const email = uniqueEmail("ref-delete");
    const { cookie } = await api.signUp(email);
    await check("/api/account/delete", { confirm: email, password: "correct-horse-battery" }, { cookie });
  });

  test("input files", async () => {
    const apiKey = (await api.post("/api/keys/create", { name: "files" }, { cookie: user.cookie })).body.data.key;
    const form = new FormData();
    form.append("file", new Blob([png(4, 3)]), "a.png");
    const res = await fetch(`${server.url}/api/files`, {
      method: "POST",
      headers: { "x-api-key": apiKey },
      body: form,
    });
    const up = (await res.json()) as { code: number; message: string; data: unknown };
    expect(up.code).toBe(0);
    expect(ENDPOINTS["/api/files"].response.safeParse(up.data).success).toBe(true);
    expect(up.message).toBe(ENDPOINTS["/api/files"].successMessage);
    covered.add("/api/files");
    await check("/api/files/list", { page: 1 }, { apiKey });
    await check("/api/files/delete", { file_id: (up.data as { file_id: string }).file_id }, { apiKey });
    const plain = new FormData();
    plain.append("file", new Blob([png(4, 3)]), "p.png");
    const v = (await (await fetch(`${server.url}/api/provenance/verify`, { method: "POST", body: plain })).json()) as {
      code: number;
      data: unknown;
    };
    expect(v.code).toBe(0);
    expect(ENDPOINTS["/api/provenance/verify"].response.safeParse(v.data).success).toBe(true);
    covered.add("/api/provenance/verify");
  });

  test("API keys", async () => {
    const auth = { cookie: user.cookie };
    const created = await check("/api/keys/create", { name: "ref" }, auth);
    await check("/api/keys/list", undefined, auth);
    await check("/api/keys/update", { key_id: created.key_id, credit_limit: { credits: 5, period: "day" } }, auth);
    await check("/api/keys/list", undefined, auth);
    await check("/api/usage", { group_by: "key" }, { apiKey: created.key });
    await check("/api/usage", {}, auth);
    // A key's response is checked as well (same schemas with X-API-Key).
    await check("/api/get-user-info", undefined, { apiKey: created.key });
    await check("/api/keys/revoke", { key_id: created.key_id }, auth);
  });

  test("generation: every status shape of query, history, generate", async () => {
    const auth = { cookie: user.cookie };
    const ok = await check("/api/generator/generate", ENDPOINTS["/api/generator/generate"].example, auth);
    await check("/api/generator/query", { gen_id: ok.gen_id }, auth); // pending or processing
    await waitFor(ok.gen_id, auth, "completed");
    expect((await check("/api/generator/query", { gen_id: ok.gen_id }, auth)).status).toBe("completed");
    const bad = await check(
      "/api/generator/generate",
      { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "x [simulate:fail]" },
      auth,
    );
    await waitFor(bad.gen_id, auth, "failed");
    expect((await check("/api/generator/query", { gen_id: bad.gen_id }, auth)).status).toBe("failed");
    const slow = await check(
      "/api/generator/generate",
      { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "y [simulate:slow]" },
      auth,
    );
    expect(["pending", "processing"]).toContain(
      (await check("/api/generator/query", { gen_id: slow.gen_id }, auth)).status,
    );
    expect((await check("/api/generator/cancel", { gen_id: slow.gen_id }, auth)).error_message).toBe("canceled");
    const sse = await fetch(`${server.url}/api/generator/stream?gen_id=${ok.gen_id}`, {
      headers: { cookie: user.cookie },
    });
    expect(sse.headers.get("content-type")).toStartWith("text/event-stream");
    const data = JSON.parse(
      (await sse.text())
        .split("\n")
        .find((l) => l.startsWith("data: "))!
        .slice(6),
    );
    expect(ENDPOINTS["/api/generator/query"].response.safeParse(data).success).toBe(true);
    covered.add("/api/generator/stream");
    const h = await check("/api/generator/history", { page: 1, page_size: 10 }, auth);
    expect(h.generations.length).toBe(3);
  });

  test("webhooks", async () => {
    const auth = { cookie: user.cookie };
    const rcv = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
    try {
      const wh = await check(
        "/api/webhooks/create",
        { url: `http://127.0.0.1:${rcv.port}/hook`, description: "ref" },
        auth,
      );
      await check("/api/webhooks/list", undefined, auth);
      await check("/api/webhooks/rotate-secret", { webhook_id: wh.webhook_id }, auth);
      await check("/api/webhooks/update", { webhook_id: wh.webhook_id, description: "ref, renamed" }, auth);
      await check("/api/webhooks/test", { webhook_id: wh.webhook_id }, auth);
      const g = await check("/api/generator/generate", ENDPOINTS["/api/generator/generate"].example, auth);
      await waitFor(g.gen_id, auth, "completed");
      // The newest delivery may still be under way (the test event, the task's events): any delivered one will do.
      let delivered: any;
      for (const until = Date.now() + 20_000; !delivered && Date.now() < until; await Bun.sleep(50)) {
        const { deliveries } = await check("/api/webhooks/deliveries", { webhook_id: wh.webhook_id }, auth);
        delivered = deliveries.find((d: any) => d.status === "delivered");
      }
      expect(delivered?.status).toBe("delivered");
      await check("/api/webhooks/resend", { delivery_id: delivered.delivery_id }, auth);
      await check("/api/webhooks/delete", { webhook_id: wh.webhook_id }, auth);
    } finally {
      await rcv.stop(true);
    }
  });

  test("admin endpoints", async () => {
    const auth = { cookie: admin.cookie };
    await check("/api/admin/grant-credits", { email: user.email, credits: 5, expires_in_days: 30 }, auth);
    await check("/api/admin/grant-credits", { user_uuid: user.userId, credits: 1 }, auth);
    await check(
      "/api/admin/create-subscription",
      { email: user.email, product_id: "pro", product_name: "Pro", interval: "month", amount: 1900 },
      auth,
    );
    await check("/api/admin/list-users", { page: 1, page_size: 5 }, auth);
    const suspended = uniqueEmail("ref-suspended");
    await api.signUp(suspended);
    await check("/api/admin/suspend-user", { email: suspended, suspended: true, reason: "schema check" }, auth);
    await check("/api/admin/suspend-user", { email: suspended, suspended: false }, auth);
    const catalog = await check("/api/admin/models/list", undefined, auth);
    expect(catalog.models.length).toBeGreaterThan(0);
    await check(
      "/api/admin/models/upsert",
      { ai_type: "image", provider: "openai", model: "gpt-image-1", label: "GPT Image 1" },
      auth,
    );
    expect(await check("/api/get-user-subscription", undefined, { cookie: user.cookie })).not.toBeNull();
  });

  test("reports: filing, the admin queue, a removal", async () => {
    const auth = { cookie: user.cookie };
    const gen = await check("/api/generator/generate", ENDPOINTS["/api/generator/generate"].example, auth);
    await waitFor(gen.gen_id, auth, "completed");
    const filed = await check("/api/reports", { gen_id: gen.gen_id, reason: "copyright", details: "schema" }, auth);
    const queue = await check("/api/admin/reports/list", {}, { cookie: admin.cookie });
    expect(queue.reports.some((r: { report_id: string }) => r.report_id === filed.report_id)).toBe(true);
    await check(
      "/api/admin/reports/resolve",
      { report_id: filed.report_id, action: "remove" },
      { cookie: admin.cookie },
    );
    await check("/api/admin/reports/list", { status: "all" }, { cookie: admin.cookie });
  });

  test("billing endpoints (simulated checkout; the webhook refuses without its secret)", async () => {
    const models = await check("/api/models", undefined, {});
    expect(models.models.length).toBeGreaterThan(0);
    await check("/api/models", undefined, { cookie: user.cookie });
    await check("/api/generator/quote", { ai_type: "image", provider: "openai", model: "dall-e-3" }, {});
    const made = (await check("/api/admin/codes/create", { credits: 2, max_uses: 1 }, { cookie: admin.cookie })) as {
      code: string;
    };
    await check("/api/redeem", { code: made.code }, { cookie: user.cookie });
    const products = await check("/api/billing/products", undefined, {});
    expect(products.products.length).toBeGreaterThan(0);
    const started = await check(
      "/api/billing/checkout",
      { product_id: products.products[0].product_id },
      { cookie: user.cookie },
    );
    expect(started.checkout_url).toStartWith(`${server.url}/billing/simulated/`);
    const hook = await api.post("/api/billing/webhook/stripe", { id: "evt_1", type: "invoice.paid" });
    expect(hook.status).toBe(400);
    expect(hook.body).toEqual({ code: 1, message: "webhook not configured: set STRIPE_WEBHOOK_SECRET", data: null });
    covered.add("/api/billing/webhook/stripe"); // its success shape: tests/integration/billing/stripe.test.ts
  });

  test("demo endpoints (when routed)", async () => {
    const auth = { cookie: user.cookie };
    await check("/api/demo/gen-text", { provider: "openai", model: "gpt-4o-mini", prompt: "hello" }, auth);
    await check("/api/demo/gen-image", { provider: "openai", model: "dall-e-3", prompt: "hello" }, auth);
    const res = await fetch(`${server.url}/api/demo/gen-stream-text`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: user.cookie },
      body: JSON.stringify({ provider: "openai", model: "gpt-4o-mini", prompt: "hello" }),
    });
    if (res.status === 404) unrouted.add("/api/demo/gen-stream-text");
    else {
      expect(res.headers.get("content-type")).toContain("text/plain");
      expect((await res.text()).length).toBeGreaterThan(0);
      covered.add("/api/demo/gen-stream-text");
    }
  });

  test("health and the OpenAPI document (GET, public)", async () => {
    const h = await fetch(`${server.url}/api/health`);
    expect(ENDPOINTS["/api/health"].response.safeParse((await h.json()).data).success).toBe(true);
    covered.add("/api/health");
    const doc = await fetch(`${server.url}/api/openapi.json`);
    expect(doc.status).toBe(200);
    expect(doc.headers.get("content-type")).toContain("application/json");
    const body = await doc.json();
    expect(body.openapi).toBe("3.1.0");
    expect(body.servers).toEqual([{ url: server.url }]);
    // The envelope endpoints of the table, and the key-only ones in their own protocols (openapi-conformance replays
    // their traffic against the document).
    expect(Object.keys(body.paths).sort()).toEqual(
      [...Object.keys(ENDPOINTS), "/mcp", "/v1/images/edits", "/v1/images/generations"].sort(),
    );
    covered.add("/api/openapi.json");
  });

  test("sign-up and sign-in answers match their documented shapes", async () => {
    for (const [path, body] of [
      ["/api/auth/sign-up/email", { name: "Doc", email: uniqueEmail("doc"), password: "correct-horse-battery" }],
      ["/api/auth/sign-in/email", { email: user.email, password: "correct-horse-battery" }],
    ] as const) {
      const r = await fetch(server.url + path, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.url },
        body: JSON.stringify(body),
      });
      expect(r.status).toBe(200);
      expect(ENDPOINTS[path].response.safeParse(await r.json()).success).toBe(true);
      covered.add(path);
    }
  });

  test("collections", async () => {
    // Last: its task would change the history the generation test counts.
    const auth = { cookie: user.cookie };
    const gen = await check("/api/generator/generate", ENDPOINTS["/api/generator/generate"].example, auth);
    const col = await check("/api/collections/create", { name: "Reference" }, auth);
    const ids = { collection_id: col.collection_id, gen_ids: [gen.gen_id] };
    await check("/api/collections/add", ids, auth);
    await check("/api/collections/list", undefined, auth);
    await check("/api/collections/items", { collection_id: col.collection_id }, auth);
    await check("/api/collections/rename", { collection_id: col.collection_id, name: "Reference 2" }, auth);
    await check("/api/collections/remove", ids, auth);
    await check("/api/collections/delete", { collection_id: col.collection_id }, auth);
  });

  test("every documented endpoint was checked (or is not routed in this build)", () => {
    for (const path of Object.keys(ENDPOINTS))
      expect({ path, checked: covered.has(path) || unrouted.has(path) }).toEqual({ path, checked: true });
    // Every documented endpoint is routed.
    expect([...unrouted]).toEqual([]);
  });

  test("the strict schemas notice an undocumented field (the check can fail)", async () => {
    const r = await api.post("/api/get-user-credits", undefined, { cookie: user.cookie });
    expect(ENDPOINTS["/api/get-user-credits"].response.safeParse(r.body.data).success).toBe(true);
    expect(ENDPOINTS["/api/get-user-credits"].response.safeParse({ ...r.body.data, extra: 1 }).success).toBe(false);
  });
});

describe("the /docs page", () => {
  test("is public and lists every endpoint, the polling rule, rate-limit headers and messages", async () => {
    const res = await fetch(`${server.url}/docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const path of Object.keys(ENDPOINTS)) expect(html).toContain(`>${path}</code>`);
    expect(html).toContain("about every 3 seconds");
    expect(html).toContain("stop after 60 attempts (5 minutes)");
    expect(html).toContain("Retry-After");
    expect(html).toContain("X-RateLimit-Remaining");
    expect(html).toContain("insufficient credits: need &lt;needed&gt;, have &lt;available&gt;");
    expect(html).toContain("Unsupported video provider: &lt;provider&gt;");
    expect(html).toContain("X-API-Key: $ATELIER_API_KEY");
  });
});
