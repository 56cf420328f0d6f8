/**
 * `POST /v1/images/generations` as Atelier tasks (docs/openai-compat.md): one task per image, checked and created as
 * any generate (credits, the key's cap, history, webhooks), then a wait for all of them as
 * `Prefer: wait` waits (wait.server.ts). The request's tasks are created in one transaction checked against their
 * whole cost, so a request makes all its images or none — and none of them starts before all exist.
 */

import type { ProviderRegistry } from "~/domain/generations/registry.server";
import { createOrJoinBatch, type JoinSpec, joinSpec } from "~/domain/generations/request-join.server";
import { prepareCreate, type StartGenerationDeps } from "~/domain/generations/start-generation.server";
import { queryGeneration } from "~/domain/generations/views.server";
import { waitForFinish } from "~/domain/generations/wait.server";
import type { ImagesRequest } from "./images";

export interface GenerateImagesDeps extends StartGenerationDeps {
  providers: ProviderRegistry;
}

export interface GenerateImagesArgs {
  userId: string;
  apiKeyId: string | null;
  request: ImagesRequest;
}

export type TaskView = Awaited<ReturnType<typeof queryGeneration>>;

/** Where a request joins: its endpoint and, when it sent one, its Idempotency-Key (request-join.server.ts). */
export interface JoinTarget {
  endpoint: string;
  idempotencyKey?: string;
}

export interface MadeTasks {
  ids: string[];
  /** The tasks are an earlier identical request's. */
  joined: boolean;
  spec: JoinSpec;
}

/**
 * The request's tasks, all or none (one transaction for the whole cost), or the tasks of the identical request this
 * one joins (request-join.server.ts): a retry of a request waits for and answers the first one's tasks, nothing
 * created or charged again.
 */
export async function createOrJoinTasks(
  deps: GenerateImagesDeps,
  args: GenerateImagesArgs & { join: JoinTarget },
): Promise<MadeTasks> {
  const { request } = args;
  const spec = joinSpec(
    args.join.endpoint,
    args.apiKeyId,
    { input: request.input, n: request.n },
    args.join.idempotencyKey,
  );
  const { parsed, mode, inputs, discard } = await prepareCreate(deps, args.userId, request.input);
  try {
    const made = await createOrJoinBatch(
      deps.db,
      {
        userId: args.userId,
        input: parsed,
        mode,
        config: deps.config,
        apiKeyId: args.apiKeyId,
        inputs,
        count: request.n,
      },
      spec,
      deps.clock,
    );
    if (made.joined) await discard();
    return { ...made, spec };
  } catch (error) {
    await discard();
    throw error;
  }
}

/** Waits for the tasks together (at most `timeoutMs` in all), then their query views. */
export async function awaitImageTasks(
  deps: Pick<GenerateImagesDeps, "db">,
  args: { userId: string; timeoutMs: number; signal?: AbortSignal },
  ids: string[],
): Promise<TaskView[]> {
  const endAt = Date.now() + args.timeoutMs;
  for (const id of ids) {
    await waitForFinish(deps.db, id, { timeoutMs: Math.max(0, endAt - Date.now()), signal: args.signal });
  }
  return Promise.all(ids.map((id) => queryGeneration(deps.db, args.userId, id)));
}
