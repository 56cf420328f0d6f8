import { revokeApiKey } from "~/domain/api-keys/keys.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/keys/revoke");

// Spec 3.2: active → revoked, for good.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services }) => ({
    data: await revokeApiKey(services.db, { userId: caller.user.id, keyId: input.key_id }, services.clock),
  }),
});
export const loader = methodNotAllowed;
