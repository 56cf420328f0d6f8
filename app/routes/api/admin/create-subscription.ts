import { MESSAGES } from "~/domain/account/messages";
import { adminCreateSubscription, adminInvalid, CreateSubscriptionSchema } from "~/domain/admin/admin.server";
import { api, methodNotAllowed } from "~/lib/api.server";

// DESIGN §6: records a paid order → the subscription.
export const action = api({
  auth: "admin",
  body: CreateSubscriptionSchema,
  onInvalid: adminInvalid,
  handler: ({ services, input }) => ({ message: MESSAGES.SUBSCRIPTION_CREATED, data: adminCreateSubscription(services, input) }),
});
export const loader = methodNotAllowed;
