import { collectionParamsError, deleteCollection } from "~/domain/collections/collections.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/collections/delete");

// docs/api.md "Collections".
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: collectionParamsError,
  handler: async ({ services, input, caller }) => ({
    message: E.successMessage,
    data: await deleteCollection(services.db, caller.user.id, input.collection_id),
  }),
});
export const loader = methodNotAllowed;
