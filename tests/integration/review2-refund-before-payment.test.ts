/**
 * review2: Stripe does not guarantee event order, and retries a failed delivery
 * for days. A refund (or dispute) whose payment Atelier has not recorded yet
 * used to be stored as "ignored: no payment for pi_…", and the payment's
 * retried checkout.session.completed then granted the pack in full (110
 * credits kept for money returned). Now it waits ("waiting: no payment for …")
 * and is applied when the payment is recorded.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type BillingServer, startBillingServer } from "../support/billing";

setDefaultTimeout(60_000);

let b: BillingServer;
beforeAll(async () => void (b = await startBillingServer()));
afterAll(() => b?.stop());

test("a refund delivered before its payment still takes the pack back", async () => {
  const { cookie } = await b.signUp("rv-refund-first");
  const sessionId = await b.checkoutSessionId(cookie, "pack-100");
  const paid = await b.stripe.pay(sessionId); // checkout.session.completed — its delivery fails for now (outage)
  const refund = await b.stripe.refund(b.stripe.paymentIntentOf(sessionId)); // the merchant refunds in full
  await b.deliverOk(refund); // delivered first
  await b.deliverOk(paid); // Stripe's retry of the completion arrives later
  expect((await b.credits(cookie)).left_credits).toBe(10); // SIGNUP_CREDITS only: the 100 credits were refunded
});

test("a dispute delivered before its payment waits for it too; a replay of the payment changes nothing more", async () => {
  const { cookie } = await b.signUp("rv-dispute-first");
  const sessionId = await b.checkoutSessionId(cookie, "pack-100");
  const paid = await b.stripe.pay(sessionId);
  const [ack] = await b.deliverOk(await b.stripe.dispute(b.stripe.paymentIntentOf(sessionId)));
  expect(ack.data.outcome).toBe(`waiting: no payment for ${b.stripe.paymentIntentOf(sessionId)}`);
  await b.deliverOk(paid);
  expect((await b.credits(cookie)).left_credits).toBe(10);
  await b.deliverOk(paid);
  expect((await b.credits(cookie)).left_credits).toBe(10);
});
