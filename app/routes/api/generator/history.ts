import { historyPageJson, normalizePaging } from "~/domain/generations/history.server";
import { api, methodNotAllowed } from "~/lib/api.server";
import { endpoint } from "~/lib/endpoints.server";

const E = endpoint("/api/generator/history");

// Spec 4.3: the caller's tasks, newest first, paged.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services }) => ({
    json: await historyPageJson(services.db, caller.user.id, normalizePaging(input)),
  }),
});
export const loader = methodNotAllowed;
