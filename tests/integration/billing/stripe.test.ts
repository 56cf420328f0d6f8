/**
 * docs/design.md §9: payments through the official Stripe SDK against a local fake of
 * the Stripe API, webhooks signed with the SDK's own test-header helper.
 * Balances are read through the public API; expectations are the catalog's
 * numbers (seeded products), not values computed by the code under test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { billingEvents, checkouts, creditDebits, creditGrants, orders } from "#db/schema";
import { debitForGeneration } from "~/domain/credits/ledger.server";
import { ENDPOINTS } from "~/http/endpoints.server";
import { systemClock } from "~/lib/clock";
import { type BillingServer, startBillingServer } from "../../support/billing";
import { insertApiKey } from "../../support/db";

let b: BillingServer;

const SIGNUP = 10; // SIGNUP_CREDITS default
const PACK_100 = { id: "pack-100", credits: 100, amount: 500 };
const PRO_MONTHLY = { id: "pro-monthly", credits: 600, amount: 1900 };

beforeAll(async () => void (b = await startBillingServer()));
afterAll(() => b?.stop());

const subscription = async (cookie: string) =>
  (await b.api.post("/api/get-user-subscription", undefined, { cookie })).body.data;

/** Starts a checkout through Atelier and answers the fake's session. */
async function checkout(cookie: string, productId: string) {
  const session = b.stripe.sessions.get(await b.checkoutSessionId(cookie, productId))!;
  expect(session).toBeDefined();
  return session;
}

describe("products", () => {
  test("POST /api/billing/products lists the seeded packs and plans (public)", async () => {
    const r = await b.api.post("/api/billing/products");
    expect(r.body.code).toBe(0);
    const byId = Object.fromEntries(r.body.data.products.map((p: any) => [p.product_id, p]));
    expect(byId["pack-100"]).toEqual({
      product_id: "pack-100",
      name: "100 credits",
      kind: "pack",
      credits: 100,
      interval: null,
      amount: 500,
      currency: "usd",
    });
    expect(byId["pro-monthly"]).toEqual({
      product_id: "pro-monthly",
      name: "Pro monthly",
      kind: "subscription",
      credits: 600,
      interval: "month",
      amount: 1900,
      currency: "usd",
    });
    expect(byId["pro-yearly"].interval).toBe("year");
  });

  test("checkout of an unknown product → product not found; signed out → no auth", async () => {
    const u = await b.signUp("unknown-product");
    expect((await b.api.post("/api/billing/checkout", { product_id: "nope" }, { cookie: u.cookie })).body).toEqual({
      code: 1,
      message: "product not found",
      data: null,
    });
    expect((await b.api.post("/api/billing/checkout", { product_id: "pack-100" })).body.message).toBe(
      "no auth, please sign-in",
    );
  });
});

describe("a credit pack, end to end", () => {
  test("checkout session carries the user and product; the signed event alone grants the pack", async () => {
    const u = await b.signUp("pack");
    const s = await checkout(u.cookie, PACK_100.id);
    expect(s.mode).toBe("payment");
    expect(s.client_reference_id).toBe(u.userId);
    expect(s.metadata.product_id).toBe(PACK_100.id);
    expect(s.amount_total).toBe(PACK_100.amount);
    expect(s.success_url).toBe(`${b.server.url}/account?notice=checkout-success`);
    expect(s.cancel_url).toBe(`${b.server.url}/account?notice=checkout-canceled`);

    const requestsBefore = b.stripe.state.requests.length;
    const [ack] = await b.deliverOk(await b.stripe.pay(s.id));
    expect(ack.data.duplicate).toBe(false);
    expect(ENDPOINTS["/api/billing/webhook/stripe"].response.safeParse(ack.data).success).toBe(true);
    // Fulfilled from the event alone: no call back to Stripe.
    expect(b.stripe.state.requests.length).toBe(requestsBefore);
    expect(await b.credits(u.cookie)).toEqual({
      left_credits: SIGNUP + PACK_100.credits,
      total_credits: SIGNUP + PACK_100.credits,
    });
    // A pack is not a subscription.
    expect(await subscription(u.cookie)).toBeNull();
    const grant = (await b.db.many(b.db.select().from(creditGrants).where(eq(creditGrants.userId, u.userId)))).find(
      (g) => g.source === "order",
    )!;
    const days = (grant.expiresAt!.getTime() - grant.createdAt.getTime()) / 86_400_000;
    expect(Math.round(days)).toBe(365);
  });
});

describe("checkout with an API key", () => {
  test("an API key may start a checkout for its owner", async () => {
    const u = await b.signUp("key-buyer");
    const key = await insertApiKey(b.db, u.userId);
    const r = await b.api.post("/api/billing/checkout", { product_id: PACK_100.id }, { apiKey: key });
    expect(r.body.code).toBe(0);
    const session = b.stripe.sessions.get(new URL(r.body.data.checkout_url).pathname.split("/").pop()!)!;
    expect(session.client_reference_id).toBe(u.userId);
  });
});

