/**
 * The background lifecycle of a generation (spec §3.1, docs/design.md §4):
 *
 *   pending ──claim──▶ processing ──provider results──▶ completed (+ debit, one transaction)
 *                          │  ▲ (async: submit, persist upstream id, poll with backoff)
 *                          ▼  │
 *                        failed (provider error, deadline, interruption; no debit)
 *
 * Every transition is a guarded write (`WHERE status = … AND lease_owner = …`)
 * whose changed-row count says who won, so any number of runner processes on
 * one database run each step of each task once. The job runner (jobs/) only
 * schedules: it calls `claimDue` and `runStep`.
 */
import { randomBytes } from "node:crypto";
import { and, asc, eq, getTableColumns, inArray, isNotNull, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import { type Db, type Drizzle, inJsonArray, many, one, type Steps, skipLocked, type Tx } from "#db/client";
import { prepared } from "#db/prepared";
import { generations } from "#db/schema";
import type { AiType, ProviderName } from "~/domain/catalog";
import { debitForGeneration } from "~/domain/credits/ledger.server";
import { enqueueGenerationEvent } from "~/domain/webhooks/outbox.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { isDatabaseBusy } from "~/lib/errors";
import { log } from "~/lib/log.server";
import {
  downloadAsset,
  MAX_ASSETS_PER_TASK,
  MAX_DOWNLOAD_BYTES,
  MAX_IMAGE_BYTES,
  sleep,
} from "~/providers/http.server";
import type { ProviderRegistry } from "~/providers/registry.server";
import { type GenerationRequest, ProviderError, type ResultAsset } from "~/providers/types";
import type { ResultStorage } from "~/storage/types";
import { generationChanged, outboxChanged } from "./changes.server";
import type { GenerationRow } from "./generations.server";
import { countUnpaidTask } from "./unpaid.server";

export const TIMED_OUT = "generation timed out";
export const INTERRUPTED = "generation interrupted by a server restart; no credits were charged, please try again";
export const INTERNAL_FAILURE = "generation failed: internal error";
export const STORAGE_FAILURE = "generation failed: the result could not be stored; no credits were charged";
/** Submits (or sync generate calls) of one task, at most. */
export const MAX_SUBMIT_ATTEMPTS = 3;

export interface ClaimedTask {
  row: GenerationRow;
  /** The previous owner's lease had expired: that process died in the middle of a step. */
  reclaimed: boolean;
}

/**
 * Tasks that may be worked on now: pending ones, and processing ones nobody holds whose next poll is due.
 * The claim's guard: wrapped in `coalesce(…, false)` (the same truth on both engines) so that SQLite's planner
 * takes the claimed ids by primary key; the bare OR made it read every pending and processing task through the
 * status index on each claim (a "MULTI-INDEX OR"), a cost that grew with the backlog.
 */
export const due = (now: ReturnType<typeof sql.placeholder> | number) =>
  sql`coalesce(${or(
    eq(generations.status, "pending"),
    and(
      eq(generations.status, "processing"),
      or(isNull(generations.leaseUntil), lte(generations.leaseUntil, now)),
      or(isNull(generations.nextPollAt), lte(generations.nextPollAt, now)),
    ),
  )}, false)`;

const now$ = sql.placeholder("now");
const limit$ = sql.placeholder("limit");
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

const cols = { id: generations.id, leaseUntil: generations.leaseUntil };

/** A status as a literal, not a parameter: PostgreSQL's generic plan of a prepared claim then still sees how few rows match. */
const statusIs = (status: "pending" | "processing") => sql`${generations.status} = ${sql.raw(`'${status}'`)}`;
const candidate = (t: Tx) => t.select(cols).from(generations).$dynamic();

/**
 * The due candidates of each kind, in the order they are taken, all read through generations_claim_idx
 * (status, next_poll_at, created_at, id) with no sort: polls that are due, leases that expired (a crashed process),
 * then new tasks oldest first. New tasks have no next poll; ordering them by it too lets PostgreSQL see that the
 * index order is the wanted one (it does not treat `IS NULL` as fixing the column).
 */
const candidates: [name: string, build: (t: Tx) => ReturnType<typeof candidate>][] = [
  [
    "polls",
    (t) =>
      candidate(t)
        .where(
          and(
            statusIs("processing"),
            lte(generations.nextPollAt, now$),
            or(isNull(generations.leaseUntil), lte(generations.leaseUntil, now$)),
          ),
        )
        .orderBy(asc(generations.nextPollAt))
        .limit(limit$),
  ],
  [
    "expired",
    (t) =>
      candidate(t)
        .where(and(statusIs("processing"), isNull(generations.nextPollAt), lte(generations.leaseUntil, now$)))
        .limit(limit$),
  ],
  [
    "fresh",
    (t) =>
      candidate(t)
        .where(and(statusIs("pending"), isNull(generations.nextPollAt)))
        .orderBy(asc(generations.nextPollAt), asc(generations.createdAt), asc(generations.id))
        .limit(limit$),
  ],
];

/** What a claim writes: processing, leased to `owner` until `leaseUntil`; a submit not yet sent counts as an attempt. */
const claimed = {
  status: "processing",
  leaseOwner: sql`${owner$}`,
  leaseUntil: sql`${sql.placeholder("leaseUntil")}`,
  startedAt: sql`coalesce(${generations.startedAt}, ${now$})`,
  attempts: sql`${generations.attempts} + (case when ${generations.upstreamTaskId} is null then 1 else 0 end)`,
} as const;

/** SQLite: the candidates, read inside the claim's write transaction (which already excludes every other claimer). */
function* dueCandidates(t: Tx, now: number, limit: number): Steps<{ id: string; leaseUntil: number | null }[]> {
  const found: { id: string; leaseUntil: number | null }[] = [];
  for (const [name, build] of candidates) {
    if (found.length >= limit) break;
    found.push(...(yield* many(prepared(t, `lifecycle.${name}`, build), { now, limit: limit - found.length })));
  }
  return found;
}

/**
 * PostgreSQL: the whole claim in one statement, one round trip. Each kind's candidates are read in a CTE with
 * `FOR UPDATE SKIP LOCKED` (rows another node is claiming are skipped, not waited for); `c` takes them in order up to
 * the limit (a CTE is read only as far as its reader asks, so no more rows are locked than taken); the UPDATE takes
 * them and returns each row with whether its previous lease had expired.
 */
export function pgClaim(d: Drizzle) {
  const kinds = candidates.map(([name, build]) => d.$with(name).as(skipLocked(build(d))));
  const [first, ...rest] = kinds.map((k) => d.select().from(k).$dynamic());
  const c = d.$with("c").as(rest.reduce((all, next) => all.unionAll(next), first!).limit(limit$));
  return d
    .with(...kinds, c)
    .update(generations)
    .set(claimed)
    .from(c)
    .where(and(eq(generations.id, c.id), due(now$)))
    .returning({ ...getTableColumns(generations), reclaimed: sql<boolean>`${c.leaseUntil} is not null` });
}

/** The claim statement of each PostgreSQL pool, built and rendered once (that costs several times what running it does). */
const pgClaims = new WeakMap<Drizzle, ReturnType<ReturnType<typeof pgClaim>["prepare"]>>();

/**
 * Claims up to `limit` due tasks for `owner` until now + leaseMs: the candidates taken with one guarded
 * `UPDATE … RETURNING` (the guard re-checks that each is still due). On PostgreSQL one statement (`pgClaim`); on
 * SQLite one write transaction, after a cheap read with `probe` (so idle ticks take no write lock).
 */
export async function claimDue(
  db: Db,
  args: { owner: string; limit: number; leaseMs: number; probe?: boolean },
  clock: Clock,
): Promise<ClaimedTask[]> {
  if (args.limit <= 0) return [];
  const now = clock.now();
  const params = { owner: args.owner, leaseUntil: now + args.leaseMs, now, limit: args.limit };
  if (db.engine === "postgres") {
    let claim = pgClaims.get(db.drizzle);
    if (!claim) pgClaims.set(db.drizzle, (claim = pgClaim(db.drizzle).prepare()));
    const rows = await db.many(claim, params);
    return rows.map(({ reclaimed, ...row }) => ({ row, reclaimed }));
  }
  if (args.probe !== false && (await db.exec(dueCandidates(db, now, 1))).length === 0) return [];
  return db.tx(function* (t) {
    const found = yield* dueCandidates(t, now, args.limit);
    if (found.length === 0) return [];
    const claim = prepared(t, "lifecycle.claim", (t) =>
      t
        .update(generations)
        .set(claimed)
        .where(and(inJsonArray(t, generations.id, sql.placeholder("ids")), due(now$)))
        .returning(),
    );
    const rows = yield* many(claim, { ...params, ids: JSON.stringify(found.map((c) => c.id)) });
    const expired = new Set(found.filter((c) => c.leaseUntil !== null).map((c) => c.id));
    return rows.map((row) => ({ row, reclaimed: expired.has(row.id) }));
  });
}

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
    yield* debitForGeneration(t, { genId: args.id, userId: row.userId, amount: row.creditsCost }, clock);
    return yield* enqueueGenerationEvent(t, row, now);
  });
  if (queued < 0) return false;
  finished(args.id, queued);
  return true;
}

