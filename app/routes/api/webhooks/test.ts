import { outboxChanged } from "~/domain/generations/changes.server";
import { sendTestEvent } from "~/domain/webhooks/send-test-event.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/webhooks/test");

// docs/events.md "Testing an endpoint": a signed webhook.test event through the outbox.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services }) => {
    const data = await sendTestEvent(
      { db: services.db, clock: services.clock },
      { userId: caller.user.id, webhookId: input.webhook_id },
    );
    outboxChanged();
    return { data, message: E.successMessage };
  },
});
export const loader = methodNotAllowed;
