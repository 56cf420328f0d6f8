/**
 * The result pipeline (docs/design.md §4.1 "The result pipeline"): what happens to a task's results between "the
 * provider answered" and "the task is completed and its files are visible".
 *
 *   fetch (download URL assets) → steps, in order, per file (check the bytes, safety, provenance…) → store → publish
 *   (complete + debit, one transaction) → derivatives (placeholder, renditions…), after the publish, not waited for
 *
 * A step sees one file at a time with the task it belongs to, and answers `keep` (optionally with new bytes: a
 * provenance stamp re-encodes the file) or `refuse` (the task fails, is never charged, and its bytes are never
 * stored). A step that throws or runs past its time limit refuses too: the pipeline fails safe, never open. The
 * order lives in one place, steps.server.ts; adding a step is a new file and one line there.
 */
import type { AiType, ProviderName } from "~/domain/catalog";
import { log } from "~/lib/log.server";
import type { GenerationRequest, ProviderVerdict } from "~/providers/types";

/** The task a result belongs to, as the steps see it. */
export interface ResultTask {
  id: string;
  userId: string;
  aiType: AiType;
  provider: ProviderName;
  model: string;
  upstreamModel: string;
  prompt: string;
  options: Record<string, unknown>;
  mode: "live" | "simulated";
  /** The task's input pictures (an edit's or an animation's), when it has any. */
  inputs?: GenerationRequest["inputs"];
  /** When the task was created (clock ms). */
  createdAt: number;
}

/** One result file on its way through the steps. */
export interface ResultFile {
  /** Its place among the task's results (0 for the first). */
  index: number;
  bytes: Uint8Array;
  contentType: string;
  /** The provider's own safety verdict on this file, when the provider gave one (fal's `has_nsfw_concepts`…). */
  providerVerdict?: ProviderVerdict;
  /** What earlier steps recorded about this file, by step name (a later step or a derivative may read it). */
  notes: Record<string, unknown>;
}

/** A result file once it is stored: what derivatives start from. */
export interface StoredResult extends ResultFile {
  /** Its storage key (`<gen_id>/<n>-<random>.<ext>`); derivatives are stored beside it under the same stem. */
  key: string;
  url: string;
}

export type StepOutcome =
  | { kind: "keep"; bytes?: Uint8Array; contentType?: string; note?: unknown }
  | {
      kind: "refuse";
      /** The task's error_message: what the user reads (a content-policy refusal starts `content policy:`). */
      message: string;
      /** For the log and the audit trail only, never the user: which rule, which score. */
      reason: string;
      /** The request itself was refused (it counts in the user's allowance of unpaid tasks), not our outage. */
      byRequest: boolean;
    };

export interface ResultStep {
  name: string;
  /** Longest time the step may take for one file; past it the task fails safe. */
  timeoutMs: number;
  run(file: ResultFile, task: ResultTask, signal: AbortSignal): Promise<StepOutcome>;
}

/** Work on a stored result after the task is visible: a failure or a timeout only loses the derivative. */
export interface DerivativeStep {
  name: string;
  timeoutMs: number;
  run(file: StoredResult, task: ResultTask, signal: AbortSignal): Promise<void>;
}

export interface ResultPipeline {
  steps: readonly ResultStep[];
  derivatives: readonly DerivativeStep[];
}

export const CHECK_FAILED = "generation failed: the result could not be checked; no credits were charged";

export type PipelineResult =
  | { kind: "keep"; files: ResultFile[] }
  | { kind: "refuse"; message: string; reason: string; byRequest: boolean; step: string };

class StepTimeout extends Error {}

async function withTimeout<T>(ms: number, signal: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timer = new AbortController();
  const t = setTimeout(() => timer.abort(new StepTimeout(`timed out after ${ms} ms`)), ms);
  const both = AbortSignal.any([signal, timer.signal]);
  try {
    return await Promise.race([
      fn(both),
      new Promise<never>((_, reject) => {
        if (both.aborted) reject(both.reason);
        both.addEventListener("abort", () => reject(both.reason), { once: true });
      }),
    ]);
  } finally {
    clearTimeout(t);
  }
}

/**
 * Runs every step on every file, in order. The first refusal ends the task's pipeline (no later step, no other
 * file). Shutting down (`signal` aborted) rethrows, so the task keeps its lease and runs again elsewhere.
 */
export async function runResultSteps(
  steps: readonly ResultStep[],
  task: ResultTask,
  files: ResultFile[],
  signal: AbortSignal,
): Promise<PipelineResult> {
  for (const file of files) {
    for (const step of steps) {
      let outcome: StepOutcome;
      const t0 = performance.now();
      try {
        outcome = await withTimeout(step.timeoutMs, signal, (s) => step.run(file, task, s));
      } catch (error) {
        if (signal.aborted) throw signal.reason ?? error;
        log.error("a result step failed: the task fails safe", {
          gen_id: task.id,
          step: step.name,
          error: error instanceof StepTimeout ? error.message : error,
        });
        return {
          kind: "refuse",
          message: CHECK_FAILED,
          reason: `${step.name}: ${String(error)}`,
          byRequest: false,
          step: step.name,
        };
      }
      log.debug("result step", {
        gen_id: task.id,
        step: step.name,
        index: file.index,
        ms: Math.round(performance.now() - t0),
      });
      if (outcome.kind === "refuse") {
        log.info("a result step refused a result", { gen_id: task.id, step: step.name, reason: outcome.reason });
        return { ...outcome, step: step.name };
      }
      if (outcome.bytes) file.bytes = outcome.bytes;
      if (outcome.contentType) file.contentType = outcome.contentType;
      if (outcome.note !== undefined) file.notes[step.name] = outcome.note;
    }
  }
  return { kind: "keep", files };
}

/** Runs the derivatives of stored results one after another; never throws (each failure is logged and dropped). */
export async function runDerivatives(
  derivatives: readonly DerivativeStep[],
  task: ResultTask,
  files: StoredResult[],
  signal: AbortSignal = new AbortController().signal,
): Promise<void> {
  for (const file of files) {
    for (const step of derivatives) {
      try {
        await withTimeout(step.timeoutMs, signal, (s) => step.run(file, task, s));
      } catch (error) {
        if (signal.aborted) return;
        log.warn("a derivative of a result failed", { gen_id: task.id, step: step.name, index: file.index, error });
      }
    }
  }
}
