import { createApiKey } from "~/domain/api-keys/keys.server";
import { keyCreationPolicy } from "~/domain/rate-limits/policy.server";
import { api, methodNotAllowed } from "~/lib/api.server";
import { endpoint } from "~/lib/endpoints.server";
import { AppError } from "~/lib/errors";

const E = endpoint("/api/keys/create");

// docs/design.md §5: session only; the one response that shows the key itself.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: () => new AppError("INVALID_PARAMS", { reason: "name must be 1 to 100 characters" }),
  handler: async ({ caller, input, services }) => ({
    data: await createApiKey(services.db, { userId: caller.user.id, name: input.name }, services.clock, {
      creationLimit: keyCreationPolicy(services.config),
    }),
  }),
});
export const loader = methodNotAllowed;
