import { cancelGeneration } from "~/domain/generations/cancel.server";
import { toQueryView } from "~/domain/generations/views.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";
import { getGenerationRuntime } from "~/http/generation-runtime.server";

const E = endpoint("/api/generator/cancel");

// docs/design.md §10: pending/processing → failed (`canceled`), never charged; upstream canceled where the provider can.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  urlParams: ["gen_id"],
  handler: async ({ caller, input, services }) => {
    const row = await cancelGeneration(
      { db: services.db, clock: services.clock, providers: getGenerationRuntime().providers },
      caller.user.id,
      input.gen_id,
    );
    return { data: toQueryView(row), message: "generation canceled" };
  },
});
export const loader = methodNotAllowed;
