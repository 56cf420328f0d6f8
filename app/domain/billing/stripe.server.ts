/**
 * Stripe through its official SDK (docs/design.md §9): Checkout Sessions, the
 * customer portal, and the webhook (signature on the raw body, then the
 * event turned into a fulfilment `Fact`). STRIPE_API_URL points the SDK at
 * another host (the local fake in tests).
 */
import Stripe from "stripe";
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";
import { log } from "~/lib/log.server";
import type { Fact } from "./fulfil.server";
import { subscriptionStatus } from "./fulfil.server";
import type { ProductRow } from "./products.server";

export type StripeConfig = Pick<Config, "STRIPE_SECRET_KEY" | "STRIPE_WEBHOOK_SECRET" | "STRIPE_API_URL">;

const clients = new Map<string, Stripe>();

/** One SDK client per key and API address. */
export function stripeClient(config: StripeConfig): Stripe {
  if (!config.STRIPE_SECRET_KEY) throw new Error("stripe: STRIPE_SECRET_KEY is not set");
  const cacheKey = `${config.STRIPE_SECRET_KEY}@${config.STRIPE_API_URL}`;
  let client = clients.get(cacheKey);
  if (!client) {
    const u = new URL(config.STRIPE_API_URL);
    const protocol = u.protocol === "http:" ? "http" : "https";
    client = new Stripe(config.STRIPE_SECRET_KEY, {
      host: u.hostname,
      port: u.port || (protocol === "http" ? 80 : 443),
      protocol,
      // Creating a session is retried with the SDK's idempotency key; nothing is paid twice.
      maxNetworkRetries: 1,
      timeout: 20_000,
      appInfo: { name: "Atelier" },
    });
    clients.set(cacheKey, client);
  }
  return client;
}

export interface CheckoutInput {
  userId: string;
  email: string;
  product: ProductRow;
  /** An existing Stripe customer of this user (reused so the portal shows every subscription). */
  customerId?: string | null;
  successUrl: string;
  cancelUrl: string;
}

/** Creates a Checkout Session in payment (pack) or subscription (plan) mode. */
export async function createStripeCheckout(
  config: StripeConfig,
  input: CheckoutInput,
): Promise<{ id: string; url: string }> {
  const { product } = input;
  // What is sold, fixed now: fulfilment grants these credits even if the product is re-priced before payment.
  const metadata = {
    product_id: product.id,
    user_id: input.userId,
    credits: String(product.credits),
    amount: String(product.amount),
    currency: product.currency,
  };
  const isPlan = product.kind === "subscription";
  const session = await stripeClient(config).checkout.sessions.create({
    mode: isPlan ? "subscription" : "payment",
    client_reference_id: input.userId,
    metadata,
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: product.currency,
          unit_amount: product.amount,
          product_data: { name: product.name, metadata: { product_id: product.id } },
          ...(isPlan ? { recurring: { interval: product.interval as "month" | "year" } } : {}),
        },
      },
    ],
    // The metadata travels on to the subscription (and so to its invoices) or to the PaymentIntent.
    ...(isPlan ? { subscription_data: { metadata } } : { payment_intent_data: { metadata } }),
    ...(input.customerId ? { customer: input.customerId } : { customer_email: input.email }),
    ...(!isPlan && !input.customerId ? { customer_creation: "always" as const } : {}),
    success_url: input.successUrl,
    cancel_url: input.cancelUrl,
  });
  if (!session.url) throw new Error(`stripe: session ${session.id} has no url`);
  return { id: session.id, url: session.url };
}

export async function createPortalUrl(config: StripeConfig, customerId: string, returnUrl: string): Promise<string> {
  const portal = await stripeClient(config).billingPortal.sessions.create({
    customer: customerId,
    return_url: returnUrl,
  });
  return portal.url;
}

/** Verifies `Stripe-Signature` over the exact bytes received; anything wrong → 400, nothing changed. */
export async function verifyStripeEvent(
  config: StripeConfig,
  raw: Uint8Array,
  signature: string | null,
): Promise<Stripe.Event> {
  if (!config.STRIPE_WEBHOOK_SECRET) throw new AppError("WEBHOOK_NOT_CONFIGURED");
  if (!signature) throw new AppError("WEBHOOK_SIGNATURE");
  try {
    return await Stripe.webhooks.constructEventAsync(raw, signature, config.STRIPE_WEBHOOK_SECRET);
  } catch (e) {
    log.warn("stripe webhook: signature rejected", { error: (e as Error).message });
    throw new AppError("WEBHOOK_SIGNATURE");
  }
}

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === "string" ? v : v.id;
const ms = (seconds: number | null | undefined) => (seconds ? seconds * 1000 : null);

