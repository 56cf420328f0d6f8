import { adminInvalid } from "~/domain/admin/admin.server";
import { createCodes } from "~/domain/billing/codes.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/admin/codes/create");

// docs/payments.md "Redemption codes": {credits, max_uses, per_user?, expires_at?, validity_days?, count?} → the codes, once.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: adminInvalid,
  handler: async ({ services, input, caller }) => {
    const made = await createCodes(services.db, input, caller.user.id, services.clock);
    return { message: "codes created", data: { code: made.codes[0]!, ...made } };
  },
});
export const loader = methodNotAllowed;
