import { createGeneration, validateGenerateInput } from "~/domain/generations/generations.server";
import { getGenerationRuntime } from "~/domain/generations/runtime.server";
import { api, methodNotAllowed } from "~/lib/api.server";
import { endpoint, GENERATE_MESSAGE } from "~/lib/endpoints";

const E = endpoint("/api/generator/generate");

// Spec 4.1: validate, check and reserve credits, create a pending task; the job runner does the rest.
export const action = api({
  auth: E.auth,
  body: E.body,
  handler: ({ caller, input, services }) => {
    const parsed = validateGenerateInput(input);
    const mode = getGenerationRuntime().providers.mode(parsed.offering.provider);
    const row = createGeneration(services.db, { userId: caller.user.id, input: parsed, mode, config: services.config }, services.clock);
    return { data: { gen_id: row.id, status: "pending", message: GENERATE_MESSAGE }, message: GENERATE_MESSAGE };
  },
});
export const loader = methodNotAllowed;
