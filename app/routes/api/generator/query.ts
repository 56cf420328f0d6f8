import { queryGeneration } from "~/domain/generations/views.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/generator/query");

// Spec 4.2: one task's status, with the fields of its status.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  urlParams: ["gen_id"],
  handler: async ({ caller, input, services }) => ({
    data: await queryGeneration(services.db, caller.user.id, input.gen_id),
  }),
});
export const loader = methodNotAllowed;