/** processing → failed with a message the user may see (and the outbox rows); nothing is debited. */
export async function failGeneration(
  db: Db,
  args: { id: string; owner: string; message: string },
  clock: Clock,
): Promise<boolean> {
  const queued = await db.tx(function* (t) {
    const now = clock.now();
    const fail = prepared(t, "lifecycle.fail", (t) =>
      finalTransition(t, { status: "failed", errorMessage: sql`${sql.placeholder("message")}` }),
    );
    const row = yield* one(fail, { id: args.id, owner: args.owner, now, message: args.message.slice(0, 1000) });
    if (!row) return -1;
    return yield* enqueueGenerationEvent(t, row, now);
  });
  if (queued < 0) return false;
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

/** Best effort: asks the provider to stop a task (Replicate cancel, Runway delete); others have no such call. */
export async function cancelUpstream(
  provider: ReturnType<ProviderRegistry["get"]>,
  upstreamTaskId: string,
  genId: string,
): Promise<boolean> {
  if (provider.lifecycle !== "async" || !provider.cancel) return false;
  try {
    await provider.cancel(upstreamTaskId, AbortSignal.timeout(10_000));
    log.debug("upstream task canceled", { gen_id: genId, provider: provider.name });
    return true;
  } catch (error) {
    log.warn("upstream cancel failed", {
      gen_id: genId,
      provider: provider.name,
      error: (error as Error)?.message ?? String(error),
    });
    return false;
  }
}

export type StepPlan =
  | { kind: "fail"; message: string }
  | { kind: "submit" }
  | { kind: "poll"; upstreamTaskId: string };

/** What to do with a claimed task: a pure decision. */
export function planStep(task: ClaimedTask, now: number): StepPlan {
  const { row, reclaimed } = task;
  if (now >= row.deadlineAt) return { kind: "fail", message: TIMED_OUT };
  if (row.upstreamTaskId) return { kind: "poll", upstreamTaskId: row.upstreamTaskId };
  // A live submit that a crashed process may or may not have sent: never risk a second paid job.
  if (reclaimed && row.mode === "live" && row.attempts > 1) return { kind: "fail", message: INTERRUPTED };
  if (row.attempts > MAX_SUBMIT_ATTEMPTS) return { kind: "fail", message: INTERRUPTED };
  return { kind: "submit" };
}

/**
 * Time until the next poll: 1 s growing to 5 s for live providers; for the
 * simulator a quarter of its delay growing to 5×, so short simulated tasks
 * finish promptly (0 with a 0 ms delay).
 */
export function pollDelayMs(pollCount: number, mode: "live" | "simulated", simulatorDelayMs: number): number {
  if (mode === "live") return Math.min(5000, Math.round(1000 * 1.5 ** pollCount));
  const base = Math.min(1000, Math.round(simulatorDelayMs / 4));
  return Math.min(5000, base * Math.min(5, 2 ** pollCount));
}

export interface StepContext {
  db: Db;
  clock: Clock;
  config: Pick<Config, "SIMULATOR_DELAY_MS" | "OUTBOUND_ALLOW_PRIVATE">;
  providers: ProviderRegistry;
  storage: ResultStorage;
  owner: string;
  /** Time spent per phase, for the benchmark. */
  timings?: { provider: number; store: number; db: number };
}

export function toRequest(row: GenerationRow, providers: ProviderRegistry): GenerationRequest {
  let options: Record<string, unknown> = {};
  try {
    const v = JSON.parse(row.options);
    if (v && typeof v === "object" && !Array.isArray(v)) options = v;
  } catch {}
  return {
    genId: row.id,
    aiType: row.aiType as AiType,
    provider: row.provider as ProviderName,
    model: row.model,
    upstreamModel: providers.upstreamModel(row.provider as ProviderName, row.model),
    prompt: row.prompt,
    options,
  };
}

const EXT: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
  "video/mp4": "mp4",
  "video/webm": "webm",
  "video/quicktime": "mov",
};

