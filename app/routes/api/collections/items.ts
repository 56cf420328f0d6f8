import { collectionPage, collectionParamsError } from "~/domain/collections/collections.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/collections/items");

// docs/api.md "Collections".
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: collectionParamsError,
  handler: async ({ services, input, caller }) => ({
    data: await collectionPage(services.db, caller.user.id, {
      collectionId: input.collection_id,
      page: input.page,
      pageSize: input.page_size,
    }),
  }),
});
export const loader = methodNotAllowed;
