import { exportAccount } from "~/domain/account/export.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/account/export");

// docs/privacy.md "Export": the signed-in person's data as one JSON document (session only, never a key).
export const action = api({
  route: E.path,
  auth: E.auth,
  handler: async ({ services, caller }) => ({ data: await exportAccount(services, caller.user) }),
});
export const loader = methodNotAllowed;
