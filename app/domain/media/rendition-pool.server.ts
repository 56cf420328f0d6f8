/**
 * Renditions made on a worker thread (app/rendition-worker.ts), one picture at a time, the same shape as the
 * placeholder pool (docs/decisions/131-placeholders-on-a-worker-thread.md): one worker started on first use and
 * kept; pictures wait in a bounded queue; whatever goes wrong (the queue is full, the worker cannot start, dies, or
 * takes longer than `timeoutMs`) the picture gets no renditions and keeps its original.
 */
import { createWorkerPool, processSingleton, workerScriptPath } from "~/lib/worker-pool";
import type { Renditions } from "./make-renditions.server";

/** A picture posted to the rendition worker (app/rendition-worker.ts) and its answer. */
export interface RenditionJob {
  id: number;
  bytes: Uint8Array;
}

export type RenditionAnswer =
  | { id: number; ok: true; renditions: Renditions; threadId: number; ms: number }
  | { id: number; ok: false; error: string; threadId: number; ms: number };

export const RENDITION_QUEUE = 64;
export const RENDITION_QUEUE_BYTES = 128 * 1024 * 1024;
/** A 1024² picture takes about 100 ms; a 64 MP one a few seconds. Past this the worker is stuck, and replaced. */
export const RENDITION_TIMEOUT_MS = 30_000;

export interface RenditionPool {
  /** The picture's renditions, or null (the reason goes to `onError`). */
  make(bytes: Uint8Array): Promise<(Renditions & { ms: number; threadId: number }) | null>;
  stop(): void;
}

export interface RenditionPoolOptions {
  workerPath?: string;
  timeoutMs?: number;
  maxQueue?: number;
  maxQueueBytes?: number;
  onError?: (message: string) => void;
}

/** Where the worker's script is (app/rendition-worker.ts, or build/rendition-worker.js beside the bundle). */
export function renditionWorkerPath(): string | undefined {
  return workerScriptPath("rendition-worker");
}

type Made = Renditions & { ms: number; threadId: number };

export function createRenditionPool(opts: RenditionPoolOptions = {}): RenditionPool {
  const pool = createWorkerPool<Omit<RenditionJob, "id">, RenditionAnswer, Made>({
    label: "rendition",
    workerPath: opts.workerPath ?? renditionWorkerPath(),
    timeoutMs: opts.timeoutMs ?? RENDITION_TIMEOUT_MS,
    maxQueue: opts.maxQueue ?? RENDITION_QUEUE,
    maxQueueBytes: opts.maxQueueBytes ?? RENDITION_QUEUE_BYTES,
    read: (a) => (a.ok ? { value: { ...a.renditions, ms: a.ms, threadId: a.threadId } } : { error: a.error }),
    onError: opts.onError,
  });
  return { make: (bytes) => pool.run({ bytes }), stop: () => pool.stop() };
}

const pools = processSingleton<RenditionPool>("atelier.renditionPool");

export function renditionPool(onError?: (message: string) => void): RenditionPool {
  return pools.get(() => createRenditionPool({ onError }));
}

export function stopRenditionPool(): void {
  pools.stop();
}
