/**
 * The job runner (docs/design.md §4): a `setInterval` loop in every server process.
 * Each tick claims due tasks (guarded claims with leases, so several processes
 * on one database never run a step twice) up to JOB_CONCURRENCY in flight, and
 * hands each to the domain's `runStep`. It holds no business rule: it
 * schedules, renews leases of long calls, and shuts down gracefully.
 */

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Db } from "#db/client";
import { onTasksQueued } from "~/domain/generations/changes.server";
import { claimDue } from "~/domain/generations/claim.server";
import { runStep, type StepContext } from "~/domain/generations/lifecycle.server";
import type { ProviderRegistry } from "~/domain/generations/registry.server";
import { releaseLeases, renewLeases } from "~/domain/generations/transitions.server";
import { provenanceOf, resultPipeline } from "~/domain/results/steps.server";
import type { SafetyConfig } from "~/domain/safety/check-prompt.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { log, repeatedWarning } from "~/lib/log.server";
import { taskOriginLinks, withSpan } from "~/lib/tracing.server";
import type { FileStore } from "~/storage/files.server";
import type { ResultStorage } from "~/storage/types";

export interface RunnerDeps {
  db: Db;
  clock: Clock;
  config: Pick<
    Config,
    "SIMULATOR_DELAY_MS" | "OUTBOUND_ALLOW_PRIVATE" | "JOB_CONCURRENCY" | "JOB_TICK_MS" | "JOB_LEASE_MS"
  > &
    Partial<
      Pick<Config, "authSecret" | "MEDIA_RENDITIONS" | "DATA_DIR" | "C2PA" | "C2PA_SIGNING_KEY" | "C2PA_CERT_CHAIN">
    > &
    SafetyConfig;
  providers: ProviderRegistry;
  storage: ResultStorage;
  /** Input files: a task's image inputs are handed to its provider (docs/catalog.md "Image inputs"). */
  files?: FileStore;
  /** Defaults to `<host>:<pid>:<random>`. */
  owner?: string;
}

export interface RunnerStats {
  claims: number;
  claimed: number;
  steps: number;
  /** Milliseconds spent claiming, in provider calls (rendering, for the simulator), storing files, and in transitions. */
  ms: { claim: number; provider: number; store: number; db: number };
}

export interface Runner {
  readonly owner: string;
  start(): void;
  /**
   * Stops claiming, lets in-flight steps (a claim under way included) finish for up to `graceMs`, aborts the rest
   * and waits up to 2 s more for them to return, then releases leases. The database may be closed after it resolves.
   */
  stop(graceMs?: number): Promise<void>;
  /** One claim round (tests and the benchmark drive it directly too); resolves when the claim is done. */
  tick(): Promise<void>;
  inFlight(): number;
  stats(): RunnerStats;
  /** Resolves when nothing is in flight. */
  idle(): Promise<void>;
}

/** How long stop() waits for aborted steps to return before it releases leases (and the caller closes the pool). */
const ABORTED_STEPS_MS = 2000;
/** Polls scheduled further ahead than this are left to the ticks (no timer held for a long video). */
const WAKE_HORIZON_MS = 60_000;

