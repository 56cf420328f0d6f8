/**
 * Starting a generation (spec §4.1): the one flow behind the API's generate endpoint and the studio's
 * Generate button. Validate, check and reserve credits, create a pending task; the job runner does the
 * rest. With an Idempotency-Key (docs/design.md §10) a repeat answers the first task and another body
 * with the same key is a 409 — the repeat is answered before validation, so "another body" is a 409
 * whatever that body holds.
 */
import type { Db } from "#db/client";
import { discardFetched, resolveInputs } from "~/domain/files/inputs.server";
import type { ProviderRegistry } from "~/domain/generations/registry.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import type { FileStore } from "~/storage/files.server";
import { createGenerationBatch, createOrReplay } from "./create.server";
import { requestHash } from "./idempotency";
import { findIdempotent } from "./idempotency.server";
import { validateGenerateInput } from "./validate.server";
import type { GenerationRow } from "./views.server";

export interface StartGenerationDeps {
  db: Db;
  clock: Clock;
  config: Config;
  providers: Pick<ProviderRegistry, "mode">;
  /** Where image inputs are kept (a file id is checked, a URL is fetched and stored: docs/catalog.md "Image inputs"). */
  files: FileStore;
}

export interface StartGenerationArgs {
  userId: string;
  /** The request as sent: `ai_type`, `provider`, `model`, `prompt`, `options`. */
  input: Record<string, unknown>;
  idempotencyKey?: string;
  /** The API key making the request (its spending cap); null or absent for a session. */
  apiKeyId?: string | null;
}

export async function startGeneration(
  deps: StartGenerationDeps,
  { userId, input, idempotencyKey, apiKeyId }: StartGenerationArgs,
): Promise<{ row: GenerationRow; replayed: boolean }> {
  const { db, clock, config } = deps;
  const idempotency = idempotencyKey ? { key: idempotencyKey, requestHash: requestHash(input) } : undefined;
  const prior =
    idempotency && (await db.exec(findIdempotent(db, userId, idempotency.key, idempotency.requestHash, clock.now())));
  if (prior) return { row: prior, replayed: true };
  const { parsed, mode, inputs, discard } = await prepareCreate(deps, userId, input);
  try {
    const result = await createOrReplay(
      db,
      { userId, input: parsed, mode, config, idempotency, apiKeyId, inputs },
      clock,
    );
    if (result.replayed) await discard();
    return result;
  } catch (error) {
    await discard();
    throw error;
  }
}

/**
 * `count` tasks of one request (the images of one `/v1/images/generations` call), created together or not at all
 * (createGenerationBatch): validated once, its input URLs fetched once, no Idempotency-Key.
 */
export async function startGenerations(
  deps: StartGenerationDeps,
  { userId, input, apiKeyId, count }: Omit<StartGenerationArgs, "idempotencyKey"> & { count: number },
): Promise<GenerationRow[]> {
  const { db, clock, config } = deps;
  const { parsed, mode, inputs, discard } = await prepareCreate(deps, userId, input);
  try {
    return await createGenerationBatch(db, { userId, input: parsed, mode, config, apiKeyId, inputs, count }, clock);
  } catch (error) {
    await discard();
    throw error;
  }
}

/**
 * What every create does before its transaction: validate the request, and the network work (fetching input URLs,
 * storing them as the user's files). `discard` removes what this fetched, for a create that is refused or replayed.
 */
async function prepareCreate(deps: StartGenerationDeps, userId: string, input: Record<string, unknown>) {
  const { db, clock, config, providers } = deps;
  const parsed = validateGenerateInput(input);
  const { inputs, fetched } = await resolveInputs(
    { db, clock, config, store: deps.files },
    userId,
    parsed.offering,
    parsed.options,
  );
  const discard = () => discardFetched({ db, store: deps.files }, fetched);
  return { parsed, mode: providers.mode(parsed.offering.provider), inputs, discard };
}
