import { z } from "zod";
import { createGeneration, validateGenerateInput } from "~/domain/generations/generations.server";
import { getGenerationRuntime } from "~/domain/generations/runtime.server";
import { api, methodNotAllowed } from "~/lib/api.server";

export const GENERATE_MESSAGE = "generation task created; poll /api/generator/query with gen_id";

// Spec 4.1: validate, check and reserve credits, create a pending task; the job runner does the rest.
export const action = api({
  auth: "user",
  body: z.record(z.string(), z.unknown()),
  handler: ({ caller, input, services }) => {
    const parsed = validateGenerateInput(input);
    const mode = getGenerationRuntime().providers.mode(parsed.offering.provider);
    const row = createGeneration(services.db, { userId: caller.user.id, input: parsed, mode, config: services.config }, services.clock);
    return { data: { gen_id: row.id, status: "pending", message: GENERATE_MESSAGE }, message: GENERATE_MESSAGE };
  },
});
export const loader = methodNotAllowed;
