import { IDEMPOTENCY_HEADER, parseIdempotencyKey } from "~/domain/generations/idempotency";
import { getGenerationRuntime } from "~/domain/generations/runtime.server";
import { startGeneration } from "~/domain/generations/start-generation.server";
import { addResponseHeaders, api, methodNotAllowed } from "~/lib/api.server";
import { endpoint, GENERATE_MESSAGE } from "~/lib/endpoints";

const E = endpoint("/api/generator/generate");

// Spec 4.1: one flow with the studio's Generate (startGeneration); an Idempotency-Key replays (docs/design.md §10).
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services, request }) => {
    const idempotencyKey = parseIdempotencyKey(request.headers.get(IDEMPOTENCY_HEADER));
    const { row, replayed } = await startGeneration(
      { db: services.db, clock: services.clock, config: services.config, providers: getGenerationRuntime().providers },
      { userId: caller.user.id, input, idempotencyKey },
    );
    if (replayed) addResponseHeaders(request, { "Idempotent-Replayed": "true" });
    return { data: { gen_id: row.id, status: "pending", message: GENERATE_MESSAGE }, message: GENERATE_MESSAGE };
  },
});
export const loader = methodNotAllowed;
