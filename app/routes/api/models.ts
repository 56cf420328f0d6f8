import { listModels } from "~/domain/catalog/models.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";
import { getGenerationRuntime } from "~/http/generation-runtime.server";

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
