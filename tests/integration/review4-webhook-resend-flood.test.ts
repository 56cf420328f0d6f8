/**
 * `POST /api/webhooks/resend` makes the server POST to a URL the account chose and writes a delivery-log row, and
 * session requests are not rate limited (docs/api.md §8.2): unbounded, one account could aim the dispatcher at any
 * public address as fast as it sends. Each resend takes a slot of a per-user bucket in the shared limiter; the
 * 101st within the hour answers HTTP 429 `Too Many Requests` with Retry-After and queues nothing
 * (docs/decisions/085-webhook-resend-limit.md).
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../support/client";
import { serverForFile } from "../support/file-server";
import { until } from "../support/until";
import { type Receiver, startReceiver } from "../support/webhook-receiver";

setDefaultTimeout(60_000);

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
