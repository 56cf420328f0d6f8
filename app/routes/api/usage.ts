import { usageReport } from "~/domain/usage/usage.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/usage");

// docs/usage.md: credits charged and task counts by day, model or key.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services }) => ({
    data: await usageReport({ db: services.db, now: services.clock.now() }, caller.user.id, input),
  }),
});
export const loader = methodNotAllowed;
