/**
 * Structured logs: one JSON object per line on stdout, carrying the id of the
 * request being served (set by the HTTP server through AsyncLocalStorage).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { writeSync } from "node:fs";

type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

const KEY = Symbol.for("atelier.requestContext");
/** `clientIp` is the socket's peer address (the HTTP server sets it; routes never see the socket). */
export interface RequestContext {
  requestId: string;
  clientIp?: string;
}
type G = typeof globalThis & { [KEY]?: AsyncLocalStorage<RequestContext> };
const g = globalThis as G;
/** Shared through globalThis so every bundle in the process sees the same store. */
export const requestContext: AsyncLocalStorage<RequestContext> = (g[KEY] ??= new AsyncLocalStorage());

export const currentRequestId = (): string | undefined => requestContext.getStore()?.requestId;
export const currentClientIp = (): string | undefined => requestContext.getStore()?.clientIp;

function threshold(): number {
  return ORDER[(process.env.LOG_LEVEL as Level) ?? "info"] ?? ORDER.info;
}

/**
 * Access lines wait here and leave in one write at most ACCESS_FLUSH_MS later (or once ACCESS_FLUSH_BYTES are
 * waiting): a write per request to a pipe costs more than the rest of a cached request's logging. Any other log
 * line flushes them first, so the order of lines is kept; the process's exit flushes what is left.
 */
const ACCESS_FLUSH_MS = 25;
const ACCESS_FLUSH_BYTES = 64 * 1024;
let accessPending = "";
let accessTimer: ReturnType<typeof setTimeout> | undefined;

export function flushAccessLog(): void {
  if (accessTimer) {
    clearTimeout(accessTimer);
    accessTimer = undefined;
  }
  if (!accessPending) return;
  const out = accessPending;
  accessPending = "";
  process.stdout.write(out);
}

process.on("exit", () => {
  if (!accessPending) return;
  try {
    writeSync(1, accessPending);
  } catch {
    // stdout already closed: nothing left to tell.
  }
  accessPending = "";
});

function write(level: Level, msg: string, fields?: Record<string, unknown>) {
  if (ORDER[level] < threshold()) return;
  if (accessPending) flushAccessLog();
  const requestId = currentRequestId();
  const line: Record<string, unknown> = { t: new Date().toISOString(), level, msg };
  if (requestId) line.request_id = requestId;
  if (fields) {
    for (const [k, v] of Object.entries(fields)) {
      line[k] = v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v;
    }
  }
  const out = `${JSON.stringify(line)}\n`;
  if (level === "error" || level === "warn") process.stderr.write(out);
  else process.stdout.write(out);
}

/**
 * The access log line of one request, byte for byte what `log.info("request", {request_id, method, path, status,
 * ms})` writes outside a request's context, built as one template: it is written for every request.
 */
export function accessLine(
  t: Date,
  requestId: string,
  method: string,
  path: string,
  status: number,
  ms: number,
): string {
  return `{"t":"${t.toISOString()}","level":"info","msg":"request","request_id":${JSON.stringify(requestId)},"method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"ms":${JSON.stringify(ms)}}\n`;
}

export const log = {
  debug: (msg: string, f?: Record<string, unknown>) => write("debug", msg, f),
  info: (msg: string, f?: Record<string, unknown>) => write("info", msg, f),
  warn: (msg: string, f?: Record<string, unknown>) => write("warn", msg, f),
  error: (msg: string, f?: Record<string, unknown>) => write("error", msg, f),
  /** One request's access log line (info). */
  access(requestId: string, method: string, path: string, status: number, ms: number) {
    if (ORDER.info < threshold()) return;
    accessPending += accessLine(new Date(), requestId, method, path, status, ms);
    if (accessPending.length >= ACCESS_FLUSH_BYTES) flushAccessLog();
    else accessTimer ??= setTimeout(flushAccessLog, ACCESS_FLUSH_MS);
  },
};

/**
 * A warning that repeats every tick while a cause lasts (a database restart):
 * logged at the first failure and then at most once per `everyMs` with the count
 * of failures since; one info line when it works again.
 */
export function repeatedWarning(msg: string, everyMs = 10_000) {
  let failures = 0;
  let lastAt = 0;
  return {
    fail(error: unknown) {
      failures++;
      const now = Date.now();
      if (failures === 1 || now - lastAt >= everyMs) {
        lastAt = now;
        write("warn", msg, { error, failures });
      }
    },
    ok() {
      if (failures === 0) return;
      write("info", `${msg}: working again`, { failures });
      failures = 0;
    },
  };
}
