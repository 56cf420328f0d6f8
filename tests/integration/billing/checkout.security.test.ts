/**
 * Security review (docs/design.md §9, resource bounds): with the default configuration
 * (SESSION_RATE_LIMITS=false) a signed-in session may call
 * POST /api/billing/checkout without any bound. Each call is one Stripe API
 * request made with the merchant's secret key (Stripe rate-limits per account,
 * so one user can starve every other buyer's checkout) and one `checkouts` row.
 * Expected: a per-user bound on checkouts started (say 10 per hour, or reuse of
 * an open session for the same product), answered with `too many requests`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type BillingServer, startBillingServer } from "../../support/billing";

let b: BillingServer;

const CALLS = 40;
const BOUND = 10;

beforeAll(async () => void (b = await startBillingServer()));
afterAll(() => b?.stop());

test(`one session cannot start more than ${BOUND} Stripe checkouts in a burst`, async () => {
  const { cookie } = await b.signUp("rv-flood");
  const before = b.stripe.sessions.size;
  let ok = 0;
  for (let i = 0; i < CALLS; i++) {
    const r = await b.api.post("/api/billing/checkout", { product_id: "pack-100" }, { cookie });
    if (r.body.code === 0) ok++;
  }
  expect(b.stripe.sessions.size - before).toBeLessThanOrEqual(BOUND);
  expect(ok).toBeLessThanOrEqual(BOUND);
});
