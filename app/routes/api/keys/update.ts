import { updateApiKey } from "~/domain/api-keys/keys.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { keyBodyProblem } from "~/http/endpoints/platform.server";
import { endpoint } from "~/http/endpoints.server";
import { AppError } from "~/lib/errors";

const E = endpoint("/api/keys/update");

// docs/decisions/115-scoped-keys-and-caps.md: a key's scopes and cap change without rotating it; session only.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: (error) => new AppError("INVALID_PARAMS", { reason: keyBodyProblem(error) }),
  handler: async ({ caller, input, services }) => ({
    data: await updateApiKey(
      services.db,
      { userId: caller.user.id, keyId: input.key_id, scopes: input.scopes, creditLimit: input.credit_limit },
      services.clock,
    ),
  }),
});
export const loader = methodNotAllowed;
