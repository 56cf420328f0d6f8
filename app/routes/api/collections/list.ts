import { listCollections } from "~/domain/collections/collections.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/collections/list");

// docs/api.md "Collections".
export const action = api({
  route: E.path,
  auth: E.auth,
  handler: async ({ services, caller }) => ({
    data: { collections: await listCollections(services.db, caller.user.id) },
  }),
});
export const loader = methodNotAllowed;
