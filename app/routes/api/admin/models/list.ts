import { adminInvalid } from "~/domain/admin/admin.server";
import { adminListModels } from "~/domain/catalog/admin.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/admin/models/list");

// docs/catalog.md: every model, enabled or not.
export const action = api({
  route: E.path,
  auth: E.auth,
  onInvalid: adminInvalid,
  handler: async ({ services }) => ({ data: { models: await adminListModels(services.db) } }),
});
export const loader = methodNotAllowed;
