import { createOrReplay } from "~/domain/generations/create.server";
import { IDEMPOTENCY_HEADER, parseIdempotencyKey, requestHash } from "~/domain/generations/idempotency";
import { findIdempotent } from "~/domain/generations/idempotency.server";
import { getGenerationRuntime } from "~/domain/generations/runtime.server";
import { validateGenerateInput } from "~/domain/generations/validate.server";
import { addResponseHeaders, api, methodNotAllowed } from "~/lib/api.server";
import { endpoint, GENERATE_MESSAGE } from "~/lib/endpoints";

const E = endpoint("/api/generator/generate");

// Spec 4.1: validate, check and reserve credits, create a pending task; the job runner does the rest.
// With an Idempotency-Key (docs/design.md §10) a repeat answers the first task; another body with the key is a 409.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ caller, input, services, request }) => {
    const key = parseIdempotencyKey(request.headers.get(IDEMPOTENCY_HEADER));
    const idempotency = key ? { key, requestHash: requestHash(input) } : undefined;
    // A repeat is answered before validation, so "another body" is a 409 whatever that body holds.
    const prior =
      idempotency &&
      (await services.db.exec(
        findIdempotent(services.db, caller.user.id, idempotency.key, idempotency.requestHash, services.clock.now()),
      ));
    const { row, replayed } = prior
      ? { row: prior, replayed: true }
      : await (() => {
          const parsed = validateGenerateInput(input);
          const mode = getGenerationRuntime().providers.mode(parsed.offering.provider);
          return createOrReplay(
            services.db,
            { userId: caller.user.id, input: parsed, mode, config: services.config, idempotency },
            services.clock,
          );
        })();
    if (replayed) addResponseHeaders(request, { "Idempotent-Replayed": "true" });
    return { data: { gen_id: row.id, status: "pending", message: GENERATE_MESSAGE }, message: GENERATE_MESSAGE };
  },
});
export const loader = methodNotAllowed;
