import { MESSAGES } from "~/domain/account/messages";
import { adminCreateSubscription, adminInvalid } from "~/domain/admin/admin.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/admin/create-subscription");

// docs/design.md §6: records a paid order → the subscription.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: adminInvalid,
  handler: async ({ services, input }) => ({
    message: MESSAGES.SUBSCRIPTION_CREATED,
    data: await adminCreateSubscription(services, input),
  }),
});
export const loader = methodNotAllowed;
