/** Whether a task's results were taken down: the media route answers 410 Gone for its files (app/routes/media.ts). */
import { eq, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { prepared } from "#db/prepared";
import { takedowns } from "#db/schema";

export async function isTakenDown(db: Db, genId: string): Promise<boolean> {
  const q = prepared(db, "takedowns.byGen", (d) =>
    d
      .select({ genId: takedowns.genId })
      .from(takedowns)
      .where(eq(takedowns.genId, sql.placeholder("genId")))
      .limit(1),
  );
  return (await db.one(q, { genId })) !== undefined;
}
