/**
 * Checkout starts are bounded per user (docs/design.md §9, docs/decisions/055-payments-hardening.md): each is one Stripe API request on the
 * merchant's key (Stripe rate-limits per account, so one user could starve every other buyer) and one `checkouts`
 * row. Sequential floods and concurrent bursts alike create at most 10 Stripe sessions an hour, then
 * `too many requests`.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type BillingServer, startBillingServer } from "../../support/billing";

setDefaultTimeout(60_000);

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

/**
 * The bound counts checkouts before the Stripe call, so a burst of concurrent starts by one session cannot all pass
 * the count and fire any number of Stripe calls at once.
 */
describe("a concurrent burst of checkout starts", () => {
  let b: BillingServer;
  beforeAll(async () => void (b = await startBillingServer()));
  afterAll(() => b?.stop());

  test("40 concurrent checkout starts by one user create at most 10 Stripe sessions", async () => {
    const { cookie } = await b.signUp("rv-burst");
    const before = b.stripe.sessions.size;
    const replies = await Promise.all(
      Array.from({ length: 40 }, () => b.api.post("/api/billing/checkout", { product_id: "pack-100" }, { cookie })),
    );
    const ok = replies.filter((r) => r.body.code === 0).length;
    expect(b.stripe.sessions.size - before).toBeLessThanOrEqual(10);
    expect(ok).toBeLessThanOrEqual(10);
    // The refused ones say why.
    for (const r of replies.filter((r) => r.body.code !== 0)) expect(r.status).toBe(429);
  });
});
