import { toUserInfo } from "~/domain/users/users.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/get-user-info");

// Spec 4.7: the signed-in user's profile (fields of spec 2.1).
export const action = api({
  route: E.path,
  auth: E.auth,
  handler: ({ caller }) => ({ data: toUserInfo(caller.user) }),
});
export const loader = methodNotAllowed;
