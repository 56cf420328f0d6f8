/**
 * Buying (docs/design.md §9): start a checkout (Stripe's, or the simulated one when
 * STRIPE_SECRET_KEY is unset), complete a simulated one, open the customer
 * portal, and receive Stripe's webhook. Completion always goes through
 * `processBillingEvent`, the same fulfilment code for both.
 */

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { and, count, desc, eq, gte, isNotNull } from "drizzle-orm";
import type Stripe from "stripe";
import { type Db, lockRow, one, run } from "#db/client";
import { checkouts, orderPayments, orders } from "#db/schema";
import { recordStripeSignatureFailure } from "~/domain/ops/alerts.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { AppError, isAppError } from "~/lib/errors";
import { log } from "~/lib/log.server";
import { providerModes } from "../health.server";
import { defaultPeriodEnd, type Interval } from "../subscriptions/subscriptions.server";
import { applyWaitingEvents, type BillingConfig, type EventResult, processBillingEvent } from "./fulfil.server";
import { getProduct, type ProductRow, requireBuyableProduct } from "./products.server";
import {
  createPortalUrl,
  createStripeCheckout,
  factFromEvent,
  type StripeConfig,
  verifyStripeEvent,
} from "./stripe.server";

export interface CheckoutDeps {
  db: Db;
  clock: Clock;
  /** The whole Config in the app; `isProduction`/`BILLING_SIMULATED` and provider keys guard the simulated checkout. */
  config: BillingConfig & StripeConfig & Pick<Config, "publicUrl"> & Partial<Config>;
}

/** Checkouts one user may start per hour, whatever SESSION_RATE_LIMITS says: each Stripe one is an API call on the merchant's key. */
export const CHECKOUT_STARTS_PER_HOUR = 10;
const HOUR_MS = 3_600_000;

/**
 * Production with a live provider and no STRIPE_SECRET_KEY: the simulated
 * checkout would hand out free credits that buy paid provider calls, so it is
 * off unless BILLING_SIMULATED=true says that is intended.
 */
function assertSimulatedAllowed(config: CheckoutDeps["config"]) {
  if (!config.isProduction || config.BILLING_SIMULATED) return;
  if (Object.values(providerModes(config as Config)).includes("live")) throw new AppError("BILLING_NOT_CONFIGURED");
}

/**
 * The per-user bound on checkout starts, counted on `checkouts` rows: the count
 * and the insert of this start's row share one transaction holding the user's
 * row lock, so concurrent starts cannot all pass the count (without the lock, 40 at once
 * made 40 Stripe sessions). A Stripe start inserts a placeholder row first (no
 * network I/O inside the transaction) and gives it the session id afterwards.
 */
async function reserveCheckout(db: Db, row: typeof checkouts.$inferInsert, now: number): Promise<void> {
  await db.tx(function* (t) {
    yield* lockRow("user", row.userId);
    const started = yield* one(
      t
        .select({ n: count() })
        .from(checkouts)
        .where(and(eq(checkouts.userId, row.userId), gte(checkouts.createdAt, new Date(now - HOUR_MS)))),
    );
    if (Number(started?.n ?? 0) >= CHECKOUT_STARTS_PER_HOUR) throw new AppError("RATE_LIMITED");
    yield* run(t.insert(checkouts).values(row));
  });
}

export const billingMode = (config: StripeConfig): "stripe" | "simulated" =>
  config.STRIPE_SECRET_KEY ? "stripe" : "simulated";

/**
 * Where a checkout comes back to: the account page, or the studio when it was started there (its draft waits in
 * the browser). A fixed list of places, never an address from the request, so no checkout can send a buyer away.
 */
export const RETURN_PLACES = { account: "/account", studio: "/studio" } as const;
export type ReturnPlace = keyof typeof RETURN_PLACES;
export const returnPlaceOf = (v: unknown): ReturnPlace => (v === "studio" ? "studio" : "account");

export const returnUrls = (publicUrl: string, place: ReturnPlace = "account") => ({
  successUrl: `${publicUrl}${RETURN_PLACES[place]}?notice=checkout-success`,
  cancelUrl: `${publicUrl}${RETURN_PLACES[place]}?notice=checkout-canceled`,
});

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** The user's Stripe customer, from their latest order that has one. */
async function customerOf(db: Db, userId: string): Promise<string | null> {
  const row = await db.one(
    db
      .select({ c: orders.customerId })
      .from(orders)
      .where(and(eq(orders.userId, userId), eq(orders.provider, "stripe"), isNotNull(orders.customerId)))
      .orderBy(desc(orders.createdAt))
      .limit(1),
  );
  return row?.c ?? null;
}

