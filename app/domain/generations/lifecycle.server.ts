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
 * schedules: it calls `claimDue` (claim.server.ts) and `runStep`; the writes are in transitions.server.ts.
 */
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { generations } from "#db/schema";
import { type AiType, findOffering, type ProviderName } from "~/domain/catalog";
import { loadInputs } from "~/domain/files/inputs.server";
import type { ProviderRegistry } from "~/domain/generations/registry.server";
import {
  type ResultFile,
  type ResultPipeline,
  type ResultTask,
  runDerivatives,
  runResultSteps,
} from "~/domain/results/pipeline.server";
import { provenanceOf, resultPipeline } from "~/domain/results/steps.server";
import type { SafetyConfig } from "~/domain/safety/check-prompt.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { isDatabaseBusy } from "~/lib/errors";
import { log } from "~/lib/log.server";
import { getMetrics } from "~/lib/metrics.server";
import { withSpan } from "~/lib/tracing.server";
import { MAX_DOWNLOAD_BYTES, MAX_IMAGE_BYTES, sleep } from "~/providers/http.server";
import { type GenerationRequest, ProviderError, type ResultAsset } from "~/providers/types";
import type { FileStore } from "~/storage/files.server";
import type { ResultStorage } from "~/storage/types";
import type { ClaimedTask } from "./claim.server";
import { fetchResults, StorageError, storeFiles } from "./results.server";
import { completeGeneration, failGeneration, markSubmitted, schedulePoll } from "./transitions.server";
import { countUnpaidTask } from "./unpaid.server";
import type { GenerationRow } from "./views.server";

export const TIMED_OUT = "generation timed out";
export const INTERRUPTED = "generation interrupted by a server restart; no credits were charged, please try again";
export const INTERNAL_FAILURE = "generation failed: internal error";
export const STORAGE_FAILURE = "generation failed: the result could not be stored; no credits were charged";
/** Submits (or sync generate calls) of one task, at most. */
export const MAX_SUBMIT_ATTEMPTS = 3;

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

/**
 * Time until the poll after a failed one: the schedule's next step, but for a live provider never the quick first
 * steps (one that errs is not asked again within a second) and never before a 429's Retry-After (the caller caps
 * it at the deadline).
 */
export function pollRetryDelayMs(
  pollCount: number,
  mode: "live" | "simulated",
  simulatorDelayMs: number,
  retryAfterMs?: number,
): number {
  const next = pollDelayMs(pollCount, mode, simulatorDelayMs);
  if (mode !== "live") return next;
  const after = retryAfterMs !== undefined && Number.isFinite(retryAfterMs) ? retryAfterMs : 0;
  return Math.max(POLL_RETRY_MIN_MS, after, next);
}

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

/** The longest wait between two polls, whatever the provider estimates. */
export const MAX_POLL_DELAY_MS = 5000;

/**
 * A live provider's polls without an estimate: the first ones come soon, so a quick job is seen within a quarter
 * second of finishing, then the steps grow by half to 5 s, so a long job costs few calls (docs/studio.md "Time to
 * visible"). Six polls cover the first 10 s, 28 a 2-minute job (1 s × 1.5ⁿ made 4 and 26).
 */
export const LIVE_POLL_STEPS_MS = [250, 500, 1000] as const;

/** The shortest wait before polling again after a failed poll (a 429's Retry-After waits longer). */
export const POLL_RETRY_MIN_MS = 1000;

/**
 * Time until the next poll. Where the provider says how long the job still needs (`readyInMs`: the simulator
 * knows exactly), then — so a finished job is seen when it finishes, not up to a backoff step later (docs/studio.md
 * "Time to visible") — at most 5 s. Otherwise LIVE_POLL_STEPS_MS then growing by half to 5 s for live providers;
 * for the simulator a quarter of its delay growing to 5×, so short simulated tasks finish promptly (0 with a 0 ms
 * delay).
 */
