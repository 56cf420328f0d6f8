import { historyAfterJson, historyPageJson, normalizePaging } from "~/domain/generations/history.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/generator/history");

// Spec 4.3: the caller's tasks, newest first, paged.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  // With `cursor` (additive, docs/api.md §4.3): keyset pages instead of numbered ones.
  handler: async ({ caller, input, services }) => {
    const paging = normalizePaging(input);
    return {
      json:
        input.cursor === undefined
          ? await historyPageJson(services.db, caller.user.id, paging)
          : await historyAfterJson(services.db, caller.user.id, { cursor: input.cursor, pageSize: paging.pageSize }),
    };
  },
});
export const loader = methodNotAllowed;
