/**
 * The renditions of each result picture, as a derivative (docs/media.md): WebP copies at the gallery's widths, made
 * on the rendition worker (rendition-pool.server.ts), stored beside the original (`<stem>.w<width>.webp`, same
 * storage and prefix, so removing the task's prefix removes them), then recorded in `generations.renditions`.
 * Pages use them once recorded, and the original before.
 */
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { generations } from "#db/schema";
import { renditionPool } from "~/domain/media/rendition-pool.server";
import { parseRenditions, type RenditionInfo, renditionPath } from "~/domain/media/renditions";
import { isTakenDown } from "~/domain/reports/takedowns.server";
import { log } from "~/lib/log.server";
import type { ResultStorage } from "~/storage/types";
import type { DerivativeStep } from "./pipeline.server";

const RENDERED_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);
/**
 * A picture this small is its own rendition: a gallery tile's WebP weighs about as much (15–45 KB), and making them
 * would only cost CPU (the simulator's pictures are about 6 KB: `bench:jobs` keeps its throughput).
 */
export const RENDITION_MIN_BYTES = 32 * 1024;

const onError = (message: string) => log.warn("making renditions failed", { message });

export function renditionsStep(deps: { db: Db; storage: ResultStorage }): DerivativeStep {
  return {
    name: "renditions",
    // The worker has its own bound per picture (RENDITION_TIMEOUT_MS); this one covers the queue and the stores.
    timeoutMs: 120_000,
    async run(file, task) {
      if (!RENDERED_TYPES.has(file.contentType) || file.bytes.byteLength <= RENDITION_MIN_BYTES) return;
      const made = await renditionPool(onError).make(file.bytes);
      if (!made) return;
      if (await isTakenDown(deps.db, task.id)) return;
      for (const r of made.files) await deps.storage.put(renditionPath(file.key, r.width), r.bytes, "image/webp");
      // Taken down while these were stored (docs/safety.md "Reports and takedowns"): they go the way the originals went.
      if (await isTakenDown(deps.db, task.id)) {
        await deps.storage.deletePrefix?.(`${task.id}/`);
        return;
      }
      log.debug("renditions made", {
        gen_id: task.id,
        index: file.index,
        thread_id: made.threadId,
        ms: Math.round(made.ms),
      });
      await recordRenditions(deps.db, task.id, file.index, {
        width: made.width,
        height: made.height,
        widths: made.files.map((f) => f.width),
      });
    },
  };
}

/** Sets one file's entry; a task's derivatives run one file after another, so nothing else writes it meanwhile. */
export async function recordRenditions(db: Db, genId: string, index: number, info: RenditionInfo): Promise<void> {
  const row = await db.one(
    db.select({ renditions: generations.renditions }).from(generations).where(eq(generations.id, genId)),
  );
  if (!row) return;
  const entries = parseRenditions(row.renditions);
  while (entries.length < index) entries.push(null);
  entries[index] = info;
  await db.run(
    db
      .update(generations)
      .set({ renditions: JSON.stringify(entries) })
      .where(eq(generations.id, genId)),
  );
}
