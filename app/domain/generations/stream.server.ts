/**
 * Live status (DESIGN §10): a Server-Sent Events stream of one task's query
 * view, sent at once and again on every change, closed after the final one.
 * Changes made by any process or node are noticed by re-reading the row
 * (a primary-key read of three columns every `pollMs`, default 250 ms — the
 * same on SQLite and PostgreSQL); a change made in this process wakes the
 * stream at once.
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { prepared } from "#db/prepared";
import { generations } from "#db/schema";
import { onGenerationChange } from "./changes.server";
import { getOwnGeneration, toQueryView } from "./generations.server";
import { isFinished } from "./status";

export interface StreamOptions {
  pollMs?: number;
  heartbeatMs?: number;
  /** The client went away. */
  signal?: AbortSignal;
}

const encoder = new TextEncoder();
const frame = (id: number, data: unknown) => encoder.encode(`id: ${id}\nevent: status\ndata: ${JSON.stringify(data)}\n\n`);

/** The stream of a task of this user; throws `generation not found` before anything is sent. */
export async function statusStream(db: Db, userId: string, genId: string, opts: StreamOptions = {}): Promise<ReadableStream<Uint8Array>> {
  const pollMs = opts.pollMs ?? 250;
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const first = await getOwnGeneration(db, userId, genId);
  const stamp = prepared(db, "generations.stamp", (d) =>
    d
      .select({ status: generations.status, startedAt: generations.startedAt, completedAt: generations.completedAt })
      .from(generations)
      .where(eq(generations.id, sql.placeholder("id"))),
  );
  const key = (r: { status: string; startedAt: Date | null; completedAt: Date | null } | undefined) =>
    r ? `${r.status}|${r.startedAt?.getTime() ?? ""}|${r.completedAt?.getTime() ?? ""}` : "gone";
  let closed = false;
  let cleanup = () => {};

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
      try {
        while (!closed && !opts.signal?.aborted && !isFinished(status)) {
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, pollMs);
            wake = () => {
              clearTimeout(t);
              resolve();
            };
          });
          wake = undefined;
          if (closed || opts.signal?.aborted) break;
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
