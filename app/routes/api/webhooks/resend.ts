import { outboxChanged } from "~/domain/generations/changes.server";
import { resendDelivery } from "~/domain/webhooks/webhooks.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/webhooks/resend");

export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services }) => {
    const data = await resendDelivery(services.db, caller.user.id, input.delivery_id, services.clock);
    outboxChanged();
    return { data, message: E.successMessage };
  },
});
export const loader = methodNotAllowed;
