/**
 * Blurred placeholders computed on a worker thread (docs/decisions/131-placeholders-on-a-worker-thread.md): a
 * ThumbHash of a 4 MP result costs over a second of CPU (placeholder.server.ts), which on the server's thread would
 * hold every request that long at each completion. One worker, started on first use and kept; pictures wait their
 * turn in a bounded queue. Whatever goes wrong (the queue is full, the worker cannot start, dies or takes longer
 * than `timeoutMs`) the picture gets no placeholder: the task itself is done already.
 */
import { createWorkerPool, processSingleton, workerScriptPath } from "~/lib/worker-pool";

/** A job posted to the placeholder worker (app/placeholder-worker.ts) and its answer. */
export interface PlaceholderJob {
  id: number;
  bytes: Uint8Array;
  contentType: string;
}

export interface PlaceholderAnswer {
  id: number;
  placeholder: string | null;
  threadId: number;
  ms: number;
}

/** Pictures waiting behind the one being read; more than that (a burst of completions) go without. */
export const PLACEHOLDER_QUEUE = 64;
/** The bytes those pictures may hold in memory while they wait (a 4 MP PNG is several MB). */
export const PLACEHOLDER_QUEUE_BYTES = 64 * 1024 * 1024;
/** About 15 × what a 4.2 MP picture takes on an idle core: past it the worker is stuck, and replaced. */
export const PLACEHOLDER_TIMEOUT_MS = 20_000;

export interface PlaceholderResult {
  placeholder: string | null;
  /** The thread that computed it (never the server's, 0). */
  threadId: number;
  ms: number;
}

export interface PlaceholderPool {
  /** The picture's placeholder, or null when it has none or the worker could not answer in time. */
  compute(bytes: Uint8Array, contentType: string): Promise<PlaceholderResult | null>;
  /** Ends the worker; what is waiting gets null. */
  stop(): void;
}

export interface PlaceholderPoolOptions {
  /** The worker's script (default: placeholderWorkerPath()). */
  workerPath?: string;
  timeoutMs?: number;
  maxQueue?: number;
  maxQueueBytes?: number;
  onError?: (message: string) => void;
}

/** Where the worker's script is (app/placeholder-worker.ts, or build/placeholder-worker.js beside the bundle). */
export function placeholderWorkerPath(): string | undefined {
  return workerScriptPath("placeholder-worker");
}

export function createPlaceholderPool(opts: PlaceholderPoolOptions = {}): PlaceholderPool {
  const pool = createWorkerPool<Omit<PlaceholderJob, "id">, PlaceholderAnswer, PlaceholderResult>({
    label: "placeholder",
    workerPath: opts.workerPath ?? placeholderWorkerPath(),
    timeoutMs: opts.timeoutMs ?? PLACEHOLDER_TIMEOUT_MS,
    maxQueue: opts.maxQueue ?? PLACEHOLDER_QUEUE,
    maxQueueBytes: opts.maxQueueBytes ?? PLACEHOLDER_QUEUE_BYTES,
    read: (a) => ({ value: { placeholder: a.placeholder, threadId: a.threadId, ms: a.ms } }),
    onError: opts.onError,
  });
  return { compute: (bytes, contentType) => pool.run({ bytes, contentType }), stop: () => pool.stop() };
}

const pools = processSingleton<PlaceholderPool>("atelier.placeholderPool");

/** The process's pool (one across dev-server reloads), started on first use. */
export function placeholderPool(onError?: (message: string) => void): PlaceholderPool {
  return pools.get(() => createPlaceholderPool({ onError }));
}

/** Ends the process's worker, if it was started (shutdown: a worker thread must not outlive its server). */
export function stopPlaceholderPool(): void {
  pools.stop();
}
