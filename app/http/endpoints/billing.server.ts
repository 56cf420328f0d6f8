/** The billing rows of the endpoint table: products, checkout and Stripe's webhook (docs/design.md §9). */
import { z } from "zod";
import { PLAN_INTERVALS, PRODUCT_KINDS } from "~/domain/billing/products.server";
import { AUTH_ERRORS, COMMON, type EndpointDef } from "./def.server";

export const ProductSchema = z.strictObject({
  product_id: z.string(),
  name: z.string(),
  kind: z.enum(PRODUCT_KINDS),
  credits: z.int().describe("credits of a pack, or granted each period of a plan"),
  interval: z.enum(PLAN_INTERVALS).nullable().describe("month or year for a subscription; null for a pack"),
  amount: z.int().describe("price in the smallest currency unit (cents)"),
  currency: z.string().describe("ISO 4217, lowercase"),
});

export const CheckoutSchema = z.object({ product_id: z.string().trim().min(1).max(100) });

export const BILLING_ENDPOINTS = {
  "/api/billing/products": {
    method: "POST",
    tag: "Billing",
    summary: "What is for sale",
    description:
      "Public. Credit packs (one-time; credits valid 1 year by default) and subscription plans (credits granted each month or year), in display order. Amounts in the smallest currency unit (cents).",
    auth: "none",
    source: "docs/design.md §9",
    response: z.strictObject({ products: z.array(ProductSchema) }),
    errors: ["METHOD_NOT_ALLOWED", "BUSY", "INTERNAL"],
  },
  "/api/billing/checkout": {
    method: "POST",
    tag: "Billing",
    summary: "Start a checkout",
    description:
      "Creates a Stripe Checkout Session for the product (payment mode for a pack, subscription mode for a plan) and answers the URL to send the buyer to. Credits arrive when Stripe's webhook confirms the payment. Without STRIPE_SECRET_KEY the URL opens Atelier's simulated checkout page (in production with a live provider only when BILLING_SIMULATED=true). A user may start 10 checkouts per hour; a checkout grants the credits it was sold with.",
    auth: "user",
    source: "docs/design.md §9",
    body: CheckoutSchema,
    response: z.strictObject({ checkout_url: z.url() }),
    errors: [
      ...AUTH_ERRORS,
      "PRODUCT_NOT_FOUND",
      "INVALID_PARAMS",
      "UPSTREAM_FAILED",
      "RATE_LIMITED",
      "BILLING_NOT_CONFIGURED",
      ...COMMON,
    ],
    example: { product_id: "pack-100" },
  },
  "/api/billing/webhook/stripe": {
    method: "POST",
    tag: "Billing",
    summary: "Stripe webhook",
    description:
      "For Stripe only. Verifies `Stripe-Signature` on the raw body with STRIPE_WEBHOOK_SECRET (HTTP 400 and nothing changed when it does not match), records each event id once and applies it: checkout.session.completed, invoice.paid, customer.subscription.updated / deleted, charge.refunded, charge.dispute.created (a chargeback, like a refund), checkout.session.expired. A replayed event answers code 0 with duplicate true.",
    auth: "none",
    source: "docs/design.md §9",
    docBody: z
      .looseObject({ id: z.string(), type: z.string(), data: z.looseObject({ object: z.looseObject({}) }) })
      .describe("a Stripe event"),
    response: z.strictObject({ event_id: z.string(), duplicate: z.boolean(), outcome: z.string() }),
    errors: ["WEBHOOK_SIGNATURE", "WEBHOOK_NOT_CONFIGURED", "INVALID_PARAMS", ...COMMON],
  },
} as const satisfies Record<string, EndpointDef>;
