/**
 * review2: "disputes claw back like refunds" (docs/payments.md) — but only for
 * packs. A subscription invoice's PaymentIntent is not in `invoice.paid` (Stripe
 * does not expand invoice payments), so `charge.refunded` looks it up through
 * the invoice payments API while `charge.dispute.created` only searched the
 * payments Atelier already knew by PaymentIntent and was ignored: a chargeback
 * of a subscription period kept all its credits.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type SignedEvent, type StripeFake, startStripeFake } from "../fakes/stripe";
import { Client, uniqueEmail } from "../support/client";
import { startServer, type TestServer } from "../support/server";

setDefaultTimeout(30_000);

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