/**
 * What an event means for the ledger. Packs come from the signed event alone;
 * the only API call is for a refund or dispute of a subscription invoice, whose charge
 * names a PaymentIntent that Atelier may not have seen (invoice payments are
 * not part of `invoice.paid` unless expanded).
 */
/** The credits snapshot of our metadata (absent on sessions made before it existed). */
const soldCredits = (m: Record<string, string> | null | undefined): number | null => {
  const n = Number(m?.credits);
  return m?.credits && Number.isSafeInteger(n) && n >= 0 ? n : null;
};

export async function factFromEvent(
  config: StripeConfig,
  event: Stripe.Event,
  knownPaymentIntent: (pi: string) => Promise<boolean>,
): Promise<Fact | null> {
  /** Which invoice a PaymentIntent Atelier has not seen paid (a subscription period's charge), else null. */
  const invoiceOf = async (pi: string | null): Promise<string | null> => {
    if (!pi || !config.STRIPE_SECRET_KEY || (await knownPaymentIntent(pi))) return null;
    const found = await stripeClient(config).invoicePayments.list({
      payment: { type: "payment_intent", payment_intent: pi },
      limit: 1,
    });
    return idOf(found.data[0]?.invoice as string | { id: string } | undefined);
  };
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const s = event.data.object;
      if (s.payment_status === "unpaid") return null; // an async payment method: its success event follows
      const base = {
        type: "payment" as const,
        provider: "stripe" as const,
        userId: s.client_reference_id,
        productId: s.metadata?.product_id ?? null,
        credits: soldCredits(s.metadata),
        amount: s.amount_total ?? 0,
        currency: s.currency ?? "usd",
        customerId: idOf(s.customer),
        checkoutId: s.id,
        at: event.created,
      };
      if (s.mode === "subscription") {
        const subId = idOf(s.subscription);
        if (!subId) return null;
        return { ...base, orderRef: subId, paymentRef: idOf(s.invoice) ?? s.id };
      }
      return { ...base, orderRef: s.id, paymentRef: s.id, paymentIntent: idOf(s.payment_intent) };
    }
    case "invoice.paid": {
      const inv = event.data.object;
      const details = inv.parent?.subscription_details;
      const subId = idOf(details?.subscription);
      if (!subId || !inv.id) return null;
      const ends = (inv.lines?.data ?? []).map((l) => l.period?.end ?? 0);
      const pi = inv.payments?.data?.find((p) => p.payment?.payment_intent)?.payment?.payment_intent;
      return {
        type: "payment",
        provider: "stripe",
        userId: details?.metadata?.user_id ?? null,
        productId: details?.metadata?.product_id ?? null,
        credits: soldCredits(details?.metadata),
        orderRef: subId,
        paymentRef: inv.id,
        amount: inv.amount_paid,
        currency: inv.currency,
        paymentIntent: idOf(pi),
        customerId: idOf(inv.customer),
        periodEnd: ends.length ? ms(Math.max(...ends)) : null,
        at: event.created,
      };
    }
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted": {
      const sub = event.data.object;
      const ends = (sub.items?.data ?? []).map((i) => i.current_period_end ?? 0);
      return {
        type: "status",
        provider: "stripe",
        subscriptionId: sub.id,
        userId: sub.metadata?.user_id ?? null,
        productId: sub.metadata?.product_id ?? null,
        credits: soldCredits(sub.metadata),
        status: event.type === "customer.subscription.deleted" ? "canceled" : subscriptionStatus(sub.status),
        periodEnd: ends.length ? ms(Math.max(...ends)) : null,
        customerId: idOf(sub.customer),
        at: event.created,
      };
    }
    case "charge.refunded": {
      const ch = event.data.object;
      const pi = idOf(ch.payment_intent);
      return { type: "refund", paymentIntent: pi, paymentRef: await invoiceOf(pi), amountRefunded: ch.amount_refunded };
    }
    case "charge.dispute.created": {
      const d = event.data.object;
      const pi = idOf(d.payment_intent);
      return { type: "dispute", paymentIntent: pi, paymentRef: await invoiceOf(pi), amount: d.amount };
    }
    case "checkout.session.expired":
      return { type: "checkout-expired", checkoutId: event.data.object.id };
    default:
      return null;
  }
}
