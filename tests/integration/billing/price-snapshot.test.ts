/**
 * Money invariants (docs/design.md §9, docs/decisions/055-payments-hardening.md): the credits bought are fixed when the Checkout
 * Session is created (checkouts row / session metadata), as its price is, and the grant uses them. A buyer who opens
 * sessions while a product is cheap and pays them after an admin re-prices it (a bigger pack at a higher price under
 * the same id) gets the old credits for the old price.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { upsertProduct } from "~/domain/billing/products.server";
import { systemClock } from "~/lib/clock";
import { type BillingServer, startBillingServer } from "../../support/billing";

let b: BillingServer;

const SIGNUP = 10; // SIGNUP_CREDITS default

beforeAll(async () => void (b = await startBillingServer()));
afterAll(() => b?.stop());

test("a session priced at 100 credits for $5 grants 100 credits even if the product changed before payment", async () => {
  const { cookie } = await b.signUp("rv-price");
  const sessionId = await b.checkoutSessionId(cookie, "pack-100");
  expect(b.stripe.sessions.get(sessionId)).toBeDefined();

  // The admin re-prices the product: 2,000 credits for $60 under the same id.
  await upsertProduct(
    b.db,
    {
      product_id: "pack-100",
      name: "2,000 credits",
      kind: "pack",
      credits: 2000,
      interval: null,
      amount: 6000,
      currency: "usd",
      active: true,
      sort_order: 10,
    },
    systemClock,
  );

  await b.deliverOk(await b.stripe.pay(sessionId)); // pays the $5 the session was created with
  expect((await b.credits(cookie)).left_credits).toBe(SIGNUP + 100);
});
