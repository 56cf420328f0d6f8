/**
 * `POST /v1/images/edits` as Atelier tasks (docs/openai-compat.md "Edits"): the picture (and the mask) stored as the
 * user's files exactly as `POST /api/files` stores an upload (the upload rate limit, the bytes judged, the storage
 * quota: files.server.ts), then the tasks created (or joined) and awaited like `/v1/images/generations` with `options.image`
 * (and `options.mask`) set to the stored file ids. A request refused before its tasks exist removes the files it
 * stored; a picture the user already had (the same bytes: storeFile answers that file) is left alone. Once a task
 * exists it holds them (pinned, docs/api.md "Files").
 */
import { deleteFile, type FileDeps, storeFile } from "~/domain/files/files.server";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import { fileUploadBucket, fileUploadPolicy } from "~/domain/rate-limits/policy.server";
import type { Config } from "~/lib/config.server";
import { log } from "~/lib/log.server";
import {
  createOrJoinTasks,
  type GenerateImagesArgs,
  type GenerateImagesDeps,
  type JoinTarget,
  type MadeTasks,
} from "./generate-images.server";

export interface EditImagesArgs extends GenerateImagesArgs {
  image: Uint8Array;
  mask: Uint8Array | null;
}

/** One unit of the user's upload limit (the bucket `POST /api/files` takes from), refused with RATE_LIMITED. */
export async function takeUploadUnit(
  deps: Pick<GenerateImagesDeps, "db" | "clock"> & { config: Pick<Config, "FILE_UPLOAD_LIMIT"> },
  userId: string,
): Promise<void> {
  await takeOrRefuse(deps.db, fileUploadBucket(userId), fileUploadPolicy(deps.config), deps.clock.now());
}

/**
 * The pictures stored and the tasks created, or the identical request's joined: the same bytes are the same stored
 * files, so a retry's request matches the first one's and stores nothing new.
 */
export async function createEditTasks(
  deps: GenerateImagesDeps,
  args: EditImagesArgs & { join: JoinTarget },
): Promise<MadeTasks> {
  const fileDeps: FileDeps = { db: deps.db, clock: deps.clock, config: deps.config, store: deps.files };
  const stored: string[] = [];
  try {
    const image = await storeFile(fileDeps, { userId: args.userId, bytes: args.image, source: "upload" });
    if (!image.reused) stored.push(image.id);
    const options: Record<string, unknown> = { ...args.request.input.options, image: image.id };
    if (args.mask) {
      await takeUploadUnit(deps, args.userId);
      const mask = await storeFile(fileDeps, { userId: args.userId, bytes: args.mask, source: "upload" });
      if (!mask.reused && mask.id !== image.id) stored.push(mask.id);
      options.mask = mask.id;
    }
    const input = { ...args.request.input, options };
    const request = { ...args.request, input };
    return await createOrJoinTasks(deps, { ...args, request, join: args.join });
  } catch (error) {
    for (const id of stored)
      await deleteFile(fileDeps, args.userId, id).catch((e) =>
        log.warn("removing a refused edit's file failed", { error: e }),
      );
    throw error;
  }
}
