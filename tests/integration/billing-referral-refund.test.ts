/**
 * Security review (money invariants, DESIGN §9): a referral reward is paid out of
 * an order's credits, so refunding that order must take the reward back too.
 * Today a full refund claws back the buyer's grant only: an affiliate (a flag any
 * user sets on themselves through /api/update-invite) who invites a second account
 * of their own, buys and refunds, keeps 10 % of every refunded pack for free.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startStripeFake, type SignedEvent, type StripeFake } from "../fakes/stripe";
import { Client, uniqueEmail } from "../support/client";
import { startServer, type TestServer } from "../support/server";

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

const signUp = async (tag: string, ref?: string) => {
  const email = uniqueEmail(tag);
  return { email, ...(await api.signUp(email, { ref })) };
};
const left = async (cookie: string) => (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits as number;
const deliverOk = async (events: SignedEvent[]) => {
  const res = await stripe.deliver(events);
  for (const r of res) expect(r.status).toBe(200);
};

test("a fully refunded order takes back the inviter's referral reward", async () => {
  const inviter = await signUp("rv-inviter");
  expect((await api.post("/api/update-invite", { is_affiliate: true }, { cookie: inviter.cookie })).body.code).toBe(0);
  const code = (await api.post("/api/get-user-info", undefined, { cookie: inviter.cookie })).body.data.invite_code;
  const sock = await signUp("rv-sock", code);

  const r = await api.post("/api/billing/checkout", { product_id: "pack-100" }, { cookie: sock.cookie });
  const sessionId = new URL(r.body.data.checkout_url).pathname.split("/").pop()!;
  await deliverOk(await stripe.pay(sessionId));
  expect(await left(inviter.cookie)).toBe(SIGNUP + 10); // 10 % of 100

  await deliverOk(await stripe.refund(stripe.paymentIntentOf(sessionId)));
  expect(await left(sock.cookie)).toBe(SIGNUP); // the buyer's 100 are gone
  // The money went back, so the reward paid out of it must go back too.
  expect(await left(inviter.cookie)).toBe(SIGNUP);
});
