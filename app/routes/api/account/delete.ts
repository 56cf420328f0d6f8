import { checkDeletion, deleteAccount } from "~/domain/account/delete.server";
import { adminInvalid } from "~/domain/admin/admin.server";
import { deletionDeps, sessionCreatedAt } from "~/http/account-deletion.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/account/delete");

// docs/privacy.md "Delete": {confirm: <the account's e-mail>, password?} (session only, never a key).
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: adminInvalid,
  handler: async ({ request, services, caller, input }) => {
    await checkDeletion(services.db, caller.user, input, {
      now: services.clock.now(),
      sessionCreatedAt: () => sessionCreatedAt(services, request),
    });
    return { message: "account deleted", data: await deleteAccount(deletionDeps(services), caller.user) };
  },
});
export const loader = methodNotAllowed;
