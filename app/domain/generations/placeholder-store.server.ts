/** Keeping a completed task's placeholder (placeholder.server.ts): best effort, a failure only costs the blur. */
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { generations } from "#db/schema";
import { log } from "~/lib/log.server";
import { placeholderOf } from "./placeholder.server";

export async function storePlaceholder(db: Db, genId: string, bytes: Uint8Array, contentType: string): Promise<void> {
  try {
    const placeholder = placeholderOf(bytes, contentType);
    if (!placeholder) return;
    await db.run(db.update(generations).set({ placeholder }).where(eq(generations.id, genId)));
  } catch (error) {
    log.warn("keeping a result's placeholder failed", { gen_id: genId, error });
  }
}
