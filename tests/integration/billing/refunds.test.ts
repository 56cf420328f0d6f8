/**
 * Money invariants (docs/design.md §9, docs/decisions/055-payments-hardening.md): a referral reward is paid out of an order's
 * credits, so refunding that order takes the reward back too. Otherwise an affiliate (a flag any user sets on
 * themselves through /api/update-invite) who invites a second account of their own, buys and refunds, would keep
 * 10 % of every refunded pack for free.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type BillingServer, startBillingServer } from "../../support/billing";

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
