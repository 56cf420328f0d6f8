/**
 * Attacks on the Stripe path that hold: a replay past the tolerance, a checkout body naming its own price or buyer,
 * a second success event for one session, a delivery retried after a refund (docs/decisions/103-payments-webhooks-streams-probes.md).
 * Both engines (the ledger and billing_events are rows).
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import Stripe from "stripe";
import { type BillingServer, startBillingServer } from "../../support/billing";

setDefaultTimeout(60_000);

let b: BillingServer;
const SIGNUP = 10; // SIGNUP_CREDITS default
const PACK_100 = { id: "pack-100", credits: 100, amount: 500, currency: "usd" }; // the seeded pack (docs/payments.md)
beforeAll(async () => void (b = await startBillingServer()));
afterAll(() => b?.stop());

test("a captured delivery replayed after Stripe's 5-minute tolerance is refused, even though its signature is genuine", async () => {
  const u = await b.signUp("r5-stale");
  const [paid] = await b.stripe.pay(await b.checkoutSessionId(u.cookie, PACK_100.id));
  const stale = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload: paid!.payload,
    secret: b.stripe.webhookSecret,
    timestamp: Math.floor(Date.now() / 1000) - 600,
  });
  const r = await fetch(b.stripe.webhookUrl!, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": stale },
    body: paid!.payload,
  });
  expect(r.status).toBe(400);
  expect(await r.json()).toEqual({ code: 1, message: "invalid signature", data: null });
  expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP);
});

test("the checkout body cannot set price, credits, currency, buyer or return URLs: only product_id is read", async () => {
  const u = await b.signUp("r5-tamper");
  const other = await b.signUp("r5-tamper-other");
  const r = await b.api.post(
    "/api/billing/checkout",
    {
      product_id: PACK_100.id,
      amount: 1,
      unit_amount: 1,
      credits: 100000,
      currency: "jpy",
      client_reference_id: other.userId,
      user_id: other.userId,
      success_url: "https://evil.example/",
      cancel_url: "https://evil.example/",
    },
    { cookie: u.cookie },
  );
  expect(r.body.code).toBe(0);
  const s = b.stripe.sessions.get(new URL(r.body.data.checkout_url).pathname.split("/").pop()!)!;
  expect(s.client_reference_id).toBe(u.userId);
  expect(s.amount_total).toBe(PACK_100.amount);
  expect(s.currency).toBe(PACK_100.currency);
  expect(s.metadata).toMatchObject({
    product_id: PACK_100.id,
    user_id: u.userId,
    credits: String(PACK_100.credits),
    amount: String(PACK_100.amount),
  });
  expect(s.success_url).toBe(`${b.server.url}/account?notice=checkout-success`);
  expect(s.cancel_url).toBe(`${b.server.url}/account?notice=checkout-canceled`);
  await b.deliverOk(await b.stripe.pay(s.id));
  expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP + PACK_100.credits);
  expect((await b.credits(other.cookie)).left_credits).toBe(SIGNUP);
});

test("a second success event for the same session (async_payment_succeeded after completed, another event id) grants nothing more", async () => {
  const u = await b.signUp("r5-twice");
  const [paid] = await b.stripe.pay(await b.checkoutSessionId(u.cookie, PACK_100.id));
  await b.deliverOk([paid!]);
  const again = await b.stripe.sign({
    ...paid!.event,
    id: `${paid!.event.id}_async`,
    type: "checkout.session.async_payment_succeeded",
  });
  const [ack] = await b.deliverOk([again]);
  expect(ack.data.duplicate).toBe(false); // a new event id: applied, but the payment is already recorded
  expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP + PACK_100.credits);
});

test("after a full refund, replaying the payment's original delivery does not grant the pack again", async () => {
  const u = await b.signUp("r5-refund-replay");
  const sessionId = await b.checkoutSessionId(u.cookie, PACK_100.id);
  const [paid] = await b.stripe.pay(sessionId);
  await b.deliverOk([paid!]);
  await b.deliverOk(await b.stripe.refund(b.stripe.paymentIntentOf(sessionId)));
  expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP);
  const [ack] = await b.deliverOk([await b.stripe.sign(paid!.event)]); // the same event, freshly signed (a retry)
  expect(ack.data.duplicate).toBe(true);
  expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP);
});
