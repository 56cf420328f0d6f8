/**
 * Blurred placeholders computed on a worker thread (docs/decisions/131-placeholders-on-a-worker-thread.md): a
 * ThumbHash of a 4 MP result costs over a second of CPU (placeholder.server.ts), which on the server's thread would
 * hold every request that long at each completion. One worker, started on first use and kept; pictures wait their
 * turn in a bounded queue. Whatever goes wrong (the queue is full, the worker cannot start, dies or takes longer
 * than `timeoutMs`) the picture gets no placeholder: the task itself is done already.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

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

/**
 * Where the worker's script is: beside the entry point (build/placeholder-worker.js next to build/atelier.js, the
 * compiled executable's embedded entry, app/placeholder-worker.ts next to app/cli.ts), else in the source tree
 * (the dev server, tests).
 */
export function placeholderWorkerPath(): string | undefined {
  const here = import.meta.dirname ?? dirname(fileURLToPath(import.meta.url));
  const main = dirname(Bun.main);
  const candidates = [
    join(main, "placeholder-worker.js"),
    join(main, "placeholder-worker.ts"),
    join(here, "../../placeholder-worker.ts"),
    join(process.cwd(), "app/placeholder-worker.ts"),
  ];
  return candidates.find((p) => existsSync(p));
}

interface Job extends PlaceholderJob {
  resolve(r: PlaceholderResult | null): void;
}

export function createPlaceholderPool(opts: PlaceholderPoolOptions = {}): PlaceholderPool {
  const timeoutMs = opts.timeoutMs ?? PLACEHOLDER_TIMEOUT_MS;
  const maxQueue = opts.maxQueue ?? PLACEHOLDER_QUEUE;
  const maxQueueBytes = opts.maxQueueBytes ?? PLACEHOLDER_QUEUE_BYTES;
  let queuedBytes = 0;
  const queue: Job[] = [];
  let worker: Worker | undefined;
  let current: Job | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let nextId = 1;
  let stopped = false;

  const finish = (result: PlaceholderResult | null) => {
    clearTimeout(timer);
    const job = current;
    current = undefined;
    job?.resolve(result);
    next();
  };
  /** The worker is of no more use (it died, failed or is stuck): the next picture starts a new one. */
  const drop = (w: Worker | undefined, message: string) => {
    if (!w || w !== worker) return;
    worker = undefined;
    w.terminate();
    opts.onError?.(message);
    finish(null);
  };
  const start = (): Worker | undefined => {
    const path = opts.workerPath ?? placeholderWorkerPath();
    if (!path) {
      opts.onError?.("the placeholder worker's script is missing");
      return undefined;
    }
    let w: Worker;
    try {
      w = new Worker(path, { smol: true } as WorkerOptions);
    } catch (error) {
      opts.onError?.(`the placeholder worker did not start: ${String(error)}`);
      return undefined;
    }
    // Never what keeps a process alive: a pending picture holds its own timer.
    (w as unknown as Bun.Worker).unref();
    w.onmessage = ({ data }: MessageEvent<PlaceholderAnswer>) => {
      if (w === worker && current?.id === data.id)
        finish({ placeholder: data.placeholder, threadId: data.threadId, ms: data.ms });
    };
    w.onerror = (e: ErrorEvent) => drop(w, `the placeholder worker failed: ${e.message}`);
    w.addEventListener("close", () => drop(w, "the placeholder worker ended"));
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
    timer = setTimeout(() => drop(w, `the placeholder worker took over ${timeoutMs} ms`), timeoutMs);
    const message: PlaceholderJob = { id: job.id, bytes: job.bytes, contentType: job.contentType };
    w.postMessage(message);
  };

  return {
    compute(bytes, contentType) {
      if (stopped || queue.length >= maxQueue || queuedBytes + bytes.byteLength > maxQueueBytes)
        return Promise.resolve(null);
      return new Promise((resolve) => {
        queue.push({ id: nextId++, bytes, contentType, resolve });
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

const KEY = Symbol.for("atelier.placeholderPool");
type G = typeof globalThis & { [KEY]?: PlaceholderPool };

/** The process's pool (one across dev-server reloads), started on first use. */
export function placeholderPool(onError?: (message: string) => void): PlaceholderPool {
  const g = globalThis as G;
  g[KEY] ??= createPlaceholderPool({ onError });
  return g[KEY];
}

/** Ends the process's worker, if it was started (shutdown: a worker thread must not outlive its server). */
export function stopPlaceholderPool(): void {
  const g = globalThis as G;
  g[KEY]?.stop();
  delete g[KEY];
}
