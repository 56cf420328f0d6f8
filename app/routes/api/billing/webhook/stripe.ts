import { receiveStripeWebhook } from "~/domain/billing/checkout.server";
import { errorResponse, methodNotAllowed, readRawBody } from "~/http/api.server";
import { getServices } from "~/http/services.server";
import { envelopeResponse, okBody } from "~/lib/envelope";

// docs/design.md §9: Stripe's events, verified on the raw body (not the api() JSON pipeline).
export async function action({ request }: { request: Request }): Promise<Response> {
  try {
    if (request.method !== "POST") return await methodNotAllowed({ request });
    const raw = await readRawBody(request);
    const r = await receiveStripeWebhook(getServices(), raw, request.headers.get("stripe-signature"));
    return envelopeResponse(okBody({ event_id: r.id, duplicate: r.duplicate, outcome: r.outcome }, "ok"));
  } catch (error) {
    return errorResponse(error, request);
  }
}
export const loader = methodNotAllowed;
