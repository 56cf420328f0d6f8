import { adminInvalid, adminListUsers } from "~/domain/admin/admin.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/admin/list-users");

// docs/design.md §6: {page, page_size} → users with balance and tier, newest first.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: adminInvalid,
  handler: async ({ services, input }) => ({ data: await adminListUsers(services, input) }),
});
export const loader = methodNotAllowed;
