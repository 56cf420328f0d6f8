import { adminInvalid } from "~/domain/admin/admin.server";
import { setSuspended } from "~/domain/users/suspend.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";
import { getGenerationRuntime } from "~/http/generation-runtime.server";

const E = endpoint("/api/admin/suspend-user");

// docs/operating.md "Suspending an account": {email | user_uuid, suspended, reason?}.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: adminInvalid,
  handler: async ({ services, input, caller }) => {
    const result = await setSuspended(
      { db: services.db, clock: services.clock, providers: getGenerationRuntime().providers },
      input,
      caller.user.id,
    );
    return { message: result.suspended ? "user suspended" : "user restored", data: result };
  },
});
export const loader = methodNotAllowed;
