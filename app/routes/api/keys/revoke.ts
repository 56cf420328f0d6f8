import { revokeApiKey } from "~/domain/api-keys/keys.server";
import { api, methodNotAllowed } from "~/lib/api.server";
import { ApiKeyRevokeSchema } from "~/lib/forms";

// Spec 3.2: active → revoked, for good.
export const action = api({
  auth: "session",
  body: ApiKeyRevokeSchema,
  handler: ({ caller, input, services }) => ({
    data: revokeApiKey(services.db, { userId: caller.user.id, keyId: input.key_id }, services.clock),
  }),
});
export const loader = methodNotAllowed;
