/**
 * Live status (docs/design.md §10): a Server-Sent Events stream of one task's query
 * view, sent at once and again on every change, closed after the final one.
 * Changes made by any process or node are noticed by re-reading the row
 * (a primary-key read of three columns every `pollMs`, default 250 ms — the
 * same on SQLite and PostgreSQL); a change made in this process wakes the
 * stream at once.
 *
 * Bounds: at most `MAX_STREAMS_PER_USER` open streams per
 * user in this process — one more answers RATE_LIMITED before anything is
 * sent — and each stream closes after `MAX_STREAM_MS`; the `retry:` line
 * makes EventSource reconnect, so browsers follow a long task unchanged.
 * An open stream re-asks `authorized` every `recheckMs`:
 * a key revoked or a session ended meanwhile closes it, and the reconnect
 * meets the refusal every new request gets.
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { prepared } from "#db/prepared";
import { generations } from "#db/schema";
import { AppError } from "~/lib/errors";
import { onGenerationChange } from "./changes.server";
import { isFinished } from "./status";
import { getOwnGeneration, toQueryView } from "./views.server";

export const MAX_STREAMS_PER_USER = 10;
export const MAX_STREAM_MS = 10 * 60_000;
export const STREAM_RECHECK_MS = 500;

/** Open streams per user in this process. */
const open = new Map<string, number>();

export interface StreamOptions {
  pollMs?: number;
  heartbeatMs?: number;
  /** Close the stream after this long (the client reconnects). */
  maxLifetimeMs?: number;
  /** The client went away. */
  signal?: AbortSignal;
  /** Whether the caller's credential still works; asked every `recheckMs` (default STREAM_RECHECK_MS). */
  authorized?: () => Promise<boolean>;
  recheckMs?: number;
}

const encoder = new TextEncoder();
const frame = (id: number, data: unknown) =>
  encoder.encode(`id: ${id}\nevent: status\ndata: ${JSON.stringify(data)}\n\n`);

/** The stream of a task of this user; throws `generation not found` before anything is sent. */
export async function statusStream(
  db: Db,
  userId: string,
  genId: string,
  opts: StreamOptions = {},
): Promise<ReadableStream<Uint8Array>> {
  const pollMs = opts.pollMs ?? 250;
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const maxLifetimeMs = opts.maxLifetimeMs ?? MAX_STREAM_MS;
  const recheckMs = opts.recheckMs ?? STREAM_RECHECK_MS;
  const first = await getOwnGeneration(db, userId, genId);
  const count = open.get(userId) ?? 0;
  if (count >= MAX_STREAMS_PER_USER) throw new AppError("RATE_LIMITED");
  open.set(userId, count + 1);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    const n = (open.get(userId) ?? 1) - 1;
    if (n > 0) open.set(userId, n);
    else open.delete(userId);
  };
  const stamp = prepared(db, "generations.stamp", (d) =>
    d
      .select({ status: generations.status, startedAt: generations.startedAt, completedAt: generations.completedAt })
      .from(generations)
      .where(eq(generations.id, sql.placeholder("id"))),
  );
  const key = (r: { status: string; startedAt: Date | null; completedAt: Date | null } | undefined) =>
    r ? `${r.status}|${r.startedAt?.getTime() ?? ""}|${r.completedAt?.getTime() ?? ""}` : "gone";
  let closed = false;
  let cleanup = release;

  return new ReadableStream<Uint8Array>({
    async start(controller) {
      let seq = 0;
      let last = key(first);
      let status = first.status;
      let wake: (() => void) | undefined;
      const unsubscribe = onGenerationChange(genId, () => wake?.());
      const onAbort = () => wake?.();
      opts.signal?.addEventListener("abort", onAbort);
      cleanup = () => {
        closed = true;
        release();
        unsubscribe();
        opts.signal?.removeEventListener("abort", onAbort);
        wake?.();
      };
      const send = (chunk: Uint8Array) => {
        if (!closed) controller.enqueue(chunk);
      };
      send(encoder.encode(`retry: 1000\n\n`));
      send(frame(++seq, toQueryView(first)));
      let lastBeat = Date.now();
      let lastCheck = Date.now();
      const endAt = Date.now() + maxLifetimeMs;
      try {
        while (!closed && !opts.signal?.aborted && !isFinished(status) && Date.now() < endAt) {
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, pollMs);
            wake = () => {
              clearTimeout(t);
              resolve();
            };
          });
          wake = undefined;
          if (closed || opts.signal?.aborted) break;
          if (opts.authorized && Date.now() - lastCheck >= recheckMs) {
            lastCheck = Date.now();
            if (!(await opts.authorized())) break;
          }
          const now = await db.one(stamp, { id: genId });
          const k = key(now);
          if (!now) break; // deleted (the user's account went away)
          if (k !== last) {
            last = k;
            const row = await getOwnGeneration(db, userId, genId);
            status = row.status;
            send(frame(++seq, toQueryView(row)));
          } else if (Date.now() - lastBeat >= heartbeatMs) {
            send(encoder.encode(`: keep-alive\n\n`));
            lastBeat = Date.now();
          }
        }
      } finally {
        const wasClosed = closed;
        cleanup();
        if (!wasClosed) controller.close();
      }
    },
    cancel() {
      cleanup();
    },
  });
}
