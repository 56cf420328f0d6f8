/**
 * "Send test event" and editable event filters (docs/events.md "Testing an endpoint", docs/design.md §10):
 * POST /api/webhooks/test sends a signed `webhook.test` event to that endpoint only, logged in its delivery log;
 * POST /api/webhooks/update changes what an endpoint receives; the /keys page does both with plain forms and shows
 * each endpoint's delivery log with a Resend button.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { postPageForm, serverForFile } from "../../support/fixtures";
import { until } from "../../support/until";
import { type Receiver, startReceiver } from "../../support/webhook-receiver";

const receivers: Receiver[] = [];
const receiver = () => {
  const r = startReceiver();
  receivers.push(r);
  return r;
};
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
});

const it = serverForFile({
  env: { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT_MS: "1000", SIGNUP_CREDITS: "100" },
});

async function hookFor(cookie: string, url: string, events?: string[]) {
  const created = await it.api.post("/api/webhooks/create", { url, ...(events ? { events } : {}) }, { cookie });
  expect(created.body.code).toBe(0);
  return created.body.data as { webhook_id: string; secret: string };
}

const postForm = (cookie: string, fields: [string, string][]) => postPageForm(`${it.server.url}/keys`, cookie, fields);

describe("POST /api/webhooks/test", () => {
  test("sends a signed webhook.test event to that endpoint only, whatever its filter; it shows in the log", async () => {
    const rcv = receiver();
    const other = receiver();
    const { cookie } = await it.api.signUp(uniqueEmail("wh-test"));
    const hook = await hookFor(cookie, rcv.url, ["generation.completed"]);
    await hookFor(cookie, other.url);
    const sent = await it.api.post("/api/webhooks/test", { webhook_id: hook.webhook_id }, { cookie });
    expect(sent.body).toMatchObject({
      code: 0,
      message: "test event queued",
      data: { webhook_id: hook.webhook_id, status: "pending" },
    });
    const [got] = await rcv.waitFor(1);
    const payload = rcv.verify(got!, hook.secret);
    expect(got!.id).toBe(sent.body.data.event_id);
    expect(payload).toEqual({
      type: "webhook.test",
      timestamp: expect.stringMatching(/Z$/),
      data: { webhook_id: hook.webhook_id, message: expect.any(String) },
    });
    const log = await until("the test delivery logged as delivered", async () => {
      const r = await it.api.post("/api/webhooks/deliveries", { webhook_id: hook.webhook_id }, { cookie });
      const d = r.body.data.deliveries[0];
      return d?.status === "delivered" ? d : undefined;
    });
    expect(log).toMatchObject({
      delivery_id: sent.body.data.delivery_id,
      type: "webhook.test",
      gen_id: null,
      response_status: 200,
    });
    expect(log.duration_ms).toBeNumber();
    await Bun.sleep(300);
    expect(other.received.length).toBe(0);
  });

  test("another user's endpoint is not found and nothing is sent", async () => {
    const rcv = receiver();
    const owner = await it.api.signUp(uniqueEmail("wh-owner"));
    const hook = await hookFor(owner.cookie, rcv.url);
    const intruder = await it.api.signUp(uniqueEmail("wh-intruder"));
    const r = await it.api.post("/api/webhooks/test", { webhook_id: hook.webhook_id }, { cookie: intruder.cookie });
    expect(r.body).toEqual({ code: 1, message: "webhook not found", data: null });
    await Bun.sleep(300);
    expect(rcv.received.length).toBe(0);
  });
});

describe("POST /api/webhooks/update", () => {
  test("changes the event filter (id and secret stay); an empty filter is refused", async () => {
    const rcv = receiver();
    const { cookie } = await it.api.signUp(uniqueEmail("wh-update"));
    const hook = await hookFor(cookie, rcv.url);
    const r = await it.api.post(
      "/api/webhooks/update",
      { webhook_id: hook.webhook_id, events: ["generation.failed"], description: "failures only" },
      { cookie },
    );
    expect(r.body).toMatchObject({
      code: 0,
      message: "webhook updated",
      data: { webhook_id: hook.webhook_id, events: ["generation.failed"], description: "failures only" },
    });
    const empty = await it.api.post("/api/webhooks/update", { webhook_id: hook.webhook_id, events: [] }, { cookie });
    expect(empty.body).toEqual({ code: 1, message: "invalid params", data: null });
    // Only failures now: a completed task sends nothing, a failed one does.
    const gen = (prompt: string) =>
      it.api.post(
        "/api/generator/generate",
        { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt },
        { cookie },
      );
    await gen("a fox");
    await gen("a fox [simulate:fail]");
    const [got] = await rcv.waitFor(1);
    expect((rcv.verify(got!, hook.secret) as { type: string }).type).toBe("generation.failed");
    await Bun.sleep(500);
    expect(rcv.received.length).toBe(1);
  });
});

describe("the /keys page", () => {
  test("Send test event, the delivery log with HTTP code and duration, Resend, and the events form", async () => {
    const rcv = receiver();
    const { cookie } = await it.api.signUp(uniqueEmail("wh-page"));
    const hook = await hookFor(cookie, rcv.url);
    const tested = await postForm(cookie, [
      ["intent", "webhook-test"],
      ["webhook_id", hook.webhook_id],
    ]);
    expect(tested.status).toBe(200);
    expect(await tested.text()).toContain("Test event queued for");
    await rcv.waitFor(1);
    const page = await until("the page's log showing the delivery", async () => {
      const html = await (await fetch(`${it.server.url}/keys`, { headers: { cookie } })).text();
      return html.includes(">delivered<") ? html : undefined;
    });
    expect(page).toContain("webhook.test");
    expect(page).toMatch(/data-field="http-status">200</);
    expect(page).toMatch(/\d+ ms/);
    const deliveryId = (await it.api.post("/api/webhooks/deliveries", { webhook_id: hook.webhook_id }, { cookie })).body
      .data.deliveries[0].delivery_id;
    const resent = await postForm(cookie, [
      ["intent", "webhook-resend"],
      ["webhook_id", hook.webhook_id],
      ["delivery_id", deliveryId],
    ]);
    expect(await resent.text()).toContain("Delivery queued again");
    const again = await rcv.waitFor(2);
    expect(again[1]!.id).toBe(again[0]!.id);

    const none = await postForm(cookie, [
      ["intent", "webhook-events"],
      ["webhook_id", hook.webhook_id],
    ]);
    expect(await none.text()).toContain("Choose at least one event: an endpoint with none would never hear anything.");
    const saved = await postForm(cookie, [
      ["intent", "webhook-events"],
      ["webhook_id", hook.webhook_id],
      ["events", "generation.completed"],
    ]);
    expect(await saved.text()).toContain("Events saved for");
    const list = await it.api.post("/api/webhooks/list", {}, { cookie });
    expect(list.body.data.webhooks[0].events).toEqual(["generation.completed"]);
  });

  test("a refused URL is a sentence beside the field", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("wh-refused"));
    const res = await postForm(cookie, [
      ["intent", "webhook-create"],
      ["url", "not a url"],
      ["events", "generation.completed"],
    ]);
    const html = await res.text();
    expect(html).toContain("The URL must be an absolute http(s) URL.");
    expect(html).toMatch(/id="f-url-error"/);
  });
});
