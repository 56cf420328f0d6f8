/**
 * Creating a task (spec §4.1, docs/design.md §1, §3): checking and reserving credits in one write transaction,
 * with an optional Idempotency-Key replaying the task it made.
 */
import { eq, sql } from "drizzle-orm";
import { type Db, isUniqueViolation, lockRow, one, run, type Steps, type Tx } from "#db/client";
import { prepared } from "#db/prepared";
import { generations, idempotencyKeys, user } from "#db/schema";
import { assertKeyCap } from "~/domain/api-keys/caps.server";
import { assertActivePlan } from "~/domain/catalog/plan.server";
import { assertCanReserve } from "~/domain/credits/ledger.server";
import { pinInputs } from "~/domain/files/inputs.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";
import { rememberTaskOrigin } from "~/lib/tracing.server";
import { tasksQueued } from "./changes.server";
import { findIdempotent } from "./idempotency.server";
import { assertUnpaidAllowance } from "./unpaid.server";
import { deadlineFor, type GenerateInput, taskPrice } from "./validate.server";
import type { GenerationRow } from "./views.server";

export interface CreateArgs {
  userId: string;
  input: GenerateInput;
  mode: "live" | "simulated";
  config: Pick<Config, "IMAGE_DEADLINE_MS" | "VIDEO_DEADLINE_MS">;
  /** An Idempotency-Key and the hash of its request body (docs/design.md §10). */
  idempotency?: { key: string; requestHash: string };
  /** The API key creating the task: recorded on it, and its spending cap checked (caps.server.ts). */
  apiKeyId?: string | null;
  /** The task's image inputs (option name → file id), pinned in the creation transaction (files/inputs.server.ts). */
  inputs?: Record<string, string> | null;
}

/**
 * Creates a pending task. The balance check and the insert (which is the
 * reservation) share one write transaction that holds the user's row lock
 * (SQLite: the immediate transaction's write lock), so concurrent creates can
 * never overdraw.
 */
export async function createGeneration(db: Db, args: CreateArgs, clock: Clock): Promise<GenerationRow> {
  return (await createOrReplay(db, args, clock)).row;
}

/**
 * createGeneration with an optional Idempotency-Key: inside the same write
 * transaction, a key seen before replays its task (nothing created or
 * reserved); a new key is stored with the task. The (user, key) primary key
 * decides concurrent duplicates: on an engine where two transactions can
 * race (PostgreSQL), the loser's insert fails and it runs again as a replay.
 */
export async function createOrReplay(
  db: Db,
  args: CreateArgs,
  clock: Clock,
): Promise<{ row: GenerationRow; replayed: boolean }> {
  let result: { row: GenerationRow; replayed: boolean };
  try {
    result = await createOrReplayOnce(db, args, clock);
  } catch (e) {
    if (!args.idempotency || !isUniqueViolation(e)) throw e;
    result = await createOrReplayOnce(db, args, clock);
  }
  if (!result.replayed) {
    rememberTaskOrigin(result.row.id);
    tasksQueued();
  }
  return result;
}

// The reservation's insert, the hottest write: built once (building a drizzle insert costs more than running it).
const v = (name: keyof typeof generations.$inferInsert) => sql.placeholder(name);
const insertTask = (t: Tx) =>
  t
    .insert(generations)
    .values({
      id: v("id"),
      userId: v("userId"),
      aiType: v("aiType"),
      provider: v("provider"),
      model: v("model"),
      prompt: v("prompt"),
      options: v("options"),
      status: v("status"),
      creditsCost: v("creditsCost"),
      mode: v("mode"),
      deadlineAt: v("deadlineAt"),
      createdAt: v("createdAt"),
      apiKeyId: v("apiKeyId"),
      inputs: v("inputs"),
      compareId: v("compareId"),
    })
    .returning();

/**
 * The insert that is the reservation, inside the caller's write transaction (which holds the user's row lock and
 * made the checks): pins the task's input files and writes the pending row.
 */
