import { listApiKeys } from "~/domain/api-keys/keys.server";
import { api, methodNotAllowed } from "~/lib/api.server";

// DESIGN §5: every key of the signed-in user, active and revoked, newest first.
export const action = api({
  auth: "session",
  handler: ({ caller, services }) => ({ data: { keys: listApiKeys(services.db, caller.user.id) } }),
});
export const loader = methodNotAllowed;
