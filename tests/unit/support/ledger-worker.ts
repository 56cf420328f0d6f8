/**
 * A worker thread with its own SQLite connection to a shared database file:
 * it waits for the start signal, then runs the reservation transaction (as the
 * generation module does) or the check-in, and reports what happened.
 */
import { randomUUID } from "node:crypto";
import { openDatabase, run } from "#db/client";
import { generations } from "#db/schema";
import { checkIn } from "~/domain/credits/checkin.server";
import { assertCanReserve } from "~/domain/credits/ledger.server";
import { isAppError } from "~/lib/errors";

declare var self: Worker;

export interface Job {
  op: "reserve" | "checkin";
  path: string;
  userId: string;
  cost: number;
  attempts: number;
  now: number;
  /** Index into the shared flag array: workers spin until it is set. */
  gate: SharedArrayBuffer;
}

self.onmessage = async (event: MessageEvent<Job>) => {
  const job = event.data;
  const db = openDatabase(job.path, { migrate: false, busyTimeoutMs: 30_000 });
  const clock = { now: () => job.now };
  const flag = new Int32Array(job.gate);
  self.postMessage({ ready: true });
  Atomics.wait(flag, 0, 0);
  let ok = 0;
  let refused = 0;
  const messages: string[] = [];
  for (let i = 0; i < job.attempts; i++) {
    if (job.op === "checkin") {
      if ((await checkIn(db, job.userId, clock)).added) ok++;
      else refused++;
      continue;
    }
    try {
      await db.tx(function* (tx) {
          yield* assertCanReserve(tx, job.userId, job.cost, clock);
          yield* run(
            tx
            .insert(generations)
            .values({
              id: randomUUID(),
              userId: job.userId,
              aiType: "image",
              provider: "replicate",
              model: "black-forest-labs/flux-schnell",
              prompt: "concurrency",
              status: "pending",
              creditsCost: job.cost,
              deadlineAt: job.now + 600_000,
              createdAt: new Date(job.now),
            }),
          );
      });
      ok++;
    } catch (e) {
      if (!isAppError(e)) throw e;
      refused++;
      messages.push(e.message);
    }
  }
  await db.close();
  self.postMessage({ done: true, ok, refused, messages });
};