export function* insertPendingTask(
  tx: Tx,
  args: Pick<CreateArgs, "userId" | "input" | "mode" | "config" | "apiKeyId" | "inputs"> & { compareId?: string },
  now: number,
): Steps<GenerationRow> {
  const { offering, prompt, options } = args.input;
  yield* pinInputs(tx, args.userId, args.inputs ?? null);
  const row = {
    id: Bun.randomUUIDv7(),
    userId: args.userId,
    aiType: offering.aiType,
    provider: offering.provider,
    model: offering.model,
    prompt,
    options: JSON.stringify(options),
    status: "pending",
    creditsCost: taskPrice(args.input),
    mode: args.mode,
    deadlineAt: now + deadlineFor(offering.aiType, args.config),
    createdAt: new Date(now),
    apiKeyId: args.apiKeyId ?? null,
    inputs: args.inputs ? JSON.stringify(args.inputs) : null,
    compareId: args.compareId ?? null,
  } satisfies typeof generations.$inferInsert;
  return (yield* one(prepared(tx, "generations.createWithKey", insertTask), row))!;
}

/** Whether the user's account is suspended, read under their row lock (a suspension sweeps what is unfinished after). */
export function* assertNotSuspended(tx: Tx, userId: string): Steps<void> {
  const owner = yield* one(prepared(tx, "users.suspendedAt", suspendedAt), { id: userId });
  if (owner?.at) throw new AppError("ACCOUNT_SUSPENDED");
}

const suspendedAt = (d: Tx) =>
  d
    .select({ at: user.suspendedAt })
    .from(user)
    .where(eq(user.id, sql.placeholder("id")));

/**
 * `count` tasks of one request, all or none (the images of one `/v1/images/generations` call): the checks take the
 * whole cost at once — the balance, the key's cap — in the one transaction that inserts every task, so a shortfall
 * leaves nothing behind and no task can start (or finish, and be charged) while its siblings are still refused.
 */
export async function createGenerationBatch(
  db: Db,
  args: Omit<CreateArgs, "idempotency"> & { count: number },
  clock: Clock,
): Promise<GenerationRow[]> {
  if (!Number.isInteger(args.count) || args.count < 1)
    throw new Error(`createGenerationBatch: invalid count ${args.count}`);
  const rows = await db.tx(function* (tx) {
    yield* lockRow("user", args.userId);
    yield* assertNotSuspended(tx, args.userId);
    const now = clock.now();
    yield* assertCanCreate(tx, args, args.count, now, clock);
    const made: GenerationRow[] = [];
    for (let i = 0; i < args.count; i++) made.push(yield* insertPendingTask(tx, args, now));
    return made;
  });
  for (const row of rows) rememberTaskOrigin(row.id);
  tasksQueued();
  return rows;
}

/**
 * The checks of a create, under the user's row lock, for `count` tasks of one offering: the plan the model needs,
 * the unpaid-task allowance, and the whole cost against the balance and the key's cap.
 */
function* assertCanCreate(
  tx: Tx,
  args: Pick<CreateArgs, "userId" | "input" | "apiKeyId">,
  count: number,
  now: number,
  clock: Clock,
): Steps<void> {
  const { offering } = args.input;
  if (offering.requiresPlan) yield* assertActivePlan(tx, args.userId, offering.model, now);
  yield* assertUnpaidAllowance(tx, args.userId, now);
  const total = taskPrice(args.input) * count;
  yield* assertCanReserve(tx, args.userId, total, clock);
  if (args.apiKeyId) yield* assertKeyCap(tx, args.apiKeyId, total, now);
}

function createOrReplayOnce(
  db: Db,
  args: CreateArgs,
  clock: Clock,
): Promise<{ row: GenerationRow; replayed: boolean }> {
  const idem = args.idempotency;
  return db.tx(function* (tx) {
    yield* lockRow("user", args.userId);
    // A suspension commits its mark, then cancels what is unfinished: a task must not slip in after that sweep.
    yield* assertNotSuspended(tx, args.userId);
    const now = clock.now();
    if (idem) {
      const prior = yield* findIdempotent(tx, args.userId, idem.key, idem.requestHash, now);
      if (prior) return { row: prior, replayed: true };
    }
    yield* assertCanCreate(tx, args, 1, now, clock);
    const created = yield* insertPendingTask(tx, args, now);
    if (idem)
      yield* run(
        tx.insert(idempotencyKeys).values({
          userId: args.userId,
          key: idem.key,
          requestHash: idem.requestHash,
          genId: created.id,
          createdAt: now,
        }),
      );
    return { row: created, replayed: false };
  });
}
