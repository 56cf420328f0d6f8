import { listModels } from "~/domain/catalog/models.server";
import { api, methodNotAllowed } from "~/lib/api.server";
import { endpoint } from "~/lib/endpoints.server";
import { getGenerationRuntime } from "~/lib/generation-runtime.server";

const E = endpoint("/api/models");

// docs/catalog.md: the enabled models with price, mode, inputs and the JSON Schema of their options; no sign-in needed.
export const action = api({
  route: E.path,
  auth: E.auth,
  handler: async ({ services }) => ({
    data: { models: await listModels({ ...services, providers: getGenerationRuntime().providers }) },
  }),
});
export const loader = methodNotAllowed;