export function pollDelayMs(
  pollCount: number,
  mode: "live" | "simulated",
  simulatorDelayMs: number,
  readyInMs?: number,
): number {
  if (readyInMs !== undefined && Number.isFinite(readyInMs))
    // A job still running that says "ready now" is polled again after a breath, never in a tight loop.
    return Math.min(MAX_POLL_DELAY_MS, Math.max(pollCount > 0 ? 50 : 0, Math.round(readyInMs)));
  if (mode === "live") {
    const last = LIVE_POLL_STEPS_MS.length - 1;
    if (pollCount < last) return LIVE_POLL_STEPS_MS[pollCount]!;
    return Math.min(MAX_POLL_DELAY_MS, Math.round(LIVE_POLL_STEPS_MS[last] * 1.5 ** (pollCount - last)));
  }
  const base = Math.min(1000, Math.round(simulatorDelayMs / 4));
  return Math.min(5000, base * Math.min(5, 2 ** pollCount));
}

export interface StepContext {
  db: Db;
  clock: Clock;
  config: Pick<Config, "SIMULATOR_DELAY_MS" | "OUTBOUND_ALLOW_PRIVATE"> &
    Partial<
      Pick<Config, "authSecret" | "MEDIA_RENDITIONS" | "DATA_DIR" | "C2PA" | "C2PA_SIGNING_KEY" | "C2PA_CERT_CHAIN">
    > &
    SafetyConfig;
  providers: ProviderRegistry;
  storage: ResultStorage;
  /** Input files (a task's image inputs become `req.inputs`); absent in tests and benchmarks without inputs. */
  files?: FileStore;
  owner: string;
  /** Time spent per phase, for the benchmark. */
  timings?: { provider: number; store: number; db: number };
  /** A poll of a task was scheduled for `at` (clock ms): the runner claims it then rather than at a later tick. */
  wakeAt?: (at: number) => void;
  /** The result pipeline's steps (app/domain/results/steps.server.ts); built from `db` when absent. */
  pipeline?: ResultPipeline;
}

function resultTask(row: GenerationRow, req: GenerationRequest, mode: "live" | "simulated"): ResultTask {
  return {
    id: row.id,
    userId: row.userId,
    aiType: req.aiType,
    provider: req.provider,
    model: req.model,
    upstreamModel: req.upstreamModel,
    prompt: req.prompt,
    options: req.options,
    mode,
    inputs: req.inputs,
    createdAt: Number(row.createdAt instanceof Date ? row.createdAt.getTime() : row.createdAt),
  };
}

