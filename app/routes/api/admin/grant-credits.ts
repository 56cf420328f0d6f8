import { MESSAGES } from "~/domain/account/messages";
import { adminGrantCredits, adminInvalid } from "~/domain/admin/admin.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/admin/grant-credits");

// docs/design.md §6: {email | user_uuid, credits, expires_in_days?} → the new balance.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: adminInvalid,
  handler: async ({ services, input }) => ({
    message: MESSAGES.CREDITS_GRANTED,
    data: await adminGrantCredits(services, input),
  }),
});
export const loader = methodNotAllowed;
