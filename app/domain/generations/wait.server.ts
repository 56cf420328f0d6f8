/**
 * Waiting for a task to finish (docs/events.md, docs/decisions/111-prefer-wait.md): a generate with `Prefer: wait=N` and the MCP
 * `generate` tool hold their answer until the task completes or fails, or N seconds pass. The task is watched the
 * way the status stream watches it (stream.server.ts): a change made in this process wakes the waiter at once;
 * changes made by other processes and nodes are seen by re-reading the row's status every `pollMs` (one
 * primary-key read, the same on SQLite and PostgreSQL).
 *
 * Bounds: at most MAX_WAITS_PER_USER held waits per user and MAX_WAITS_PER_PROCESS in all in this process. A
 * waiter that finds no free slot does not wait: `Prefer` is a preference (RFC 7240), and the task, already
 * created, is answered as it stands. A wait ends early when the client goes away or the process shuts down.
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { prepared } from "#db/prepared";
import { generations } from "#db/schema";
import { shutdownSignal } from "~/lib/shutdown.server";
import { onGenerationChange } from "./changes.server";
import { isFinished } from "./status";
import { queryGeneration } from "./views.server";

export const MAX_WAIT_SECONDS = 60;
export const MAX_WAITS_PER_USER = 10;
export const MAX_WAITS_PER_PROCESS = 1000;
export const WAIT_POLL_MS = 250;

/**
 * The seconds a `Prefer` header asks to wait: `wait=N` (clamped to MAX_WAIT_SECONDS), bare `wait` =
 * MAX_WAIT_SECONDS; null when the header does not ask (or asks for 0 or a non-number).
 */
export function parsePreferWait(header: string | null): number | null {
  if (!header) return null;
  for (const part of header.split(",")) {
    const pref = part.split(";")[0]!.trim();
    const m = /^wait(?:\s*=\s*"?(\d{1,6})"?)?$/i.exec(pref);
    if (!m) continue;
    if (m[1] === undefined) return MAX_WAIT_SECONDS;
    const n = Number(m[1]);
    return n > 0 ? Math.min(n, MAX_WAIT_SECONDS) : null;
  }
  return null;
}

const held = new Map<string, number>();
let heldTotal = 0;

/** A slot for one wait of this user, or null when the user's or the process's bound is reached. */
export function takeWaitSlot(userId: string): (() => void) | null {
  const mine = held.get(userId) ?? 0;
  if (mine >= MAX_WAITS_PER_USER || heldTotal >= MAX_WAITS_PER_PROCESS || shutdownSignal.aborted) return null;
  held.set(userId, mine + 1);
  heldTotal++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    heldTotal--;
    const n = (held.get(userId) ?? 1) - 1;
    if (n > 0) held.set(userId, n);
    else held.delete(userId);
  };
}

/** Held waits in this process (for tests and health). */
export const heldWaits = () => heldTotal;

export interface WaitOptions {
  timeoutMs: number;
  /** The client went away. */
  signal?: AbortSignal;
  pollMs?: number;
}

/**
 * Resolves when the task is finished, the time is up, the client left or the process stops: true when it saw the
 * task finished. The caller reads the task afterwards (the answer is the query view either way).
 */
export async function waitForFinish(db: Db, genId: string, opts: WaitOptions): Promise<boolean> {
  const pollMs = opts.pollMs ?? WAIT_POLL_MS;
  const endAt = Date.now() + opts.timeoutMs;
  const statusOf = prepared(db, "generations.statusOnly", (d) =>
    d
      .select({ status: generations.status })
      .from(generations)
      .where(eq(generations.id, sql.placeholder("id"))),
  );
  let wake: (() => void) | undefined;
  const unsubscribe = onGenerationChange(genId, () => wake?.());
  const onAbort = () => wake?.();
  opts.signal?.addEventListener("abort", onAbort);
  shutdownSignal.addEventListener("abort", onAbort);
  const stopped = () => opts.signal?.aborted || shutdownSignal.aborted;
  try {
    while (!stopped()) {
      const row = await db.one(statusOf, { id: genId });
      if (!row) return false;
      if (isFinished(row.status)) return true;
      const left = endAt - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(pollMs, left));
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wake = undefined;
    }
    return false;
  } finally {
    unsubscribe();
    opts.signal?.removeEventListener("abort", onAbort);
    shutdownSignal.removeEventListener("abort", onAbort);
  }
}

/** Waits (as waitForFinish), then the task's query view: finished, or still pending or processing. */
export async function answerAfterWait(db: Db, userId: string, genId: string, opts: WaitOptions) {
  await waitForFinish(db, genId, opts);
  return queryGeneration(db, userId, genId);
}
