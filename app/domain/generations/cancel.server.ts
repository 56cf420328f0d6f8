/**
 * Cancel (DESIGN §10): pending or processing → failed with `canceled`, never
 * charged. One guarded write decides it against the runner: whichever
 * transition commits first wins, and the runner's own guard (`status =
 * processing AND lease_owner = me`) then fails, so a canceled task is never
 * completed or debited. A processing task's upstream job is canceled where
 * the provider can (Replicate, Runway); for the others Atelier stops polling
 * and ignores a late result.
 */
import { and, eq, inArray } from "drizzle-orm";
import { one, type Db } from "#db/client";
import { generations } from "#db/schema";
import type { ProviderName } from "~/domain/catalog";
import { enqueueGenerationEvent } from "~/domain/webhooks/outbox.server";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import type { ProviderRegistry } from "~/providers/registry.server";
import { generationChanged, outboxChanged } from "./changes.server";
import type { GenerationRow } from "./generations.server";
import { cancelUpstream } from "./lifecycle.server";
import { isFinished } from "./status";

export const CANCELED = "canceled";

/** The transition alone: returns the task before and after. */
export function cancelTransition(db: Db, userId: string, genId: string, clock: Clock): Promise<{ before: GenerationRow; after: GenerationRow; queued: number }> {
  return db.tx(function* (tx) {
    const before = yield* one(tx.select().from(generations).where(and(eq(generations.id, genId), eq(generations.userId, userId))));
    if (!before) throw new AppError("GENERATION_NOT_FOUND");
    if (isFinished(before.status)) throw new AppError("GENERATION_FINISHED");
    const now = clock.now();
    const after = yield* one(
      tx
        .update(generations)
        .set({ status: "failed", errorMessage: CANCELED, completedAt: new Date(now), leaseOwner: null, leaseUntil: null, nextPollAt: null })
        .where(and(eq(generations.id, genId), eq(generations.userId, userId), inArray(generations.status, ["pending", "processing"])))
        .returning(),
    );
    if (!after) throw new AppError("GENERATION_FINISHED");
    return { before, after, queued: yield* enqueueGenerationEvent(tx, after, now) };
  });
}

/** Cancels the caller's task and, for a processing one with an upstream job, the upstream job. */
export async function cancelGeneration(deps: { db: Db; clock: Clock; providers: ProviderRegistry }, userId: string, genId: string): Promise<GenerationRow> {
  const { before, after, queued } = await cancelTransition(deps.db, userId, genId, deps.clock);
  generationChanged(genId);
  if (queued > 0) outboxChanged();
  if (before.status === "processing" && before.upstreamTaskId) {
    await cancelUpstream(deps.providers.get(before.provider as ProviderName), before.upstreamTaskId, genId);
  }
  return after;
}