describe("a subscription: bought, renewed twice, refunded, canceled", () => {
  test("each step moves credits, period end and status", async () => {
    const u = await b.signUp("sub");
    const s = await checkout(u.cookie, PRO_MONTHLY.id);
    expect(s.mode).toBe("subscription");
    expect(s.client_reference_id).toBe(u.userId);
    // What was sold travels with the subscription (renewals grant the order's stored credits, not a re-priced product's).
    expect(s._subscriptionMetadata).toEqual({
      product_id: PRO_MONTHLY.id,
      user_id: u.userId,
      credits: "600",
      amount: "1900",
      currency: "usd",
    });
    await b.deliverOk(await b.stripe.pay(s.id));
    const subId = b.stripe.sessions.get(s.id)!.subscription as string;

    const sub = await subscription(u.cookie);
    expect(sub).toMatchObject({
      product_id: PRO_MONTHLY.id,
      product_name: "Pro monthly",
      interval: "month",
      amount: PRO_MONTHLY.amount,
      status: "paid",
      sub_id: subId,
    });
    expect(await b.credits(u.cookie)).toMatchObject({ left_credits: SIGNUP + 600 });
    const periodEnd = async () =>
      (await b.db.one(b.db.select().from(orders).where(eq(orders.externalId, subId))))!.periodEnd!.getTime();
    const stripePeriodEnd = () => b.stripe.subscriptions.get(subId)!.items.data[0].current_period_end * 1000;
    expect(await periodEnd()).toBe(stripePeriodEnd());

    const end0 = await periodEnd();
    await b.deliverOk(await b.stripe.renew(subId));
    expect(await periodEnd()).toBeGreaterThan(end0);
    expect(await periodEnd()).toBe(stripePeriodEnd());
    const renewal2 = await b.stripe.renew(subId);
    await b.deliverOk(renewal2);
    expect(await periodEnd()).toBe(stripePeriodEnd());
    expect(await b.credits(u.cookie)).toMatchObject({
      left_credits: SIGNUP + 3 * 600,
      total_credits: SIGNUP + 3 * 600,
    });

    // Refund the second renewal: its PaymentIntent is found through the invoice payments API.
    const invoice = renewal2.find((e) => e.event.type === "invoice.paid")!.event.data.object;
    const pi = b.stripe.paymentIntentOf(invoice.id);
    const [ack] = await b.deliverOk(await b.stripe.refund(pi));
    expect(ack.data.outcome).toContain("600 of 600 credits clawed back");
    expect(await b.credits(u.cookie)).toMatchObject({ left_credits: SIGNUP + 2 * 600 });
    expect((await subscription(u.cookie)).status).toBe("paid");

    // The customer portal: the pricing page's button redirects to the session Stripe opens for this customer.
    const portal = await fetch(`${b.server.url}/pricing`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: b.server.url, cookie: u.cookie },
      body: new URLSearchParams({ intent: "portal" }),
    });
    expect(portal.status).toBe(302);
    expect(portal.headers.get("location")).toStartWith(`${b.stripe.origin}/portal/bps_`);
    const portalCall = b.stripe.state.requests.findLast((r) => r.path === "/v1/billing_portal/sessions")!;
    expect(new URLSearchParams(portalCall.body as string).get("customer")).toBe(
      b.stripe.subscriptions.get(subId)!.customer,
    );
    expect(new URLSearchParams(portalCall.body as string).get("return_url")).toBe(`${b.server.url}/account`);

    await b.deliverOk(await b.stripe.cancel(subId));
    expect(await subscription(u.cookie)).toBeNull();
    expect((await b.db.one(b.db.select().from(orders).where(eq(orders.externalId, subId))))!.status).toBe("canceled");
  });
});

describe("the webhook signature", () => {
  test("a bad signature or an altered body → HTTP 400 and nothing changes", async () => {
    const u = await b.signUp("forged");
    const s = await checkout(u.cookie, PACK_100.id);
    const [paid] = await b.stripe.pay(s.id);
    const url = b.stripe.webhookUrl!;
    const post = (body: string, signature?: string) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(signature ? { "stripe-signature": signature } : {}) },
        body,
      });

    // Signed with another secret.
    const forgedHeader = await (await import("stripe")).default.webhooks.generateTestHeaderStringAsync({
      payload: paid!.payload,
      secret: "whsec_not_the_secret",
    });
    const forged = await post(paid!.payload, forgedHeader);
    expect(forged.status).toBe(400);
    expect(await forged.json()).toEqual({ code: 1, message: "invalid signature", data: null });
    // No signature at all.
    expect((await post(paid!.payload)).status).toBe(400);
    // The right signature over a body changed afterwards (more credits for someone else).
    const altered = paid!.payload.replace(PACK_100.id, "pack-2000");
    expect(altered).not.toBe(paid!.payload);
    expect((await post(altered, paid!.signature)).status).toBe(400);
    // Re-serialised JSON (whitespace only) also fails: the raw bytes are what is signed.
    expect((await post(JSON.stringify(JSON.parse(paid!.payload)), paid!.signature)).status).toBe(400);

    expect(await b.credits(u.cookie)).toEqual({ left_credits: SIGNUP, total_credits: SIGNUP });
    expect(
      await b.db.one(b.db.select().from(billingEvents).where(eq(billingEvents.id, paid!.event.id))),
    ).toBeUndefined();
    // The genuine delivery still works afterwards.
    await b.deliverOk([paid!]);
    expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP + PACK_100.credits);
  });
});

