import { createApiKey } from "~/domain/api-keys/keys.server";
import { keyCreationPolicy } from "~/domain/rate-limits/policy.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { keyBodyProblem } from "~/http/endpoints/platform.server";
import { endpoint } from "~/http/endpoints.server";
import { AppError } from "~/lib/errors";

const E = endpoint("/api/keys/create");

// docs/design.md §5: session only; the one response that shows the key itself. Optional scopes and a spending cap
// (docs/decisions/115-scoped-keys-and-caps.md).
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: (error) => new AppError("INVALID_PARAMS", { reason: keyBodyProblem(error) }),
  handler: async ({ caller, input, services }) => ({
    data: await createApiKey(
      services.db,
      { userId: caller.user.id, name: input.name, scopes: input.scopes, creditLimit: input.credit_limit },
      services.clock,
      { creationLimit: keyCreationPolicy(services.config) },
    ),
  }),
});
export const loader = methodNotAllowed;
