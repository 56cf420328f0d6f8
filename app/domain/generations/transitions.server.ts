/**
 * The guarded writes of a claimed task (`WHERE status = 'processing' AND lease_owner = …`): the changed-row count
 * says whether this process still held it. Completing debits the price and queues the webhook in one transaction.
 */
import { and, eq, inArray, isNotNull, or, type SQL, sql } from "drizzle-orm";
import { type Db, one, type Tx } from "#db/client";
import { prepared } from "#db/prepared";
import { generations } from "#db/schema";
import { debitForGeneration } from "~/domain/credits/ledger.server";
import { enqueueGenerationEvent } from "~/domain/webhooks/outbox.server";
import type { Clock } from "~/lib/clock";
import { countGenerationEnd } from "~/lib/metrics.server";
import { generationChanged, outboxChanged } from "./changes.server";
import type { GenerationRow } from "./views.server";

const now$ = sql.placeholder("now");
const id$ = sql.placeholder("id");
const owner$ = sql.placeholder("owner");
const owned = (id: typeof id$ | string, owner: typeof owner$ | string) =>
  and(eq(generations.id, id), eq(generations.status, "processing"), eq(generations.leaseOwner, owner));

/** processing → a final status, by the lease holder only; returns the row (for the outbox). */
const finalTransition = (t: Tx, set: { status: "completed" | "failed"; resultUrls?: SQL; errorMessage?: SQL }) =>
  t
    .update(generations)
    .set({ ...set, completedAt: sql`${now$}`, leaseOwner: null, leaseUntil: null, nextPollAt: null })
    .where(owned(id$, owner$))
    .returning();

/** Keeps the lease of tasks in a long provider call. */
export async function renewLeases(db: Db, owner: string, ids: string[], until: number): Promise<void> {
  if (ids.length === 0) return;
  await db.run(
    db
      .update(generations)
      .set({ leaseUntil: until })
      .where(
        and(inArray(generations.id, ids), eq(generations.status, "processing"), eq(generations.leaseOwner, owner)),
      ),
  );
}

/** The upstream task id is persisted before any poll, so a restart resumes polling instead of paying twice. */
export async function markSubmitted(
  db: Db,
  args: { id: string; owner: string; upstreamTaskId: string; nextPollAt: number },
): Promise<boolean> {
  const submitted = prepared(db, "lifecycle.submitted", (t) =>
    t
      .update(generations)
      .set({
        upstreamTaskId: sql`${sql.placeholder("upstreamTaskId")}`,
        nextPollAt: sql`${sql.placeholder("nextPollAt")}`,
        leaseOwner: null,
        leaseUntil: null,
      })
      .where(owned(id$, owner$)),
  );
  return (await db.run(submitted, args)) === 1;
}

/** Not done yet (or a transient error): release the task until its next poll. */
export async function schedulePoll(
  db: Db,
  args: { id: string; owner: string; nextPollAt: number; countPoll: boolean },
): Promise<boolean> {
  const poll = prepared(db, "lifecycle.schedulePoll", (t) =>
    t
      .update(generations)
      .set({
        nextPollAt: sql`${sql.placeholder("nextPollAt")}`,
        leaseOwner: null,
        leaseUntil: null,
        pollCount: sql`${generations.pollCount} + ${sql.placeholder("counted")}`,
      })
      .where(owned(id$, owner$)),
  );
  const changed = await db.run(poll, {
    id: args.id,
    owner: args.owner,
    nextPollAt: args.nextPollAt,
    counted: args.countPoll ? 1 : 0,
  });
  return changed === 1;
}

/** After a final transition committed: wake this process's streams and dispatcher. */
function finished(id: string, queued: number) {
  generationChanged(id);
  if (queued > 0) outboxChanged();
}

/**
 * processing → completed, the debit and the webhook outbox rows, in one
 * transaction: exactly once, by the lease holder only (a canceled task is no
 * longer `processing`, so its late result changes nothing).
 */
export async function completeGeneration(
  db: Db,
  args: { id: string; owner: string; resultUrls: string[] },
  clock: Clock,
): Promise<boolean> {
  let ended: GenerationRow | undefined;
  let charged = 0;
  const queued = await db.tx(function* (t) {
    const now = clock.now();
    const complete = prepared(t, "lifecycle.complete", (t) =>
      finalTransition(t, { status: "completed", resultUrls: sql`${sql.placeholder("resultUrls")}` }),
    );
    const row = yield* one(complete, {
      id: args.id,
      owner: args.owner,
      now,
      resultUrls: JSON.stringify(args.resultUrls),
    });
    if (!row) return -1;
    ended = row;
    const debit = yield* debitForGeneration(t, { genId: args.id, userId: row.userId, amount: row.creditsCost }, clock);
    charged = debit.applied ? debit.charged : 0;
    return yield* enqueueGenerationEvent(t, row, now);
  });
  if (queued < 0) return false;
  if (ended) countGenerationEnd(ended, "completed", clock.now(), charged);
  finished(args.id, queued);
  return true;
}

/** processing → failed with a message the user may see (and the outbox rows); nothing is debited. */
export async function failGeneration(
  db: Db,
  args: { id: string; owner: string; message: string },
  clock: Clock,
): Promise<boolean> {
  let ended: GenerationRow | undefined;
  const queued = await db.tx(function* (t) {
    const now = clock.now();
    const fail = prepared(t, "lifecycle.fail", (t) =>
      finalTransition(t, { status: "failed", errorMessage: sql`${sql.placeholder("message")}` }),
    );
    const row = yield* one(fail, { id: args.id, owner: args.owner, now, message: args.message.slice(0, 1000) });
    if (!row) return -1;
    ended = row;
    return yield* enqueueGenerationEvent(t, row, now);
  });
  if (queued < 0) return false;
  if (ended) countGenerationEnd(ended, "failed", clock.now());
  finished(args.id, queued);
  return true;
}

/**
 * On shutdown: hand back tasks another process can safely pick up at once —
 * those waiting on an upstream id, and simulated ones. A live task caught in
 * the middle of its submit keeps its lease until it expires (and then fails as
 * interrupted: resubmitting could pay upstream twice).
 */
export function releaseLeases(db: Db, owner: string): Promise<number> {
  return db.run(
    db
      .update(generations)
      .set({ leaseOwner: null, leaseUntil: null })
      .where(
        and(
          eq(generations.status, "processing"),
          eq(generations.leaseOwner, owner),
          or(isNotNull(generations.upstreamTaskId), eq(generations.mode, "simulated")),
        ),
      ),
  );
}
