/**
 * A worker thread with its own database connection that calls the SAME domain
 * functions the routes and the job runner call — createGeneration, checkIn,
 * claimDue + completeGeneration — never a copy of their transactions. It opens
 * the database once (a SQLite file, or a pool on a PostgreSQL URL), then runs
 * one race per message: it waits on a shared gate so every worker starts at
 * once, and reports what it got.
 */
import { type Db, openDatabase, openPostgres } from "#db/client";
import { findOffering } from "~/domain/catalog";
import { checkIn } from "~/domain/credits/checkin.server";
import { claimDue } from "~/domain/generations/claim.server";
import { createGeneration } from "~/domain/generations/create.server";
import { completeGeneration } from "~/domain/generations/transitions.server";
import { isAppError } from "~/lib/errors";

declare var self: Worker;

export type WorkerMessage =
  /** A SQLite file, or a postgres:// URL (a pool of `poolMax` connections: a PostgreSQL worker runs its attempts at once). */
  { kind: "open"; path: string; poolMax: number } | ({ kind: "race" } & RaceJob) | { kind: "close" };

export interface RaceJob {
  op: "create" | "checkin" | "claim-complete";
  userId: string;
  attempts: number;
  now: number;
  owner: string;
  gate: SharedArrayBuffer;
}

export interface RaceResult {
  done: true;
  ok: number;
  refused: number;
  messages: string[];
  /** Task ids this worker claimed (claim-complete). */
  claimed: string[];
}

const offering = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!;
const config = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
let db: Db;
let concurrent = false;

async function run(job: RaceJob): Promise<RaceResult> {
  const clock = { now: () => job.now };
  const flag = new Int32Array(job.gate);
  self.postMessage({ ready: true });
  Atomics.wait(flag, 0, 0);
  const out: RaceResult = { done: true, ok: 0, refused: 0, messages: [], claimed: [] };
  if (job.op === "claim-complete") {
    for (;;) {
      const batch = await claimDue(db, { owner: job.owner, limit: 2, leaseMs: 600_000, probe: false }, clock);
      if (batch.length === 0) break;
      for (const t of batch) {
        out.claimed.push(t.row.id);
        if (
          await completeGeneration(
            db,
            { id: t.row.id, owner: job.owner, resultUrls: [`https://media.example/${t.row.id}.png`] },
            clock,
          )
        )
          out.ok++;
        else out.refused++;
      }
    }
    return out;
  }
  const attempt = async () => {
    try {
      if (job.op === "checkin") {
        if ((await checkIn(db, job.userId, clock)).added) out.ok++;
        else out.refused++;
      } else {
        await createGeneration(
          db,
          { userId: job.userId, input: { offering, prompt: "race", options: {} }, mode: "simulated", config },
          clock,
        );
        out.ok++;
      }
    } catch (e) {
      if (!isAppError(e)) throw e;
      out.refused++;
      out.messages.push(e.message);
    }
  };
  // SQLite runs a connection's transactions one after another; a PostgreSQL pool runs them at once.
  if (concurrent) await Promise.all(Array.from({ length: job.attempts }, attempt));
  else for (let i = 0; i < job.attempts; i++) await attempt();
  return out;
}

self.onmessage = async (event: MessageEvent<WorkerMessage>) => {
  const m = event.data;
  if (m.kind === "open") {
    concurrent = m.path.startsWith("postgres://");
    db = concurrent
      ? await openPostgres(m.path, { migrate: false, poolMax: m.poolMax })
      : openDatabase(m.path, { migrate: false, busyTimeoutMs: 30_000 });
    if (concurrent) await Promise.all(Array.from({ length: m.poolMax }, () => db.ping())); // connect the pool before the gate opens
    self.postMessage({ opened: true });
  } else if (m.kind === "race") {
    self.postMessage(await run(m));
  } else {
    await db.close();
    self.postMessage({ closed: true });
  }
};
