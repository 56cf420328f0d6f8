import { MESSAGES } from "~/domain/account/messages";
import { adminGrantCredits, adminInvalid, GrantCreditsSchema } from "~/domain/admin/admin.server";
import { api, methodNotAllowed } from "~/lib/api.server";

// DESIGN §6: {email | user_uuid, credits, expires_in_days?} → the new balance.
export const action = api({
  auth: "admin",
  body: GrantCreditsSchema,
  onInvalid: adminInvalid,
  handler: ({ services, input }) => ({ message: MESSAGES.CREDITS_GRANTED, data: adminGrantCredits(services, input) }),
});
export const loader = methodNotAllowed;
