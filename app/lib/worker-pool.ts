/**
 * One worker thread that does CPU-heavy work on pictures away from the server's thread
 * (docs/decisions/131-placeholders-on-a-worker-thread.md): started on first use and kept; jobs wait their turn in
 * a queue bounded by count and by bytes. Whatever goes wrong — the queue is full, the worker's script is missing,
 * it cannot start, it dies, or a job takes longer than `timeoutMs` (the worker is then stuck, and replaced) — the
 * job's answer is null and the reason goes to `onError`. Used by the placeholder and rendition pools; the work
 * itself lives in the worker's script.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** What every job carries: its bytes (counted against the queue's byte bound). */
export interface WorkerInput {
  bytes: Uint8Array;
}

/** What every worker answers: the job's id, then whatever the pool's `read` understands. */
export interface WorkerAnswer {
  id: number;
}

export interface WorkerPoolOptions<Answer extends WorkerAnswer, Out> {
  /** Names the worker in error messages ("the rendition worker ended"). */
  label: string;
  /** The worker's script; undefined when it cannot be found. */
  workerPath: string | undefined;
  timeoutMs: number;
  maxQueue: number;
  maxQueueBytes: number;
  /** Turns the worker's answer into the job's result, or an error message (the job's result is then null). */
  read(answer: Answer): { value: Out } | { error: string };
  onError?: (message: string) => void;
}

export interface WorkerPool<In extends WorkerInput, Out> {
  /** The job's result, or null (the reason went to `onError`). */
  run(input: In): Promise<Out | null>;
  /** Ends the worker; what is waiting gets null. */
  stop(): void;
}

/**
 * Where a worker's script is: beside the entry point (build/<name>.js next to build/atelier.js, the compiled
 * executable's embedded entry, app/<name>.ts next to app/cli.ts), else in the source tree (the dev server, tests).
 */
export function workerScriptPath(name: string): string | undefined {
  const here = import.meta.dirname ?? dirname(fileURLToPath(import.meta.url));
  const main = dirname(Bun.main);
  return [
    join(main, `${name}.js`),
    join(main, `${name}.ts`),
    join(here, `../${name}.ts`),
    join(process.cwd(), `app/${name}.ts`),
  ].find((p) => existsSync(p));
}

interface Job<In, Out> {
  id: number;
  input: In;
  resolve(r: Out | null): void;
}

export function createWorkerPool<In extends WorkerInput, Answer extends WorkerAnswer, Out>(
  opts: WorkerPoolOptions<Answer, Out>,
): WorkerPool<In, Out> {
  const queue: Job<In, Out>[] = [];
  let queuedBytes = 0;
  let worker: Worker | undefined;
  let current: Job<In, Out> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let nextId = 1;
  let stopped = false;

  const finish = (result: Out | null) => {
    clearTimeout(timer);
    const job = current;
    current = undefined;
    job?.resolve(result);
    next();
  };
  /** The worker is of no more use (it died, failed or is stuck): the next job starts a new one. */
  const drop = (w: Worker | undefined, message: string) => {
    if (!w || w !== worker) return;
    worker = undefined;
    w.terminate();
    opts.onError?.(message);
    finish(null);
  };
  const start = (): Worker | undefined => {
    if (!opts.workerPath) {
      opts.onError?.(`the ${opts.label} worker's script is missing`);
      return undefined;
    }
    let w: Worker;
    try {
      w = new Worker(opts.workerPath, { smol: true } as WorkerOptions);
    } catch (error) {
      opts.onError?.(`the ${opts.label} worker did not start: ${String(error)}`);
      return undefined;
    }
    // Never what keeps a process alive: a pending job holds its own timer.
    (w as unknown as Bun.Worker).unref();
    w.onmessage = ({ data }: MessageEvent<Answer>) => {
      if (w !== worker || current?.id !== data.id) return;
      const read = opts.read(data);
      if ("value" in read) finish(read.value);
      else {
        opts.onError?.(read.error);
        finish(null);
      }
    };
    w.onerror = (e: ErrorEvent) => drop(w, `the ${opts.label} worker failed: ${e.message}`);
    w.addEventListener("close", () => drop(w, `the ${opts.label} worker ended`));
    return w;
  };
  const next = () => {
    if (current || stopped) return;
    const job = queue.shift();
    if (!job) return;
    queuedBytes -= job.input.bytes.byteLength;
    current = job;
    worker ??= start();
    if (!worker) return finish(null);
    const w = worker;
    timer = setTimeout(() => drop(w, `the ${opts.label} worker took over ${opts.timeoutMs} ms`), opts.timeoutMs);
    w.postMessage({ ...job.input, id: job.id });
  };

  return {
    run(input) {
      const bytes = input.bytes.byteLength;
      if (stopped || queue.length >= opts.maxQueue || queuedBytes + bytes > opts.maxQueueBytes) {
        opts.onError?.(`the ${opts.label} queue is full`);
        return Promise.resolve(null);
      }
      return new Promise((resolve) => {
        queue.push({ id: nextId++, input, resolve });
        queuedBytes += bytes;
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

/** The process's one pool under `key` (one across dev-server reloads), made on first use; `stop` ends and forgets it. */
export function processSingleton<T extends { stop(): void }>(name: string) {
  const key = Symbol.for(name);
  type G = typeof globalThis & { [key]?: T };
  return {
    get(make: () => T): T {
      const g = globalThis as G;
      g[key] ??= make();
      return g[key] as T;
    },
    stop(): void {
      const g = globalThis as G;
      g[key]?.stop();
      delete g[key];
    },
  };
}
