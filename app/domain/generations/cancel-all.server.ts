/**
 * Cancels every unfinished task of one account, uncharged (a suspension, an account deletion): each through the
 * same guarded transition as the owner's own cancel (cancel.server.ts), so a task the runner completes meanwhile is
 * either completed and charged once or canceled and never charged, and its reservation is released with it. No
 * live-cancel allowance: the operator or the account's owner chose this, not a client looping on cancel.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "#db/client";
import { generations } from "#db/schema";
import type { ProviderName } from "~/domain/catalog";
import type { ProviderRegistry } from "~/domain/generations/registry.server";
import type { Clock } from "~/lib/clock";
import { isAppError } from "~/lib/errors";
import { countGenerationEnd } from "~/lib/metrics.server";
import { cancelTransition } from "./cancel.server";
import { generationChanged, outboxChanged } from "./changes.server";
import { cancelUpstream } from "./lifecycle.server";

export async function cancelAllUnfinished(
  deps: { db: Db; clock: Clock; providers?: ProviderRegistry },
  userId: string,
): Promise<number> {
  const { db, clock } = deps;
  const open = await db.many(
    db
      .select({ id: generations.id })
      .from(generations)
      .where(and(eq(generations.userId, userId), inArray(generations.status, ["pending", "processing"]))),
  );
  let canceled = 0;
  for (const { id } of open) {
    let t: Awaited<ReturnType<typeof cancelTransition>>;
    try {
      t = await cancelTransition(db, userId, id, clock);
    } catch (error) {
      if (isAppError(error) && (error.code === "GENERATION_FINISHED" || error.code === "GENERATION_NOT_FOUND"))
        continue;
      throw error;
    }
    canceled++;
    countGenerationEnd(t.after, "canceled", clock.now());
    generationChanged(id);
    if (t.queued > 0) outboxChanged();
    if (deps.providers && t.before.status === "processing" && t.before.upstreamTaskId) {
      await cancelUpstream(
        deps.providers.get(t.before.provider as ProviderName, t.before),
        t.before.upstreamTaskId,
        id,
      );
    }
  }
  return canceled;
}
