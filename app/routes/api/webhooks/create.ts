import { createWebhook } from "~/domain/webhooks/webhooks.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/webhooks/create");

// docs/design.md §10: a Standard Webhooks endpoint; the secret is shown now (and on rotation) only.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services }) => ({
    data: await createWebhook(
      services.db,
      { userId: caller.user.id, ...input, apiKeyId: caller.apiKeyId },
      { allowPrivate: services.config.WEBHOOK_ALLOW_PRIVATE },
      services.clock,
    ),
    message: E.successMessage,
  }),
});
export const loader = methodNotAllowed;
