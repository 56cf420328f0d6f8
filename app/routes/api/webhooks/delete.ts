import { deleteWebhook } from "~/domain/webhooks/webhooks.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/webhooks/delete");

export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services }) => ({
    data: await deleteWebhook(services.db, caller.user.id, input.webhook_id),
    message: E.successMessage,
  }),
});
export const loader = methodNotAllowed;
