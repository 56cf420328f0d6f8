import { listWebhooks } from "~/domain/webhooks/webhooks.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/webhooks/list");

export const action = api({
  route: E.path,
  auth: E.auth,
  handler: async ({ caller, services }) => ({ data: { webhooks: await listWebhooks(services.db, caller.user.id) } }),
});
export const loader = methodNotAllowed;
