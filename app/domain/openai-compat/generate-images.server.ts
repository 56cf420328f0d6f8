/**
 * `POST /v1/images/generations` as Atelier tasks (docs/openai-compat.md): one task per image through
 * startGeneration (credits, the key's cap, history, webhooks as for any generate), then a wait for all of them as
 * `Prefer: wait` waits (wait.server.ts). The request's tasks are created in one transaction checked against their
 * whole cost, so a request makes all its images or none — and none of them starts before all exist.
 */

import type { ProviderRegistry } from "~/domain/generations/registry.server";
import { type StartGenerationDeps, startGenerations } from "~/domain/generations/start-generation.server";
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
  timeoutMs: number;
  signal?: AbortSignal;
}

export type TaskView = Awaited<ReturnType<typeof queryGeneration>>;

export async function generateImages(deps: GenerateImagesDeps, args: GenerateImagesArgs): Promise<TaskView[]> {
  return awaitImageTasks(deps, args, await createImageTasks(deps, args));
}

/** The request's tasks, all or none (one transaction for the whole cost). Returns their ids. */
export async function createImageTasks(
  deps: GenerateImagesDeps,
  args: Pick<GenerateImagesArgs, "userId" | "apiKeyId" | "request">,
): Promise<string[]> {
  const rows = await startGenerations(deps, {
    userId: args.userId,
    input: args.request.input,
    apiKeyId: args.apiKeyId,
    count: args.request.n,
  });
  return rows.map((row) => row.id);
}

/** Waits for the tasks together (at most `timeoutMs` in all), then their query views. */
export async function awaitImageTasks(
  deps: Pick<GenerateImagesDeps, "db">,
  args: Pick<GenerateImagesArgs, "userId" | "timeoutMs" | "signal">,
  ids: string[],
): Promise<TaskView[]> {
  const endAt = Date.now() + args.timeoutMs;
  for (const id of ids) {
    await waitForFinish(deps.db, id, { timeoutMs: Math.max(0, endAt - Date.now()), signal: args.signal });
  }
  return Promise.all(ids.map((id) => queryGeneration(deps.db, args.userId, id)));
}
