/**
 * Money given back takes credits back (docs/design.md §9, docs/payments.md, docs/decisions/055-payments-hardening.md): a refunded order takes back the referral
 * reward paid from it (an affiliate inviting a second account of their own would otherwise keep 10 % of every
 * refunded pack), a refund or dispute delivered before its payment waits for it, and a dispute of a subscription
 * period claws back that period's credits.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type SignedEvent, type StripeFake, startStripeFake } from "../../fakes/stripe";
import { type BillingServer, startBillingServer } from "../../support/billing";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";

setDefaultTimeout(60_000);

let b: BillingServer;

const SIGNUP = 10; // SIGNUP_CREDITS default

beforeAll(async () => void (b = await startBillingServer()));
afterAll(() => b?.stop());

const left = async (cookie: string) => (await b.credits(cookie)).left_credits;

test("a fully refunded order takes back the inviter's referral reward", async () => {
  const inviter = await b.signUp("rv-inviter");
  expect((await b.api.post("/api/update-invite", { is_affiliate: true }, { cookie: inviter.cookie })).body.code).toBe(
    0,
  );
  const code = (await b.api.post("/api/get-user-info", undefined, { cookie: inviter.cookie })).body.data.invite_code;
  const sock = await b.signUp("rv-sock", code);

  const sessionId = await b.checkoutSessionId(sock.cookie, "pack-100");
  await b.deliverOk(await b.stripe.pay(sessionId));
  expect(await left(inviter.cookie)).toBe(SIGNUP + 10); // 10 % of 100

  await b.deliverOk(await b.stripe.refund(b.stripe.paymentIntentOf(sessionId)));
  expect(await left(sock.cookie)).toBe(SIGNUP); // the buyer's 100 are gone
  // The money went back, so the reward paid out of it must go back too.
  expect(await left(inviter.cookie)).toBe(SIGNUP);
});

/**
 * Stripe does not guarantee event order and retries failed deliveries for days. A refund (or dispute) whose payment is
 * not recorded yet waits ("waiting: no payment for …") and is applied when the payment arrives, so the retried
 * completion cannot grant a pack whose money was returned
 * (docs/decisions/066-refund-before-payment-waits.md).
 */
describe("a refund or dispute delivered before its payment waits for it", () => {
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
});

/**
 * Disputes claw back like refunds (docs/payments.md) for subscriptions too: a subscription invoice's PaymentIntent is
 * not in `invoice.paid`, so a dispute must find its payment through the invoice payments API as a refund does.
 */
describe("a dispute of a subscription period claws back its credits", () => {
  let server: TestServer;
  let stripe: StripeFake;
  let api: Client;
  const SIGNUP = 10; // SIGNUP_CREDITS default

  beforeAll(async () => {
    stripe = startStripeFake();
    server = await startServer({ env: stripe.env });
    stripe.webhookUrl = `${server.url}/api/billing/webhook/stripe`;
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
    await stripe?.stop();
  });

  const deliverOk = async (events: SignedEvent[]) => {
    const res = await stripe.deliver(events);
    for (const r of res) expect(r.status).toBe(200);
    return Promise.all(res.map((r) => r.json()));
  };

  test("a dispute of a subscription period's charge claws back that period's credits", async () => {
    const { cookie } = await api.signUp(uniqueEmail("subdispute"));
    const r = await api.post("/api/billing/checkout", { product_id: "pro-monthly" }, { cookie });
    expect(r.body.code).toBe(0);
    const sessionId = new URL(r.body.data.checkout_url).pathname.split("/").pop()!;
    await deliverOk(await stripe.pay(sessionId));
    const credits = async () =>
      (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits as number;
    expect(await credits()).toBe(SIGNUP + 600); // pro-monthly: 600 credits a month

    const invoiceId = stripe.sessions.get(sessionId)!.invoice as string;
    const [ack] = await deliverOk(await stripe.dispute(stripe.paymentIntentOf(invoiceId)));
    expect(ack.data.outcome).toContain("600 of 600 credits clawed back");
    expect(await credits()).toBe(SIGNUP);
  });
});
