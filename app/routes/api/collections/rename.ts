import { collectionParamsError, renameCollection } from "~/domain/collections/collections.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/collections/rename");

// docs/api.md "Collections".
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: collectionParamsError,
  handler: async ({ services, input, caller }) => ({
    message: E.successMessage,
    data: await renameCollection(services.db, services.clock, caller.user.id, input.collection_id, input.name),
  }),
});
export const loader = methodNotAllowed;