/** Writing a result file failed (disk full, read-only or missing media folder, bucket refused): not the provider's fault. */
export class StorageError extends Error {
  constructor(
    readonly key: string,
    readonly cause: unknown,
  ) {
    super(`storing ${key} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "StorageError";
  }
}

/**
 * Downloads (URL assets) and stores the results, at most MAX_ASSETS_PER_TASK
 * (the rest are dropped with a warning), as `<gen_id>/<n>-<random>.<ext>`;
 * returns their public URLs in order.
 */
export async function storeResults(
  storage: ResultStorage,
  genId: string,
  assets: ResultAsset[],
  signal: AbortSignal,
  download: { allowPrivate?: boolean; maxBytes?: number } = {},
): Promise<string[]> {
  if (assets.length === 0)
    throw new ProviderError("bad_response", "the provider returned no results", { retryable: false });
  if (assets.length > MAX_ASSETS_PER_TASK) {
    log.warn("provider returned more results than a task keeps", {
      gen_id: genId,
      returned: assets.length,
      kept: MAX_ASSETS_PER_TASK,
    });
  }
  const urls: string[] = [];
  // Unguessable names: a file written for a task that then does not complete (canceled meanwhile) is never
  // reachable, since its URL is only handed out in the result_urls of a completed, charged task.
  const nonce = randomBytes(12).toString("base64url");
  for (const [i, asset] of assets.slice(0, MAX_ASSETS_PER_TASK).entries()) {
    const { bytes, contentType: type } = await downloadAsset(asset, signal, download);
    const ext = EXT[type] ?? "bin";
    const key = `${genId}/${i}-${nonce}.${ext}`;
    try {
      urls.push(await storage.put(key, bytes, type));
    } catch (error) {
      throw new StorageError(key, error);
    }
  }
  return urls;
}

const userMessage = (e: unknown) =>
  e instanceof ProviderError ? e.message : e instanceof StorageError ? STORAGE_FAILURE : INTERNAL_FAILURE;

/** Runs one step of a claimed task: submit/generate or poll, then the guarded transition. */
export async function runStep(ctx: StepContext, task: ClaimedTask, signal: AbortSignal): Promise<void> {
  const { db, clock, owner } = ctx;
  const row = task.row;
  const plan = planStep(task, clock.now());
  const t = ctx.timings;
  const timed = async <T>(k: "provider" | "store", fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      if (t) t[k] += performance.now() - t0;
    }
  };
  /**
   * A write of this step. While the database cannot answer (PostgreSQL restarting, SQLite locked beyond busy_timeout)
   * it is tried again, waiting 100 ms doubling to 1 s, until it answers, the runner stops or the task's deadline
   * passes: the step's outcome (a stored result, an upstream id) is recorded once the database is back instead of
   * being dropped with the task left leased until JOB_LEASE_MS (and a live sync result thrown away, the task then
   * failed as interrupted). The transitions are guarded by the lease, so a second try after a first one that did
   * commit (its answer lost with the connection) changes nothing and answers false: the callers below allow for that.
   * `once`: a write that is not guarded so (the unpaid-task counter) is not tried again.
   */
  let retriedWrite = false;
  const write = async <T>(fn: () => Promise<T>, once = false): Promise<T> => {
    for (let wait = 100; ; wait = Math.min(1000, wait * 2)) {
      const t0 = performance.now();
      try {
        return await fn();
      } catch (error) {
        if (once || !isDatabaseBusy(error) || signal.aborted || clock.now() >= row.deadlineAt) throw error;
        if (!retriedWrite)
          log.warn("database unavailable during a step: trying again until it answers", { gen_id: row.id, error });
        retriedWrite = true;
      } finally {
        if (t) t.db += performance.now() - t0;
      }
      await sleep(wait, signal).catch(() => {});
    }
  };
  /**
   * `byRequest`: the request itself was refused (the provider rejected the prompt or options, or its job failed):
   * such a task counts in the user's allowance of unpaid tasks (unpaid.server.ts). Our own or the provider's outage
   * (timeouts, 5xx, network, credentials, storage, a restart, a crash) never counts against the user.
   */
  const fail = async (message: string, byRequest = false) => {
    if (await write(() => failGeneration(db, { id: row.id, owner, message }, clock))) {
      log.debug("generation failed", { gen_id: row.id, owner, message });
      if (byRequest) await write(() => countUnpaidTask(db, row.userId, clock), true);
    }
  };
  const finish = async (assets: ResultAsset[]) => {
    const urls = await timed("store", () =>
      storeResults(ctx.storage, row.id, assets, signal, {
        allowPrivate: ctx.config.OUTBOUND_ALLOW_PRIVATE,
        maxBytes: row.aiType === "image" ? MAX_IMAGE_BYTES : MAX_DOWNLOAD_BYTES,
      }),
    );
    if (await write(() => completeGeneration(db, { id: row.id, owner, resultUrls: urls }, clock))) {
      log.debug("generation completed", { gen_id: row.id, owner });
    } else {
      log.warn("generation lost its lease before completing", { gen_id: row.id });
      // Canceled (or failed) meanwhile: it was never charged, so its files go. A task another process completed keeps them.
      const now = await write(() =>
        db.one(db.select({ status: generations.status }).from(generations).where(eq(generations.id, row.id))),
      );
      if (now?.status === "failed")
        await ctx.storage
          .deletePrefix?.(`${row.id}/`)
          .catch((error) => log.warn("removing a canceled task's files failed", { gen_id: row.id, error }));
    }
  };

  if (plan.kind === "fail") {
    await fail(plan.message);
    return;
  }
  const provider = ctx.providers.get(row.provider as ProviderName);
  const req = toRequest(row, ctx.providers);
  const deadline = AbortSignal.timeout(Math.max(1, row.deadlineAt - clock.now()));
  const callSignal = AbortSignal.any([signal, deadline]);
  const nextPoll = (count: number) =>
    Math.min(row.deadlineAt, clock.now() + pollDelayMs(count, provider.mode, ctx.config.SIMULATOR_DELAY_MS));

  try {
    if (plan.kind === "submit") {
      if (provider.lifecycle === "sync") {
        const assets = await timed("provider", () => provider.generate(req, callSignal));
        await finish(assets);
      } else {
        const { upstreamTaskId } = await timed("provider", () => provider.submit(req, callSignal));
        if (!(await write(() => markSubmitted(db, { id: row.id, owner, upstreamTaskId, nextPollAt: nextPoll(0) })))) {
          // After a retried write, false may mean an earlier try committed but its answer was lost: the job is ours then.
          const recorded =
            retriedWrite &&
            (
              await write(() =>
                db.one(
                  db
                    .select({ upstreamTaskId: generations.upstreamTaskId })
                    .from(generations)
                    .where(eq(generations.id, row.id)),
                ),
              )
            )?.upstreamTaskId === upstreamTaskId;
          // Canceled (or lost) while submitting: the upstream job is nobody's now.
          if (!recorded) await cancelUpstream(provider, upstreamTaskId, row.id);
        }
      }
      return;
    }
    if (provider.lifecycle !== "async")
      throw new ProviderError("bad_response", "provider cannot poll", { retryable: false });
    const result = await timed("provider", () => provider.poll(plan.upstreamTaskId, req, callSignal));
    if (result.state === "pending" || result.state === "running") {
      await write(() =>
        schedulePoll(db, { id: row.id, owner, nextPollAt: nextPoll(row.pollCount + 1), countPoll: true }),
      );
    } else if (result.state === "failed") {
      await fail(result.message, true);
    } else {
      await finish(result.assets);
    }
  } catch (error) {
    if (signal.aborted) return; // shutting down: the lease is released (or expires) and another process resumes
    if (isDatabaseBusy(error)) {
      // Still unavailable at the deadline (write() tries again until then): the outcome is not recorded, so the task
      // keeps its lease and runs again when the lease expires — never failed for our own outage.
      log.warn("database unavailable during a step: the task runs again when its lease expires", {
        gen_id: row.id,
        step: plan.kind,
        error,
      });
      return;
    }
    if (deadline.aborted || clock.now() >= row.deadlineAt) {
      await fail(TIMED_OUT);
      return;
    }
    if (error instanceof ProviderError) {
      const { kind, message, retryable } = error;
      log.warn("provider step failed", {
        gen_id: row.id,
        provider: row.provider,
        step: plan.kind,
        kind,
        message,
        retryable,
        hint: error.opts.operatorHint,
        status: error.opts.status,
      });
    } else if (error instanceof StorageError) {
      log.error("storing a result failed", {
        gen_id: row.id,
        key: error.key,
        error: error.cause,
        hint: "check DATA_DIR/media (or the S3 bucket): exists, writable, not full",
      });
    } else {
      log.error("generation step crashed", { gen_id: row.id, provider: row.provider, step: plan.kind, error });
    }
    const retryable = error instanceof ProviderError && error.retryable;
    const byRequest = error instanceof ProviderError && (error.kind === "bad_request" || error.kind === "failed");
    if (plan.kind === "poll") {
      // Polling again is always safe: the upstream job exists once.
      if (retryable)
        await write(() =>
          schedulePoll(db, { id: row.id, owner, nextPollAt: nextPoll(row.pollCount + 1), countPoll: true }),
        );
      else await fail(userMessage(error), byRequest);
    } else if (retryable && row.attempts < MAX_SUBMIT_ATTEMPTS) {
      // The adapter says this call can be repeated without a duplicate upstream job.
      await write(() => schedulePoll(db, { id: row.id, owner, nextPollAt: nextPoll(row.attempts), countPoll: false }));
    } else {
      await fail(userMessage(error), byRequest);
    }
  }
}
