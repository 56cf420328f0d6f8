/**
 * A finished picture of the user's becomes a file of theirs, so a model can start from it (the studio's Edit and
 * Animate, docs/studio.md "Pictures to start from"). The bytes are read from the result storage itself (local disk,
 * or the bucket with its credentials), never fetched over the network by URL, and stored through the same checks as
 * an upload (storeFile: type by bytes, size, quota).
 */
import { type FileDeps, type FileRow, storeFile } from "~/domain/files/files.server";
import { AppError } from "~/lib/errors";
import type { ResultStorage } from "~/storage/types";
import { getOwnGeneration, parseResultUrls } from "./views.server";

export async function resultAsInput(
  deps: FileDeps & { storage: Pick<ResultStorage, "read"> },
  userId: string,
  genId: string,
): Promise<{ file: FileRow; prompt: string }> {
  const row = await getOwnGeneration(deps.db, userId, genId);
  const url = parseResultUrls(row)[0];
  if (row.aiType !== "image" || row.status !== "completed" || !url) {
    throw new AppError("INVALID_PARAMS", { reason: "only a finished image can be the picture a model starts from" });
  }
  // A missing file (removed by retention, or a storage that cannot read its own URLs) is "no longer stored".
  const bytes = (await deps.storage.read?.(url).catch(() => null)) ?? null;
  if (!bytes) throw new AppError("INVALID_PARAMS", { reason: "this result's file is no longer stored" });
  const file = await storeFile(deps, { userId, bytes, source: "upload" });
  return { file, prompt: row.prompt };
}
