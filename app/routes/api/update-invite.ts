import { MESSAGES } from "~/domain/account/messages";
import { setAffiliate } from "~/domain/users/users.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/update-invite");

// Spec 4.11: is_affiliate must be a JSON boolean; anything else is `invalid params`.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, services, input }) => {
    const u = await setAffiliate(services.db, caller.user.id, input.is_affiliate, services.clock.now());
    return { message: MESSAGES.AFFILIATE_UPDATED, data: { uuid: u.id, email: u.email, is_affiliate: u.isAffiliate } };
  },
});
export const loader = methodNotAllowed;