describe("duplicates and order", () => {
  test("the same event delivered 5 times concurrently → one grant; replays answer 2xx", async () => {
    const u = await b.signUp("dup");
    const s = await checkout(u.cookie, PACK_100.id);
    const [paid] = await b.stripe.pay(s.id);
    const res = await Promise.all(Array.from({ length: 5 }, () => b.stripe.deliver([paid!]).then((r) => r[0]!)));
    for (const r of res) expect(r.status).toBe(200);
    const bodies = await Promise.all(res.map((r) => r.json()));
    expect(bodies.filter((b) => b.data.duplicate === false).length).toBe(1);
    expect(await b.credits(u.cookie)).toEqual({
      left_credits: SIGNUP + PACK_100.credits,
      total_credits: SIGNUP + PACK_100.credits,
    });
    expect(
      (await b.db.many(b.db.select().from(creditGrants).where(eq(creditGrants.userId, u.userId)))).filter(
        (g) => g.source === "order",
      ).length,
    ).toBe(1);
    // A later replay too.
    const [again] = await b.deliverOk([paid!]);
    expect(again.data.duplicate).toBe(true);
    expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP + PACK_100.credits);
  });

  test("invoice.paid before checkout.session.completed → the subscription and one first-period grant", async () => {
    const u = await b.signUp("early-invoice");
    const s = await checkout(u.cookie, PRO_MONTHLY.id);
    const events = await b.stripe.pay(s.id);
    const byType = (t: string) => events.find((e) => e.event.type === t)!;
    await b.deliverOk([byType("invoice.paid")]);
    expect(await subscription(u.cookie)).toMatchObject({ product_id: PRO_MONTHLY.id, status: "paid" });
    expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP + 600);
    await b.deliverOk([byType("checkout.session.completed"), byType("customer.subscription.created")]);
    expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP + 600);
    expect((await b.db.many(b.db.select().from(orders).where(eq(orders.userId, u.userId)))).length).toBe(1);
  });

  test("an event for a user who does not exist → 200, logged as ignored, payload kept", async () => {
    const ghost = await b.stripe.sign({
      id: "evt_ghost_1",
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: "cs_test_ghost",
          object: "checkout.session",
          mode: "payment",
          payment_status: "paid",
          client_reference_id: "no-such-user",
          metadata: { product_id: PACK_100.id },
          amount_total: 500,
          currency: "usd",
          payment_intent: "pi_ghost",
          customer: null,
        },
      },
    });
    const [ack] = await b.deliverOk([ghost]);
    expect(ack.data.outcome).toBe("ignored: unknown user no-such-user");
    const row = (await b.db.one(b.db.select().from(billingEvents).where(eq(billingEvents.id, "evt_ghost_1"))))!;
    expect(row.payload).toBe(ghost.payload);
    // The log line reaches us through the server's stdout pipe, a moment after the answer.
    for (const until = Date.now() + 5000; !b.server.logs().includes("billing event ignored") && Date.now() < until; )
      await Bun.sleep(20);
    expect(b.server.logs()).toContain("billing event ignored");
  });
});

describe("refunds", () => {
  test("a refund after the credits were spent → balance floors at 0 and the ledger shows the claw-back", async () => {
    const u = await b.signUp("spent");
    const s = await checkout(u.cookie, PACK_100.id);
    await b.deliverOk(await b.stripe.pay(s.id));
    // Spend 80: the 10 sign-up credits (expiring first) and 70 of the pack.
    await b.db.tx((tx) =>
      debitForGeneration(tx, { genId: `spend-${u.userId}`, userId: u.userId, amount: 80 }, systemClock),
    );
    expect((await b.credits(u.cookie)).left_credits).toBe(30);

    const [ack] = await b.deliverOk(await b.stripe.refund(b.stripe.paymentIntentOf(s.id)));
    expect(ack.data.outcome).toContain("30 of 100 credits clawed back");
    expect(await b.credits(u.cookie)).toEqual({ left_credits: 0, total_credits: SIGNUP + PACK_100.credits });
    const clawback = (await b.db.many(b.db.select().from(creditDebits).where(eq(creditDebits.userId, u.userId)))).find(
      (d) => d.genId.startsWith("refund:"),
    )!;
    expect({ amount: clawback.amount, charged: clawback.charged }).toEqual({ amount: 100, charged: 30 });
    expect((await b.db.one(b.db.select().from(orders).where(eq(orders.externalId, s.id))))!.status).toBe("refunded");
  });
});

