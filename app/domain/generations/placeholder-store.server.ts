/** Keeping a completed task's placeholder (placeholder.server.ts): best effort, a failure only costs the blur. */
import { and, eq, notExists } from "drizzle-orm";
import type { Db } from "#db/client";
import { generations, takedowns } from "#db/schema";
import { log } from "~/lib/log.server";
import { placeholderPool } from "./placeholder-pool.server";

const onError = (message: string) => log.warn("computing a placeholder failed", { message });

/** Computed on the placeholder worker (placeholder-pool.server.ts), so the server's thread keeps serving meanwhile. */
export async function storePlaceholder(db: Db, genId: string, bytes: Uint8Array, contentType: string): Promise<void> {
  try {
    const result = await placeholderPool(onError).compute(bytes, contentType);
    if (!result?.placeholder) return;
    log.debug("placeholder computed", { gen_id: genId, thread_id: result.threadId, ms: Math.round(result.ms) });
    // Not for a task taken down meanwhile (docs/safety.md "Reports and takedowns"): its blur is a derivative too.
    await db.run(
      db
        .update(generations)
        .set({ placeholder: result.placeholder })
        .where(
          and(
            eq(generations.id, genId),
            notExists(db.select({ g: takedowns.genId }).from(takedowns).where(eq(takedowns.genId, genId))),
          ),
        ),
    );
  } catch (error) {
    log.warn("keeping a result's placeholder failed", { gen_id: genId, error });
  }
}
