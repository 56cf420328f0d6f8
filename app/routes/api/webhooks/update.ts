import { updateWebhook } from "~/domain/webhooks/update-webhook.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/webhooks/update");

export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services }) => ({
    data: await updateWebhook(
      { db: services.db },
      {
        userId: caller.user.id,
        webhookId: input.webhook_id,
        events: input.events,
        description: input.description,
      },
    ),
    message: E.successMessage,
  }),
});
export const loader = methodNotAllowed;
