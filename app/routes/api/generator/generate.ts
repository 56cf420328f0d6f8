import { IDEMPOTENCY_HEADER, parseIdempotencyKey } from "~/domain/generations/idempotency";
import { startGeneration } from "~/domain/generations/start-generation.server";
import { answerAfterWait, parsePreferWait, takeWaitSlot } from "~/domain/generations/wait.server";
import { addResponseHeaders, api, methodNotAllowed } from "~/http/api.server";
import { endpoint, GENERATE_MESSAGE } from "~/http/endpoints.server";
import { getGenerationRuntime } from "~/http/generation-runtime.server";

const E = endpoint("/api/generator/generate");

// Spec 4.1: one flow with the studio's Generate (startGeneration); an Idempotency-Key replays (docs/design.md §10).
// With `Prefer: wait=N` the answer waits up to N s for the task to finish (docs/events.md).
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services, request }) => {
    const idempotencyKey = parseIdempotencyKey(request.headers.get(IDEMPOTENCY_HEADER));
    const waitSeconds = parsePreferWait(request.headers.get("prefer"));
    // The slot is taken before anything is created: a caller over the bound gets today's answer, never a refusal.
    const release = waitSeconds ? takeWaitSlot(caller.user.id) : null;
    try {
      const { row, replayed } = await startGeneration(
        {
          db: services.db,
          clock: services.clock,
          config: services.config,
          providers: getGenerationRuntime().providers,
          files: getGenerationRuntime().files,
        },
        { userId: caller.user.id, input, idempotencyKey, apiKeyId: caller.apiKeyId },
      );
      if (replayed) addResponseHeaders(request, { "Idempotent-Replayed": "true" });
      if (!release || !waitSeconds) {
        return { data: { gen_id: row.id, status: "pending", message: GENERATE_MESSAGE }, message: GENERATE_MESSAGE };
      }
      addResponseHeaders(request, { "Preference-Applied": `wait=${waitSeconds}` });
      const data = await answerAfterWait(services.db, caller.user.id, row.id, {
        timeoutMs: waitSeconds * 1000,
        signal: request.signal,
      });
      return { data: { ...data, message: GENERATE_MESSAGE }, message: GENERATE_MESSAGE };
    } finally {
      release?.();
    }
  },
});
export const loader = methodNotAllowed;