/** `POST /api/billing/checkout`: where to send the buyer. */
export async function startCheckout(
  deps: CheckoutDeps,
  buyer: { id: string; email: string },
  productId: string,
  returnTo: ReturnPlace = "account",
): Promise<{ checkout_url: string }> {
  const { db, clock, config } = deps;
  const product = await requireBuyableProduct(db, productId);
  const urls = returnUrls(config.publicUrl, returnTo);
  if (billingMode(config) === "simulated") assertSimulatedAllowed(config);
  const now = clock.now();
  const sold = {
    userId: buyer.id,
    productId: product.id,
    credits: product.credits,
    amount: product.amount,
    currency: product.currency,
    createdAt: new Date(now),
  };
  if (billingMode(config) === "stripe") {
    const placeholder = `starting_${randomBytes(12).toString("hex")}`;
    await reserveCheckout(db, { id: placeholder, provider: "stripe", ...sold }, now);
    const session = await createStripeCheckout(config, {
      userId: buyer.id,
      email: buyer.email,
      product,
      customerId: await customerOf(db, buyer.id),
      ...urls,
    }).catch(async (e: { statusCode?: number; message?: string }) => {
      log.warn("stripe: checkout session failed", { error: e.message, status: e.statusCode });
      await db.run(db.delete(checkouts).where(eq(checkouts.id, placeholder))); // nothing started: not counted
      throw new AppError("UPSTREAM_FAILED", { provider: "stripe", status: e.statusCode });
    });
    await db.run(db.update(checkouts).set({ id: session.id }).where(eq(checkouts.id, placeholder)));
    return { checkout_url: session.url };
  }
  const id = `cs_sim_${randomBytes(12).toString("hex")}`;
  const token = randomBytes(24).toString("base64url");
  await reserveCheckout(db, { id, provider: "simulated", tokenHash: sha256(token), ...sold }, now);
  const back = returnTo === "account" ? "" : `&return=${returnTo}`;
  return { checkout_url: `${config.publicUrl}/billing/simulated/${id}?token=${token}${back}` };
}

export interface SimulatedCheckoutView {
  id: string;
  status: string;
  product: ProductRow;
}

/** The simulated page: only its owner sees it. */
export async function getSimulatedCheckout(db: Db, id: string, userId: string): Promise<SimulatedCheckoutView | null> {
  const c = await db.one(db.select().from(checkouts).where(eq(checkouts.id, id)));
  if (c?.provider !== "simulated" || c.userId !== userId) return null;
  const product = await getProduct(db, c.productId);
  return product ? { id: c.id, status: c.status, product } : null;
}

