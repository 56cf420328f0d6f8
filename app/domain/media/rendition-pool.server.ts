/**
 * Renditions made on a worker thread (app/rendition-worker.ts), one picture at a time, the same shape as the
 * placeholder pool (docs/decisions/131-placeholders-on-a-worker-thread.md): one worker started on first use and
 * kept; pictures wait in a bounded queue; whatever goes wrong (the queue is full, the worker cannot start, dies, or
 * takes longer than `timeoutMs`) the picture gets no renditions and keeps its original.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
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

/** Beside the entry point (build/, the executable, app/), else in the source tree (the dev server, tests). */
export function renditionWorkerPath(): string | undefined {
  const here = import.meta.dirname ?? dirname(fileURLToPath(import.meta.url));
  const main = dirname(Bun.main);
  return [
    join(main, "rendition-worker.js"),
    join(main, "rendition-worker.ts"),
    join(here, "../../rendition-worker.ts"),
    join(process.cwd(), "app/rendition-worker.ts"),
  ].find((p) => existsSync(p));
}

interface Job extends RenditionJob {
  resolve(r: (Renditions & { ms: number; threadId: number }) | null): void;
}

export function createRenditionPool(opts: RenditionPoolOptions = {}): RenditionPool {
  const timeoutMs = opts.timeoutMs ?? RENDITION_TIMEOUT_MS;
  const maxQueue = opts.maxQueue ?? RENDITION_QUEUE;
  const maxQueueBytes = opts.maxQueueBytes ?? RENDITION_QUEUE_BYTES;
  const queue: Job[] = [];
  let queuedBytes = 0;
  let worker: Worker | undefined;
  let current: Job | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let nextId = 1;
  let stopped = false;

  const finish = (result: (Renditions & { ms: number; threadId: number }) | null) => {
    clearTimeout(timer);
    const job = current;
    current = undefined;
    job?.resolve(result);
    next();
  };
  const drop = (w: Worker | undefined, message: string) => {
    if (!w || w !== worker) return;
    worker = undefined;
    w.terminate();
    opts.onError?.(message);
    finish(null);
  };
  const start = (): Worker | undefined => {
    const path = opts.workerPath ?? renditionWorkerPath();
    if (!path) {
      opts.onError?.("the rendition worker's script is missing");
      return undefined;
    }
    let w: Worker;
    try {
      w = new Worker(path, { smol: true } as WorkerOptions);
    } catch (error) {
      opts.onError?.(`the rendition worker did not start: ${String(error)}`);
      return undefined;
    }
    (w as unknown as Bun.Worker).unref();
    w.onmessage = ({ data }: MessageEvent<RenditionAnswer>) => {
      if (w !== worker || current?.id !== data.id) return;
      if (data.ok) finish({ ...data.renditions, ms: data.ms, threadId: data.threadId });
      else {
        opts.onError?.(data.error);
        finish(null);
      }
    };
    w.onerror = (e: ErrorEvent) => drop(w, `the rendition worker failed: ${e.message}`);
    w.addEventListener("close", () => drop(w, "the rendition worker ended"));
    return w;
  };
  const next = () => {
    if (current || stopped) return;
    const job = queue.shift();
    if (!job) return;
    queuedBytes -= job.bytes.byteLength;
    current = job;
    worker ??= start();
    if (!worker) return finish(null);
    const w = worker;
    timer = setTimeout(() => drop(w, `the rendition worker took over ${timeoutMs} ms`), timeoutMs);
    const message: RenditionJob = { id: job.id, bytes: job.bytes };
    w.postMessage(message);
  };

  return {
    make(bytes) {
      if (stopped || queue.length >= maxQueue || queuedBytes + bytes.byteLength > maxQueueBytes) {
        opts.onError?.("the rendition queue is full");
        return Promise.resolve(null);
      }
      return new Promise((resolve) => {
        queue.push({ id: nextId++, bytes, resolve });
        queuedBytes += bytes.byteLength;
        next();
      });
    },
    stop() {
      stopped = true;
      const w = worker;
      worker = undefined;
      w?.terminate();
      for (const job of queue.splice(0)) job.resolve(null);
      queuedBytes = 0;
      finish(null);
    },
  };
}

const KEY = Symbol.for("atelier.renditionPool");
type G = typeof globalThis & { [KEY]?: RenditionPool };

export function renditionPool(onError?: (message: string) => void): RenditionPool {
  const g = globalThis as G;
  g[KEY] ??= createRenditionPool({ onError });
  return g[KEY];
}

export function stopRenditionPool(): void {
  const g = globalThis as G;
  g[KEY]?.stop();
  delete g[KEY];
}