describe("disputes and expired checkouts", () => {
  test("a dispute after a partial refund takes back the rest of the pack; its replay changes nothing", async () => {
    const u = await b.signUp("disputed");
    const s = await checkout(u.cookie, PACK_100.id);
    await b.deliverOk(await b.stripe.pay(s.id));
    const pi = b.stripe.paymentIntentOf(s.id);
    // $1.00 of $5.00 refunded: 20 of the 100 credits go back.
    const [refund] = await b.deliverOk(await b.stripe.refund(pi, 100));
    expect(refund.data.outcome).toContain("20 of 20 credits clawed back");
    expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP + 80);

    const dispute = await b.stripe.dispute(pi);
    expect(dispute[0]!.event.data.object.amount).toBe(400);
    const [ack] = await b.deliverOk(dispute);
    expect(ack.data.outcome).toBe(`applied: dispute 500 of 500 on ${s.id}; 80 of 80 credits clawed back`);
    expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP);
    expect((await b.db.one(b.db.select().from(orders).where(eq(orders.externalId, s.id))))!.status).toBe("refunded");

    const [again] = await b.deliverOk(dispute);
    expect(again.data.duplicate).toBe(true);
    expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP);
  });

  test("checkout.session.expired marks the checkout expired; a later one for a paid session changes nothing", async () => {
    const u = await b.signUp("expired");
    const open = await checkout(u.cookie, PACK_100.id);
    const [ack] = await b.deliverOk(await b.stripe.expire(open.id));
    expect(ack.data.outcome).toBe(`applied: checkout ${open.id} expired`);
    expect((await b.db.one(b.db.select().from(checkouts).where(eq(checkouts.id, open.id))))!.status).toBe("expired");
    expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP);

    const paid = await checkout(u.cookie, PACK_100.id);
    await b.deliverOk(await b.stripe.pay(paid.id));
    // An expiry that arrives after the payment (out of order): the checkout is completed, not open.
    const late = await b.stripe.sign({
      id: `evt_late_${paid.id}`,
      object: "event",
      created: Math.floor(Date.now() / 1000),
      type: "checkout.session.expired",
      data: { object: { ...paid, status: "expired" } },
    });
    const [lateAck] = await b.deliverOk([late]);
    expect(lateAck.data.outcome).toBe(`ignored: checkout ${paid.id} not open`);
    expect((await b.credits(u.cookie)).left_credits).toBe(SIGNUP + PACK_100.credits);
  });
});

describe("affiliates", () => {
  test("an invited user's first paid order rewards an affiliate inviter once (10 % of its credits)", async () => {
    const inviter = await b.signUp("inviter");
    await b.api.post("/api/update-invite", { is_affiliate: true }, { cookie: inviter.cookie });
    const code = (await b.api.post("/api/get-user-info", undefined, { cookie: inviter.cookie })).body.data.invite_code;
    const invitee = await b.signUp("invitee", code);
    expect((await b.api.post("/api/get-user-info", undefined, { cookie: invitee.cookie })).body.data.invited_by).toBe(
      inviter.userId,
    );

    await b.deliverOk(await b.stripe.pay((await checkout(invitee.cookie, PACK_100.id)).id));
    expect((await b.credits(inviter.cookie)).left_credits).toBe(SIGNUP + 10);
    // A second order of the same invitee: no second reward.
    await b.deliverOk(await b.stripe.pay((await checkout(invitee.cookie, PACK_100.id)).id));
    expect((await b.credits(inviter.cookie)).left_credits).toBe(SIGNUP + 10);
    const rewards = (
      await b.db.many(b.db.select().from(creditGrants).where(eq(creditGrants.userId, inviter.userId)))
    ).filter((g) => g.source === "referral");
    expect(rewards.map((g) => g.amount)).toEqual([10]);
  });

  test("an inviter who is not an affiliate earns nothing", async () => {
    const inviter = await b.signUp("plain-inviter");
    const code = (await b.api.post("/api/get-user-info", undefined, { cookie: inviter.cookie })).body.data.invite_code;
    const invitee = await b.signUp("plain-invitee", code);
    await b.deliverOk(await b.stripe.pay((await checkout(invitee.cookie, PACK_100.id)).id));
    expect((await b.credits(inviter.cookie)).left_credits).toBe(SIGNUP);
  });
});