const tokenMatches = (hash: string | null, token: string) => {
  if (!hash || !token) return false;
  const a = Buffer.from(hash, "hex");
  const b = Buffer.from(sha256(token), "hex");
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * Completes or cancels a simulated checkout: a POST by its owner carrying its
 * form token, paid only while checkout is still simulated (no Stripe key, and
 * allowed with the providers configured now). Completion is a payment fact
 * through the webhook's fulfilment.
 */
export async function finishSimulatedCheckout(
  deps: CheckoutDeps,
  input: { id: string; userId: string; token: string; outcome: "pay" | "cancel" },
): Promise<{ status: "completed" | "canceled"; result?: EventResult }> {
  const { db, clock } = deps;
  const c = await db.one(db.select().from(checkouts).where(eq(checkouts.id, input.id)));
  if (c?.provider !== "simulated" || c.userId !== input.userId || !tokenMatches(c.tokenHash, input.token)) {
    throw new AppError("FORBIDDEN");
  }
  if (input.outcome === "cancel") {
    await db.run(
      db
        .update(checkouts)
        .set({ status: "canceled" })
        .where(and(eq(checkouts.id, c.id), eq(checkouts.status, "open"))),
    );
    return { status: "canceled" };
  }
  // Checked again at payment: a checkout started before the operator set STRIPE_SECRET_KEY (or a live
  // provider key) must not hand out free credits now that they buy real work.
  if (billingMode(deps.config) === "stripe") throw new AppError("FORBIDDEN");
  assertSimulatedAllowed(deps.config);
  const product = await getProduct(db, c.productId);
  if (!product) throw new AppError("PRODUCT_NOT_FOUND");
  // Claim the checkout first: two submits of the same form pay once.
  const claimed = await db.run(
    db
      .update(checkouts)
      .set({ status: "completed" })
      .where(and(eq(checkouts.id, c.id), eq(checkouts.status, "open"))),
  );
  if (claimed === 0) {
    // Paid already by a first submit, or canceled/expired meanwhile (then nothing is paid).
    const now = await db.one(db.select({ status: checkouts.status }).from(checkouts).where(eq(checkouts.id, c.id)));
    return { status: now?.status === "completed" ? "completed" : "canceled" };
  }
  const now = clock.now();
  const isPlan = product.kind === "subscription";
  const result = await processBillingEvent(
    deps,
    {
      id: `evt_sim_${c.id}`,
      type: "simulated.checkout.completed",
      payload: JSON.stringify({ checkout: c.id, product: product.id }),
    },
    {
      type: "payment",
      provider: "simulated",
      userId: c.userId,
      productId: product.id,
      orderRef: isPlan ? `sub_sim_${c.id.slice(7)}` : c.id,
      paymentRef: c.id,
      // What the checkout sold (its snapshot), not the product row now.
      credits: c.credits ?? product.credits,
      amount: c.amount ?? product.amount,
      currency: c.currency ?? product.currency,
      periodEnd: isPlan ? defaultPeriodEnd(product.interval as Interval, now) : null,
      at: Math.floor(now / 1000),
    },
  );
  return { status: "completed", result };
}

/**
 * Simulated subscriptions have no Stripe portal: their owner cancels here,
 * through the same status fulfilment as `customer.subscription.deleted`.
 */
export async function cancelSimulatedSubscription(deps: CheckoutDeps, userId: string): Promise<EventResult | null> {
  const { db } = deps;
  const order = await db.one(
    db
      .select()
      .from(orders)
      .where(
        and(
          eq(orders.userId, userId),
          eq(orders.provider, "simulated"),
          eq(orders.kind, "subscription"),
          eq(orders.status, "paid"),
        ),
      )
      .orderBy(desc(orders.createdAt))
      .limit(1),
  );
  if (!order?.externalId) return null;
  const now = deps.clock.now();
  return processBillingEvent(
    deps,
    {
      id: `evt_sim_cancel_${order.orderNo}`,
      type: "simulated.subscription.deleted",
      payload: JSON.stringify({ order: order.orderNo }),
    },
    {
      type: "status",
      provider: "simulated",
      subscriptionId: order.externalId,
      status: "canceled",
      at: Math.floor(now / 1000),
    },
  );
}

/** The customer portal for a user with a Stripe subscription. */
export async function portalUrl(deps: CheckoutDeps, userId: string): Promise<string> {
  const customer = billingMode(deps.config) === "stripe" ? await customerOf(deps.db, userId) : null;
  if (!customer) throw new AppError("NO_BILLING_ACCOUNT");
  return createPortalUrl(deps.config, customer, `${deps.config.publicUrl}/account`);
}

/** `POST /api/billing/webhook/stripe`: verify, translate, fulfil once. */
export async function receiveStripeWebhook(
  deps: CheckoutDeps,
  raw: Uint8Array,
  signature: string | null,
): Promise<EventResult & { id: string }> {
  let event: Awaited<ReturnType<typeof verifyStripeEvent>>;
  try {
    event = await verifyStripeEvent(deps.config, raw, signature);
  } catch (error) {
    // Counted for the operator's alert: a wrong STRIPE_WEBHOOK_SECRET loses every payment event (docs/operating.md).
    if (isAppError(error) && error.code === "WEBHOOK_SIGNATURE")
      await recordStripeSignatureFailure(deps).catch(() => {});
    throw error;
  }
  const { db } = deps;
  const known = async (pi: string) =>
    (await db.one(
      db.select({ id: orderPayments.id }).from(orderPayments).where(eq(orderPayments.paymentIntent, pi)),
    )) !== undefined;
  const fact = await factFromEvent(deps.config, event, known);
  const payload = new TextDecoder().decode(raw);
  const result = await processBillingEvent(deps, { id: event.id, type: event.type, payload }, fact);
  // A payment (first delivery or a retry): refunds and disputes that came before it apply now.
  if (fact?.type === "payment") {
    await applyWaitingEvents(deps, fact, (stored) =>
      factFromEvent(deps.config, JSON.parse(stored) as Stripe.Event, known),
    );
  }
  return { id: event.id, ...result };
}
