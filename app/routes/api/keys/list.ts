import { listApiKeys } from "~/domain/api-keys/keys.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/keys/list");

// docs/design.md §5 (docs/decisions/088-revoked-keys-listed-30-days.md): active keys and recently revoked ones, newest first.
export const action = api({
  route: E.path,
  auth: E.auth,
  handler: async ({ caller, services }) => ({
    data: { keys: await listApiKeys(services.db, caller.user.id, services.clock) },
  }),
});
export const loader = methodNotAllowed;
