/**
 * SQLite WAL checkpoints off the request thread (docs/performance.md
 * "WAL checkpoints off the request thread").
 *
 * With SQLite's default, the connection whose commit leaves 1,000 pages in the
 * WAL runs the checkpoint itself: it fsyncs the WAL, copies the pages into the
 * database file and fsyncs that (synchronous = NORMAL syncs only there). On the
 * serving connection that is the event loop, stalled 5–30 ms every thousand or
 * so writes, and every key request writes (its rate-limit row). Here the
 * serving connection's automatic checkpoint is only a backstop (BACKSTOP_PAGES,
 * should this thread be gone), and a Bun Worker with its own connection
 * checkpoints instead, every TICK_MS if anything was committed since
 * (`PRAGMA data_version`):
 *
 * - PASSIVE: copies what it can without waiting for or blocking anyone. This is
 *   where the fsyncs and the copying happen.
 * - RESTART once the WAL holds RESTART_PAGES and the PASSIVE copied all of it:
 *   under steady writes a PASSIVE never catches up (commits land while it
 *   fsyncs), and SQLite starts the WAL over only when one has, so the WAL would
 *   grow for as long as the load lasts. RESTART holds the write lock while it
 *   copies and syncs what was committed since the last PASSIVE. That sync took
 *   10–55 ms here when megabytes had been committed during the PASSIVE's own
 *   sync, so up to CATCH_UP_ROUNDS more PASSIVEs first copy what landed
 *   meanwhile, each shorter than the one before, until fewer than
 *   CATCH_UP_FRAMES frames came in during one: RESTART then holds the lock for
 *   a few ms. The serving connection's transactions wait for it on a timer,
 *   off the event loop (db/sqlite.ts, sqliteTransactions). The next writer then
 *   starts the WAL from its head (it fsyncs the 32-byte header: the only sync
 *   left on the request thread).
 * - TRUNCATE after IDLE_TICKS ticks without a commit, to give the WAL file's
 *   disk space back, and once more when the database closes.
 *
 * The worker's code is inline (a Blob URL), so the same thing runs from source,
 * from the CommonJS bundle of `bun run start`, under the dev server and inside
 * the compiled executable, which has no worker file to load. The worker is
 * unref'd: it never keeps a process alive.
 */

/** The serving connection's own automatic checkpoint (pages, 4 KiB each: ≈ 40 MiB of WAL) when the worker lags or is gone. */
export const BACKSTOP_PAGES = 10_000;
const TICK_MS = 200;
const IDLE_TICKS = 25;
const RESTART_PAGES = 4000;
const BUSY_MS = 5;
const CATCH_UP_ROUNDS = 4;
const CATCH_UP_FRAMES = 64;

const WORKER_SOURCE = `
import { Database } from "bun:sqlite";
const CATCH_UP_ROUNDS = ${CATCH_UP_ROUNDS}, CATCH_UP_FRAMES = ${CATCH_UP_FRAMES};
let db, timer, version, idle = 0, restartPages, idleTicks, lastError;
const checkpoint = (mode) => db.query("PRAGMA wal_checkpoint(" + mode + ")").get();
function tick() {
  try {
    const v = db.query("PRAGMA data_version").get().data_version;
    if (v !== version) {
      version = v;
      idle = 0;
      let r = checkpoint("PASSIVE");
      if (r.log >= restartPages && r.checkpointed === r.log) {
        // Catch up on what was committed during that PASSIVE's syncs, so that RESTART, which holds the
        // write lock, has only a few frames to copy and sync.
        for (let i = 0; i < CATCH_UP_ROUNDS; i++) {
          const before = r.log;
          r = checkpoint("PASSIVE");
          if (r.checkpointed !== r.log || r.log - before <= CATCH_UP_FRAMES) break;
        }
        if (r.checkpointed === r.log) checkpoint("RESTART");
      }
    } else if (++idle === idleTicks) checkpoint("TRUNCATE");
    lastError = undefined;
  } catch (error) {
    // Once per distinct error, not every tick while it lasts.
    const message = String((error && error.message) || error);
    if (message !== lastError) postMessage({ type: "error", message });
    lastError = message;
  }
}
self.onmessage = ({ data }) => {
  if (data.type === "start") {
    ({ restartPages, idleTicks } = data);
    db = new Database(data.path);
    db.exec("PRAGMA busy_timeout = ${BUSY_MS}");
    db.exec("PRAGMA wal_autocheckpoint = 0");
    version = db.query("PRAGMA data_version").get().data_version;
    timer = setInterval(tick, data.tickMs);
    postMessage({ type: "started" });
  } else if (data.type === "stop") {
    clearInterval(timer);
    try {
      checkpoint("TRUNCATE");
    } catch {}
    db?.close();
    postMessage({ type: "stopped" });
  }
};
`;

export interface CheckpointerOptions {
  onError?: (message: string) => void;
  /** Tests: a faster tick and a smaller WAL. */
  tickMs?: number;
  restartPages?: number;
}

export interface Checkpointer {
  /** Resolves once the worker has opened its connection (tests; serving does not wait). */
  readonly started: Promise<void>;
  /** A last checkpoint, then the worker's connection closed and the thread ended (at most `timeoutMs`). */
  stop(timeoutMs?: number): Promise<void>;
}

/** Starts the checkpointing thread for the SQLite file at `path` (journal_mode = WAL already set). */
export function startCheckpointer(path: string, opts: CheckpointerOptions = {}): Checkpointer {
  const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
  const worker = new Worker(url, { smol: true, ref: false } as WorkerOptions);
  (worker as unknown as Bun.Worker).unref();
  let started!: () => void;
  let stopped!: () => void;
  // The Blob URL must live until the worker has loaded its code.
  const startedP = new Promise<void>((r) => (started = r)).finally(() => URL.revokeObjectURL(url));
  const stoppedP = new Promise<void>((r) => (stopped = r));
  worker.onmessage = ({ data }: MessageEvent<{ type: string; message?: string }>) => {
    if (data.type === "started") started();
    else if (data.type === "stopped") stopped();
    else if (data.type === "error") opts.onError?.(data.message ?? "");
  };
  worker.onerror = (e: ErrorEvent) => opts.onError?.(e.message);
  worker.postMessage({
    type: "start",
    path,
    tickMs: opts.tickMs ?? TICK_MS,
    restartPages: opts.restartPages ?? RESTART_PAGES,
    idleTicks: IDLE_TICKS,
  });
  let stopping: Promise<void> | undefined;
  return {
    started: startedP,
    stop(timeoutMs = 2000) {
      stopping ??= (async () => {
        worker.postMessage({ type: "stop" });
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([stoppedP, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
        clearTimeout(timer);
        worker.terminate();
      })();
      return stopping;
    },
  };
}
