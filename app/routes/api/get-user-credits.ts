import { getCredits } from "~/domain/credits/ledger.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/get-user-credits");

// Spec 4.8: {left_credits, total_credits} (docs/design.md §3).
export const action = api({
  route: E.path,
  auth: E.auth,
  handler: async ({ caller, services }) => ({
    data: await services.db.exec(getCredits(services.db, caller.user.id, services.clock)),
  }),
});
export const loader = methodNotAllowed;
