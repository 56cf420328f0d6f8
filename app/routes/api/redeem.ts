import { adminInvalid } from "~/domain/admin/admin.server";
import { redeemCode } from "~/domain/billing/codes.server";
import { clientIpOf } from "~/domain/demo/access.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";
import { currentClientIp } from "~/lib/log.server";

const E = endpoint("/api/redeem");

// docs/payments.md "Redemption codes": {code} → the credits granted and the new balance.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: adminInvalid,
  handler: async ({ services, input, caller, request }) => ({
    message: "code redeemed",
    data: await redeemCode(
      services.db,
      { userId: caller.user.id, code: input.code, ip: clientIpOf(services.config, request, currentClientIp()) },
      services.clock,
    ),
  }),
});
export const loader = methodNotAllowed;
