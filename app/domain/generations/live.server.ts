/** What every signed-in page needs to stay live: the user's unfinished tasks and the latest finished ones. */
import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { prepared } from "#db/prepared";
import { generations, userGenerationStats } from "#db/schema";
import { wasCanceled } from "./status";

/** How many unfinished tasks the user has: the counter the triggers keep (user_generation_stats.unfinished). */
async function unfinishedCount(db: Db, userId: string): Promise<number> {
  // Prepared once (every signed-in page asks): building a drizzle query costs more than running it (docs/data-layer.md).
  const row = await db.one(
    prepared(db, "live.unfinishedCount", (d) =>
      d
        .select({ n: userGenerationStats.unfinished })
        .from(userGenerationStats)
        .where(eq(userGenerationStats.userId, sql.placeholder("userId"))),
    ),
    { userId },
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
const UNFINISHED_SQL = sql`${generations.status} IN ('pending', 'processing')`;
const FINISHED_SQL = sql`${generations.status} IN ('completed', 'failed')`;

export async function liveSummary(db: Db, userId: string) {
  const pick = {
    id: generations.id,
    status: generations.status,
    prompt: generations.prompt,
    aiType: generations.aiType,
  };
  // Both lists from partial indexes that hold only such tasks (generations_user_unfinished_idx, …_finished_idx),
  // newest first: a few entries read whatever the user's history. The status tests are literals, as in the indexes.
  const unfinished = Math.min(await unfinishedCount(db, userId), 50);
  const active =
    unfinished === 0
      ? []
      : await db.many(
          prepared(db, "live.active", (d) =>
            d
              .select(pick)
              .from(generations)
              .where(and(eq(generations.userId, sql.placeholder("userId")), UNFINISHED_SQL))
              .orderBy(desc(generations.createdAt), desc(generations.id))
              .limit(sql.placeholder("limit")),
          ),
          { userId, limit: unfinished },
        );
  const finished = await db.many(
    prepared(db, "live.finished", (d) =>
      d
        .select({ ...pick, errorMessage: generations.errorMessage })
        .from(generations)
        .where(and(eq(generations.userId, sql.placeholder("userId")), FINISHED_SQL))
        .orderBy(desc(generations.completedAt))
        .limit(10),
    ),
    { userId },
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
