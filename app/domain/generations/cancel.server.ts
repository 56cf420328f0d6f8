/**
 * Cancel (docs/design.md §10): pending or processing → failed with `canceled`, never
 * charged. One guarded write decides it against the runner: whichever
 * transition commits first wins, and the runner's own guard (`status =
 * processing AND lease_owner = me`) then fails, so a canceled task is never
 * completed or debited. A processing task's upstream job is canceled where
 * the provider can (Replicate, Runway); for the others Atelier stops polling
 * and ignores a late result.
 *
 * A live task that has reached its provider has been paid for upstream by the
 * operator whether or not Atelier can stop it there (OpenAI and Kling cannot;
 * Replicate bills the time used). Canceling it is free for the user, so it is
 * bounded: at most LIVE_CANCELS_PER_HOUR such cancels per
 * user, counted in the shared limiter; past it RATE_LIMITED (429, Retry-After)
 * and the task runs on (charged if it completes). Pending and simulated tasks
 * cancel freely.
 */
import { and, eq, inArray, ne, or } from "drizzle-orm";
import { type Db, one } from "#db/client";
import { generations } from "#db/schema";
import type { ProviderName } from "~/domain/catalog";
import type { ProviderRegistry } from "~/domain/generations/registry.server";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import { enqueueGenerationEvent } from "~/domain/webhooks/outbox.server";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { countGenerationEnd } from "~/lib/metrics.server";
import { generationChanged, outboxChanged } from "./changes.server";
import { cancelUpstream } from "./lifecycle.server";
import { CANCELED, isFinished } from "./status";
import { countUnpaidTask } from "./unpaid.server";
import type { GenerationRow } from "./views.server";

export const LIVE_CANCELS_PER_HOUR = 10;
const LIVE_CANCEL_POLICY = { name: "live-cancel", limit: LIVE_CANCELS_PER_HOUR, windowMs: 3_600_000 };

/** A live task the runner has taken: its provider call may already be paid for. */
const reachedProvider = (row: Pick<GenerationRow, "mode" | "status">) =>
  row.mode === "live" && row.status === "processing";

type Transition = { before: GenerationRow; after: GenerationRow; queued: number };

/**
 * The transition alone: returns the task before and after. With `paidAllowed: false` a live task that
 * has reached its provider is left alone (`{ needsAllowance: true }`), decided by the guarded write itself,
 * so a task the runner claims meanwhile is never canceled for free.
 */
export function cancelTransition(db: Db, userId: string, genId: string, clock: Clock): Promise<Transition>;
export function cancelTransition(
  db: Db,
  userId: string,
  genId: string,
  clock: Clock,
  opts: { paidAllowed: boolean },
): Promise<Transition | { needsAllowance: true }>;
export function cancelTransition(
  db: Db,
  userId: string,
  genId: string,
  clock: Clock,
  opts = { paidAllowed: true },
): Promise<Transition | { needsAllowance: true }> {
  return db.tx(function* (tx) {
    const mine = and(eq(generations.id, genId), eq(generations.userId, userId));
    const before = yield* one(tx.select().from(generations).where(mine));
    if (!before) throw new AppError("GENERATION_NOT_FOUND");
    if (isFinished(before.status)) throw new AppError("GENERATION_FINISHED");
    if (!opts.paidAllowed && reachedProvider(before)) return { needsAllowance: true as const };
    const now = clock.now();
    const unfinished = inArray(generations.status, ["pending", "processing"]);
    const after = yield* one(
      tx
        .update(generations)
        .set({
          status: "failed",
          errorMessage: CANCELED,
          completedAt: new Date(now),
          leaseOwner: null,
          leaseUntil: null,
          nextPollAt: null,
        })
        .where(
          and(
            mine,
            unfinished,
            opts.paidAllowed ? undefined : or(eq(generations.status, "pending"), ne(generations.mode, "live")),
          ),
        )
        .returning(),
    );
    if (!after) {
      // The runner moved it meanwhile (PostgreSQL: between the read and the write): finished, or now at its provider.
      const current = yield* one(tx.select().from(generations).where(mine));
      if (!current || isFinished(current.status)) throw new AppError("GENERATION_FINISHED");
      return { needsAllowance: true as const };
    }
    return { before, after, queued: yield* enqueueGenerationEvent(tx, after, now) };
  });
}

/** A cancel of a live task at its provider takes one slot of the user's allowance, or RATE_LIMITED. */
async function takeLiveCancel(db: Db, userId: string, clock: Clock): Promise<void> {
  await takeOrRefuse(db, `live-cancel:${userId}`, LIVE_CANCEL_POLICY, clock.now());
}

/** Cancels the caller's task and, for a processing one with an upstream job, the upstream job. */
export async function cancelGeneration(
  deps: { db: Db; clock: Clock; providers: ProviderRegistry },
  userId: string,
  genId: string,
): Promise<GenerationRow> {
  let t = await cancelTransition(deps.db, userId, genId, deps.clock, { paidAllowed: false });
  if ("needsAllowance" in t) {
    await takeLiveCancel(deps.db, userId, deps.clock);
    t = await cancelTransition(deps.db, userId, genId, deps.clock, { paidAllowed: true });
  }
  const { before, after, queued } = t as Transition;
  countGenerationEnd(after, "canceled", deps.clock.now());
  generationChanged(genId);
  await countUnpaidTask(deps.db, userId, deps.clock);
  if (queued > 0) outboxChanged();
  if (before.status === "processing" && before.upstreamTaskId) {
    await cancelUpstream(deps.providers.get(before.provider as ProviderName, before), before.upstreamTaskId, genId);
  }
  return after;
}