export function createRunner(deps: RunnerDeps): Runner {
  const owner = deps.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  const { db, clock, config } = deps;
  const abort = new AbortController();
  const active = new Map<string, Promise<void>>();
  const timings = { provider: 0, store: 0, db: 0 };
  const stats: RunnerStats = { claims: 0, claimed: 0, steps: 0, ms: { claim: 0, provider: 0, store: 0, db: 0 } };
  /** Timers claiming at a poll scheduled in this process, so it runs when due instead of at the next tick. */
  const wakeups = new Set<ReturnType<typeof setTimeout>>();
  const wakeAt = (at: number) => {
    if (!started || stopping) return;
    const delay = at - clock.now();
    // A poll due within a tick is claimed on time; later ones (and other processes' tasks) are found by the ticks.
    if (delay > WAKE_HORIZON_MS) return;
    const t = setTimeout(() => {
      wakeups.delete(t);
      kick();
    }, Math.max(0, delay) + 1);
    wakeups.add(t);
  };
  const ctx: StepContext = {
    db,
    clock,
    config,
    providers: deps.providers,
    storage: deps.storage,
    files: deps.files,
    owner,
    timings,
    wakeAt,
    pipeline: resultPipeline({
      db,
      clock,
      config,
      storage: deps.storage,
      renditions: config.MEDIA_RENDITIONS,
      provenance: provenanceOf(config),
    }),
  };
  const claimWarning = repeatedWarning("job claim failed");
  let interval: ReturnType<typeof setInterval> | undefined;
  let renewal: ReturnType<typeof setInterval> | undefined;
  let stopping = false;
  let started = false;
  let unsubscribe: (() => void) | undefined;
  let kickQueued = false;
  let lastClaimFull = false;
  let claiming: Promise<void> | undefined;
  let idleWaiters: Array<() => void> = [];

  const kick = () => {
    if (kickQueued || stopping) return;
    kickQueued = true;
    setImmediate(() => {
      kickQueued = false;
      tick();
    });
  };

  /** One claim at a time: a tick that finds one under way asks for another round after it. */
  let again = false;
  function tick(): Promise<void> {
    if (claiming) {
      again = true;
      return claiming;
    }
    claiming = (async () => {
      do {
        again = false;
        await claimRound();
      } while (again && !stopping);
    })().finally(() => (claiming = undefined));
    return claiming;
  }

  async function claimRound() {
    if (stopping) return;
    const free = config.JOB_CONCURRENCY - active.size;
    if (free <= 0) return;
    const t0 = performance.now();
    let claimed;
    try {
      // After a full claim there is probably more: skip the idle probe and go straight to the write.
      claimed = await claimDue(db, { owner, limit: free, leaseMs: config.JOB_LEASE_MS, probe: !lastClaimFull }, clock);
    } catch (error) {
      // SQLITE_BUSY beyond busy_timeout, a database restart, a closed database during shutdown…: try again next tick.
      claimWarning.fail(error);
      return;
    } finally {
      stats.ms.claim += performance.now() - t0;
      stats.claims++;
    }
    claimWarning.ok();
    stats.claimed += claimed.length;
    lastClaimFull = claimed.length === free;
    for (const task of claimed) {
      const p = withSpan(
        "generation.step",
        { "atelier.gen_id": task.row.id, "atelier.provider": task.row.provider, "atelier.model": task.row.model },
        () => runStep(ctx, task, abort.signal),
        { root: true, links: taskOriginLinks(task.row.id) },
      )
        .catch((error) => log.error("job step crashed", { gen_id: task.row.id, error }))
        .finally(() => {
          active.delete(task.row.id);
          stats.steps++;
          if (active.size === 0) {
            const w = idleWaiters;
            idleWaiters = [];
            for (const f of w) f();
          }
          // Claim again once half the slots are free: batches keep claim rounds few under load.
          if (active.size <= config.JOB_CONCURRENCY >> 1) kick();
        });
      active.set(task.row.id, p);
    }
  }

  return {
    owner,
    start() {
      if (interval) return;
      started = true;
      interval = setInterval(() => void tick(), config.JOB_TICK_MS);
      // A task created in this process is claimed at once, not at the next tick.
      unsubscribe = onTasksQueued(kick);
      renewal = setInterval(
        () => {
          renewLeases(db, owner, [...active.keys()], clock.now() + config.JOB_LEASE_MS).catch((error) =>
            log.warn("lease renewal failed", { error }),
          );
        },
        Math.max(250, Math.floor(config.JOB_LEASE_MS / 3)),
      );
      void tick();
      log.debug("job runner started", { owner, concurrency: config.JOB_CONCURRENCY });
    },
    async stop(graceMs = 5000) {
      stopping = true;
      clearInterval(interval);
      unsubscribe?.();
      for (const t of wakeups) clearTimeout(t);
      wakeups.clear();
      clearInterval(renewal);
      // A claim under way (a round trip on PostgreSQL) starts its tasks when it returns: wait for them too, or they
      // would run on after stop() — their leases released under them, their queries meeting a closed pool.
      await claiming;
      const settled = (ms: number) => Promise.race([Promise.allSettled(active.values()), Bun.sleep(ms)]);
      if (active.size > 0) await settled(graceMs);
      if (active.size > 0) {
        // Aborted steps record nothing and return (runStep); what is left is a statement or a file write finishing.
        abort.abort();
        await settled(ABORTED_STEPS_MS);
      }
      try {
        const released = await releaseLeases(db, owner);
        log.info("job runner stopped", { owner, released, unfinished: active.size });
      } catch (error) {
        log.warn("releasing leases failed", { error });
      }
    },
    tick,
    inFlight: () => active.size,
    stats: () => ({ ...stats, ms: { ...stats.ms, ...timings, claim: stats.ms.claim } }),
    idle: () => (active.size === 0 ? Promise.resolve() : new Promise<void>((r) => idleWaiters.push(r))),
  };
}
