/** The admin page's list of everyone's tasks. */
import { desc, eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { generations, user } from "#db/schema";
import type { GenerationStatus } from "./status";

/** Everyone's latest tasks, newest first (the admin page); `failed` only when asked. */
export function listLatestAll(db: Db, opts: { limit: number; status?: GenerationStatus }) {
  return db.many(
    db
      .select({
        id: generations.id,
        userId: generations.userId,
        email: user.email,
        aiType: generations.aiType,
        provider: generations.provider,
        model: generations.model,
        prompt: generations.prompt,
        status: generations.status,
        mode: generations.mode,
        creditsCost: generations.creditsCost,
        errorMessage: generations.errorMessage,
        resultUrls: generations.resultUrls,
        renditions: generations.renditions,
        createdAt: generations.createdAt,
        completedAt: generations.completedAt,
      })
      .from(generations)
      .leftJoin(user, eq(user.id, generations.userId))
      .where(opts.status ? eq(generations.status, opts.status) : undefined)
      .orderBy(desc(generations.createdAt), desc(generations.id))
      .limit(opts.limit),
  );
}
