import { adminInvalid } from "~/domain/admin/admin.server";
import { adminUpsertModel } from "~/domain/catalog/admin.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/admin/models/upsert");

// docs/catalog.md: add a model or change one (price, on/off sale, options, plan-only, upstream cost).
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: adminInvalid,
  handler: async ({ services, input }) => ({
    message: "model saved",
    data: { model: await adminUpsertModel(services.db, input, services.clock) },
  }),
});
export const loader = methodNotAllowed;
