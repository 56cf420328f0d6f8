/**
 * Resource bounds (docs/design.md §9, docs/decisions/055-payments-hardening.md): sessions are not rate limited by
 * default (SESSION_RATE_LIMITS=false), and each POST /api/billing/checkout is one Stripe API request made with the
 * merchant's secret key (Stripe rate-limits per account, so one user could starve every other buyer's checkout) and
 * one `checkouts` row. So checkouts started are bounded per user: 10 an hour, counted on `checkouts` rows.
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
