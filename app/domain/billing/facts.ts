/**
 * What happened, in the provider's terms turned into ours: Stripe's webhook and the simulated checkout each
 * describe an event as a `Fact`, and fulfilment (fulfil.server.ts) applies it.
 */
import type { Config } from "~/lib/config.server";

export type BillingConfig = Pick<Config, "PACK_VALIDITY_DAYS" | "SUBSCRIPTION_GRACE_DAYS" | "AFFILIATE_REWARD_PERCENT">;
export type Provider = "stripe" | "simulated";

/** Money received: a pack's payment or one subscription period. */
export interface PaymentFact {
  type: "payment";
  provider: Provider;
  /** From the signed event; for a renewal without metadata, taken from the order. */
  userId?: string | null;
  productId?: string | null;
  /** The provider's object bought: Checkout Session id (pack) or subscription id. */
  orderRef: string;
  /** The payment itself: Checkout Session id (pack) or invoice id (subscription period). */
  paymentRef: string;
  amount: number;
  currency: string;
  /** Credits sold, fixed at checkout (checkout row / session metadata); stored on the order, so renewals grant the same. */
  credits?: number | null;
  paymentIntent?: string | null;
  customerId?: string | null;
  /** End of the period paid for (ms); default one interval from now. */
  periodEnd?: number | null;
  /** The Checkout Session that was paid (its `checkouts` row becomes completed). */
  checkoutId?: string | null;
  /** The event's `created` (seconds). */
  at: number;
}

/** A subscription's state changed (updated, canceled). */
export interface StatusFact {
  type: "status";
  provider: Provider;
  subscriptionId: string;
  userId?: string | null;
  productId?: string | null;
  status: string;
  periodEnd?: number | null;
  customerId?: string | null;
  /** Credits sold (subscription metadata), for an order first seen through its status. */
  credits?: number | null;
  at: number;
}

/** Money returned: the cumulative refunded amount of one payment. */
export interface RefundFact {
  type: "refund";
  paymentIntent?: string | null;
  /** The payment's ref when known (an invoice id found through the API). */
  paymentRef?: string | null;
  /** Cumulative refunded amount (cents) of that charge. */
  amountRefunded: number;
}

/**
 * A chargeback opened (`charge.dispute.created`): the disputed amount is taken
 * back like a refund on top of what was refunded before. Winning the dispute
 * later does not grant the credits again (docs/payments.md: an admin grants them).
 */
export interface DisputeFact {
  type: "dispute";
  paymentIntent: string | null;
  /** The payment's ref when known (an invoice id found through the API, like a refund's). */
  paymentRef?: string | null;
  /** Disputed amount (cents). */
  amount: number;
}

/** A checkout that was never paid expired (`checkout.session.expired`). */
export interface CheckoutExpiredFact {
  type: "checkout-expired";
  checkoutId: string;
}

export type Fact = PaymentFact | StatusFact | RefundFact | DisputeFact | CheckoutExpiredFact;
