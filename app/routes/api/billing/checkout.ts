import { startCheckout } from "~/domain/billing/checkout.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/billing/checkout");

// docs/design.md §9: a Checkout Session (or the simulated checkout) for one product.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ services, caller, input }) => ({
    data: await startCheckout(services, { id: caller.user.id, email: caller.user.email }, input.product_id),
  }),
});
export const loader = methodNotAllowed;
