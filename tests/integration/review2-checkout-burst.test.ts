/**
 * review2: the per-user bound on checkout starts (10 an hour) counted rows that
 * are written only after the Stripe call returns, so a burst of concurrent
 * requests all passed the count: one session (sessions are not rate limited)
 * could fire any number of Stripe API calls on the merchant's key at once.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type BillingServer, startBillingServer } from "../support/billing";

setDefaultTimeout(60_000);

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
