/**
 * A production-build server wired to the Stripe fake (tests/fakes/stripe.ts):
 * STRIPE_* pointed at the fake, the fake's webhooks sent to the server's
 * `/api/billing/webhook/stripe`, a client and the server's database. The
 * billing integration tests share it:
 *
 *   let b: BillingServer;
 *   beforeAll(async () => void (b = await startBillingServer()));
 *   afterAll(() => b?.stop());
 */
import { expect } from "bun:test";
import type { Db } from "#db/client";
import type { PaymentFact } from "~/domain/billing/fulfil.server";
import { type SignedEvent, type StripeFake, startStripeFake } from "../fakes/stripe";
import { Client, uniqueEmail } from "./client";
import { openServerDb } from "./db";
import { type StartOptions, startServer, type TestServer } from "./server";

export interface BillingServer {
  stripe: StripeFake;
  server: TestServer;
  api: Client;
  /** The server's database (fixtures and assertions). */
  db: Db;
  /** A new account (e-mail from `tag`), optionally invited with `ref`. */
  signUp(tag: string, ref?: string): Promise<{ email: string; cookie: string; userId: string }>;
  /** The balance through the public API. */
  credits(cookie: string): Promise<{ left_credits: number; total_credits: number }>;
  /** Starts a checkout through Atelier (`POST /api/billing/checkout`) and returns the fake's session id. */
  checkoutSessionId(cookie: string, productId: string): Promise<string>;
  /** Sends signed events to the webhook; each must be answered 200; returns the parsed answers. */
  deliverOk(events: SignedEvent[]): Promise<any[]>;
  stop(): Promise<void>;
}

export async function startBillingServer(opts: StartOptions = {}): Promise<BillingServer> {
  const stripe = startStripeFake();
  const server = await startServer({ ...opts, env: { ...stripe.env, ...opts.env } }).catch(async (e) => {
    await stripe.stop();
    throw e;
  });
  stripe.webhookUrl = `${server.url}/api/billing/webhook/stripe`;
  const api = new Client(server.url);
  const db = await openServerDb(server.dataDir);
  return {
    stripe,
    server,
    api,
    db,
    async signUp(tag, ref) {
      const email = uniqueEmail(tag);
      return { email, ...(await api.signUp(email, { ref })) };
    },
    async credits(cookie) {
      return (await api.post("/api/get-user-credits", undefined, { cookie })).body.data;
    },
    async checkoutSessionId(cookie, productId) {
      const r = await api.post("/api/billing/checkout", { product_id: productId }, { cookie });
      expect(r.body.code).toBe(0);
      return new URL(r.body.data.checkout_url).pathname.split("/").pop()!;
    },
    async deliverOk(events) {
      const res = await stripe.deliver(events);
      for (const r of res) expect(r.status).toBe(200);
      return Promise.all(res.map((r) => r.json()));
    },
    async stop() {
      await db.close();
      await server.dispose();
      await stripe.stop();
    },
  };
}

/** The payment fact of pack `p40` (1000 cents in usd) bought with Checkout Session `ref`; `over` sets the rest. */
export const packPaid = (userId: string | null, ref: string, over: Partial<PaymentFact> = {}): PaymentFact => ({
  type: "payment",
  provider: "stripe",
  userId,
  productId: "p40",
  orderRef: ref,
  paymentRef: ref,
  amount: 1000,
  currency: "usd",
  paymentIntent: `pi_${ref}`,
  at: 100,
  ...over,
});

/**
 * The payment fact of one period of subscription `sub_1` (product `plan`, 900 cents in usd), paid by invoice
 * `invoice`, as fulfilment receives it from a signed event. A renewal whose event carries no metadata has no user
 * (`null`) and so no product. `over` sets the rest: `periodEnd` (absent: one interval from now), `at`, `amount`…
 */
export const subscriptionPeriodPaid = (
  userId: string | null,
  invoice: string,
  over: Partial<PaymentFact> = {},
): PaymentFact => ({
  type: "payment",
  provider: "stripe",
  userId,
  productId: userId ? "plan" : null,
  orderRef: "sub_1",
  paymentRef: invoice,
  amount: 900,
  currency: "usd",
  paymentIntent: `pi_${invoice}`,
  at: 100,
  ...over,
});
