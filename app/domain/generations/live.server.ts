/** What every signed-in page needs to stay live: the user's unfinished tasks and the latest finished ones. */
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "#db/client";
import { generations, userGenerationStats } from "#db/schema";
import { wasCanceled } from "./status";

/** How many unfinished tasks the user has: the counter the triggers keep (user_generation_stats.unfinished). */
async function unfinishedCount(db: Db, userId: string): Promise<number> {
  const row = await db.one(
    db
      .select({ n: userGenerationStats.unfinished })
      .from(userGenerationStats)
      .where(eq(userGenerationStats.userId, userId)),
  );
  return Number(row?.n ?? 0);
}

/** Whether the user has unfinished tasks (the studio keeps polling while so). */
export async function hasUnfinished(db: Db, userId: string): Promise<boolean> {
  return (await unfinishedCount(db, userId)) > 0;
}

/**
 * What the header needs to stay live on every page: the user's unfinished
 * tasks, and the latest finished ones (so a page can tell which of the tasks it
 * saw running has just finished, and how).
 */
export async function liveSummary(db: Db, userId: string) {
  const pick = {
    id: generations.id,
    status: generations.status,
    prompt: generations.prompt,
    aiType: generations.aiType,
  };
  // The user's tasks newest first (the (user_id, created_at, id) index), read only until the unfinished ones are all found.
  const unfinished = Math.min(await unfinishedCount(db, userId), 50);
  const active =
    unfinished === 0
      ? []
      : await db.many(
          db
            .select(pick)
            .from(generations)
            .where(and(eq(generations.userId, userId), inArray(generations.status, ["pending", "processing"])))
            .orderBy(desc(generations.createdAt), desc(generations.id))
            .limit(unfinished),
        );
  const finished = await db.many(
    db
      .select({ ...pick, errorMessage: generations.errorMessage })
      .from(generations)
      .where(and(eq(generations.userId, userId), inArray(generations.status, ["completed", "failed"])))
      .orderBy(desc(generations.completedAt))
      .limit(10),
  );
  // A cancel is not a failure to the person who asked for it: the page says "Canceled", not "could not be made".
  return {
    active,
    finished: finished.map(({ errorMessage, ...t }) => ({
      ...t,
      canceled: wasCanceled({ status: t.status, errorMessage }),
    })),
  };
}
