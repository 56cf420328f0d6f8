import { adminInvalid, adminListUsers, ListUsersSchema } from "~/domain/admin/admin.server";
import { api, methodNotAllowed } from "~/lib/api.server";

// DESIGN §6: {page, page_size} → users with balance and tier, newest first.
export const action = api({
  auth: "admin",
  body: ListUsersSchema,
  onInvalid: adminInvalid,
  handler: ({ services, input }) => ({ data: adminListUsers(services, input) }),
});
export const loader = methodNotAllowed;