export function toRequest(row: GenerationRow, providers: ProviderRegistry): GenerationRequest {
  let options: Record<string, unknown> = {};
  try {
    const v = JSON.parse(row.options);
    if (v && typeof v === "object" && !Array.isArray(v)) options = v;
  } catch {}
  const offering = findOffering(row.aiType, row.provider, row.model);
  return {
    genId: row.id,
    aiType: row.aiType as AiType,
    provider: row.provider as ProviderName,
    model: row.model,
    upstreamModel: providers.upstreamModel(row.provider as ProviderName, row.model),
    specs: offering?.options ?? {},
    label: offering?.label,
    prompt: row.prompt,
    options,
  };
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
      return await withSpan(
        k === "provider" ? "provider.call" : "storage.store",
        { "atelier.provider": row.provider },
        fn,
      );
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
  const finish = async (assets: ResultAsset[], req: GenerationRequest, mode: "live" | "simulated") => {
    const pipeline =
      ctx.pipeline ??
      resultPipeline({
        db,
        clock,
        config: ctx.config,
        storage: ctx.storage,
        renditions: ctx.config.MEDIA_RENDITIONS,
        provenance: provenanceOf(ctx.config),
      });
    const task = resultTask(row, req, mode);
    const fetched = await timed("store", () =>
      fetchResults(row.id, assets, signal, {
        allowPrivate: ctx.config.OUTBOUND_ALLOW_PRIVATE,
        maxBytes: row.aiType === "image" ? MAX_IMAGE_BYTES : MAX_DOWNLOAD_BYTES,
      }),
    );
    const files: ResultFile[] = fetched.map((f) => ({
      index: f.index,
      bytes: f.bytes,
      contentType: f.contentType,
      providerVerdict: f.verdict,
      notes: {},
    }));
    const checked = await runResultSteps(pipeline.steps, task, files, signal);
    if (checked.kind === "refuse") {
      // Nothing of a refused result is stored: its bytes never reach /media, and the task is not charged.
      await fail(checked.message, checked.byRequest);
      return;
    }
    const stored = await timed("store", () => storeFiles(ctx.storage, row.id, checked.files));
    const urls = stored.map((s) => s.url);
    if (await write(() => completeGeneration(db, { id: row.id, owner, resultUrls: urls }, clock))) {
      log.debug("generation completed", { gen_id: row.id, owner });
      // After the completion (the result is visible already), and not waited for: a derivative's decode (several ms
      // of CPU for even a small picture) would hold this runner slot and cut the runner's throughput to a third
      // (docs/decisions/131-placeholders-on-a-worker-thread.md).
      void runDerivatives(
        pipeline.derivatives,
        task,
        checked.files.map((f, i) => ({ ...f, key: stored[i]!.key, url: stored[i]!.url })),
      );
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
  const provider = ctx.providers.get(row.provider as ProviderName, row);
  const req = toRequest(row, ctx.providers);
  const deadline = AbortSignal.timeout(Math.max(1, row.deadlineAt - clock.now()));
  const callSignal = AbortSignal.any([signal, deadline]);
  const nextPoll = (count: number, readyInMs?: number) =>
    Math.min(row.deadlineAt, clock.now() + pollDelayMs(count, provider.mode, ctx.config.SIMULATOR_DELAY_MS, readyInMs));
  /** Releases the task until its next poll, and asks this process's runner to be there on time. */
  const pollAt = async (nextPollAt: number, release: () => Promise<boolean>) => {
    const scheduled = await write(release);
    if (scheduled) ctx.wakeAt?.(nextPollAt);
    return scheduled;
  };

  try {
    if (row.inputs && ctx.files)
      req.inputs = await loadInputs(
        { db, store: ctx.files, secret: ctx.config.authSecret ?? "", now: clock.now() },
        row,
      );
    if (plan.kind === "submit") {
      if (provider.lifecycle === "sync") {
        const assets = await timed("provider", () => provider.generate(req, callSignal));
        await finish(assets, req, provider.mode);
      } else {
        const { upstreamTaskId, readyInMs } = await timed("provider", () => provider.submit(req, callSignal));
        const nextPollAt = nextPoll(0, readyInMs);
        if (!(await pollAt(nextPollAt, () => markSubmitted(db, { id: row.id, owner, upstreamTaskId, nextPollAt })))) {
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
      const nextPollAt = nextPoll(row.pollCount + 1, result.readyInMs);
      await pollAt(nextPollAt, () => schedulePoll(db, { id: row.id, owner, nextPollAt, countPoll: true }));
    } else if (result.state === "failed") {
      await fail(result.message, true);
    } else {
      await finish(result.assets, req, provider.mode);
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
      getMetrics()?.providerErrors.labels(row.provider, kind).inc();
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
    const retryAfterMs = (error as { retryAfterMs?: number }).retryAfterMs;
    const retryAt = (count: number) =>
      Math.min(
        row.deadlineAt,
        clock.now() + pollRetryDelayMs(count, provider.mode, ctx.config.SIMULATOR_DELAY_MS, retryAfterMs),
      );
    const byRequest = error instanceof ProviderError && (error.kind === "bad_request" || error.kind === "failed");
    if (plan.kind === "poll") {
      // Polling again is always safe: the upstream job exists once.
      if (retryable)
        await write(() =>
          schedulePoll(db, { id: row.id, owner, nextPollAt: retryAt(row.pollCount + 1), countPoll: true }),
        );
      else await fail(userMessage(error), byRequest);
    } else if (retryable && row.attempts < MAX_SUBMIT_ATTEMPTS) {
      // The adapter says this call can be repeated without a duplicate upstream job.
      await write(() => schedulePoll(db, { id: row.id, owner, nextPollAt: retryAt(row.attempts), countPoll: false }));
    } else {
      await fail(userMessage(error), byRequest);
    }
  }
}
