import { rotateSecret } from "~/domain/webhooks/webhooks.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/webhooks/rotate-secret");

export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services }) => ({
    data: await rotateSecret(services.db, caller.user.id, input.webhook_id, services.clock, caller.apiKeyId),
    message: E.successMessage,
  }),
});
export const loader = methodNotAllowed;
