import { listDeliveries } from "~/domain/webhooks/webhooks.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/webhooks/deliveries");

export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services }) => ({
    data: await listDeliveries(services.db, caller.user.id, input.webhook_id),
  }),
});
export const loader = methodNotAllowed;
