import { getActiveSubscription, toSubscriptionInfo } from "~/domain/subscriptions/subscriptions.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/get-user-subscription");

// Spec 4.9: the active subscription (fields of 2.3), or data null with code 0.
export const action = api({
  route: E.path,
  auth: E.auth,
  handler: async ({ caller, services }) => {
    const sub = await getActiveSubscription(services.db, caller.user.id, services.clock);
    return { data: sub ? toSubscriptionInfo(sub) : null };
  },
});
export const loader = methodNotAllowed;
