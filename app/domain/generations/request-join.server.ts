/**
 * A retry is never a second charge (docs/decisions/158-retry-joins-request.md): the tasks a request made are kept
 * under the request's fingerprint, so that the same request again — the same user and API key, the same endpoint,
 * the same tasks asked for — joins them (waits for and answers the same tasks) instead of creating and paying again.
 *
 * - Without an Idempotency-Key (`auto:` entries) a request joins while the first is held and for AUTO_JOIN_MS after
 *   it answered; a first request that never recorded its answer (its process died) counts as answered
 *   MAX_WAIT_SECONDS after it began.
 * - With an Idempotency-Key (`key:` entries) the key is remembered IDEMPOTENCY_TTL_MS (24 h, as the JSON API's);
 *   the same key with another request is IDEMPOTENCY_MISMATCH. A new key never joins an earlier request.
 *
 * The entry is written in the transaction that creates the tasks, under the user's row lock (SQLite's write lock,
 * PostgreSQL's `FOR UPDATE` of the user row): of two identical requests at once, on any process or node, one
 * creates and the other finds its entry.
 */
import { and, eq, inArray, isNull } from "drizzle-orm";
import { type Db, lockRow, many, one, run, type Steps, type Tx } from "#db/client";
import { generations, requestJoins } from "#db/schema";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { rememberTaskOrigin } from "~/lib/tracing.server";
import { tasksQueued } from "./changes.server";
import { assertCanCreate, assertNotSuspended, type CreateArgs, insertPendingTask } from "./create.server";
import { requestHash } from "./idempotency";
import { IDEMPOTENCY_TTL_MS } from "./idempotency.server";
import { MAX_WAIT_SECONDS } from "./wait.server";

export const AUTO_JOIN_MS = 10 * 60 * 1000;

export interface JoinSpec {
  /** The endpoint and the API key (a session's requests: `session`). */
  scope: string;
  /** `auto:<fingerprint>` or `key:<Idempotency-Key>`. */
  key: string;
  requestHash: string;
}

/** The join entry of a request: by its Idempotency-Key when it sent one, else by its fingerprint. */
export function joinSpec(
  endpoint: string,
  apiKeyId: string | null,
  request: unknown,
  idempotencyKey?: string,
): JoinSpec {
  const hash = requestHash(request);
  return {
    scope: `${endpoint} ${apiKeyId ?? "session"}`,
    key: idempotencyKey === undefined ? `auto:${hash}` : `key:${idempotencyKey}`,
    requestHash: hash,
  };
}

type JoinRow = typeof requestJoins.$inferSelect;

/** Whether an entry still joins at `now`. */
export function joinable(row: Pick<JoinRow, "key" | "createdAt" | "answeredAt">, now: number): boolean {
  if (row.key.startsWith("key:")) return row.createdAt > now - IDEMPOTENCY_TTL_MS;
  const answered = row.answeredAt ?? row.createdAt + MAX_WAIT_SECONDS * 1000;
  return answered > now - AUTO_JOIN_MS;
}

const entryOf = (userId: string, spec: JoinSpec) =>
  and(eq(requestJoins.userId, userId), eq(requestJoins.scope, spec.scope), eq(requestJoins.key, spec.key));

/** Tasks that ended without a charge (failed, canceled among them): a request whose tasks all ended so is not joined by a retry. */
const UNPAID = ["failed"];

/**
 * The task ids an earlier identical request made (still joinable), or undefined; a stale entry is removed. An
 * `auto:` entry whose tasks all ended unpaid is stale too: retrying a failure charges nothing, and may succeed.
 */
function* findJoin(tx: Tx, userId: string, spec: JoinSpec, now: number): Steps<string[] | undefined> {
  const hit = yield* one(tx.select().from(requestJoins).where(entryOf(userId, spec)));
  if (!hit) return undefined;
  const ids = JSON.parse(hit.genIds) as string[];
  let stale = !joinable(hit, now);
  if (!stale && hit.key.startsWith("auto:")) {
    const rows = yield* many(
      tx.select({ status: generations.status }).from(generations).where(inArray(generations.id, ids)),
    );
    stale = rows.every((row) => UNPAID.includes(row.status));
  }
  if (stale) {
    yield* run(tx.delete(requestJoins).where(entryOf(userId, spec)));
    return undefined;
  }
  if (hit.requestHash !== spec.requestHash) throw new AppError("IDEMPOTENCY_MISMATCH");
  return ids;
}

/**
 * `count` tasks of one request, all or none (as createGenerationBatch), or the tasks of the identical request it
 * joins: `joined` says which.
 */
export async function createOrJoinBatch(
  db: Db,
  args: Omit<CreateArgs, "idempotency"> & { count: number },
  spec: JoinSpec,
  clock: Clock,
): Promise<{ ids: string[]; joined: boolean }> {
  if (!Number.isInteger(args.count) || args.count < 1)
    throw new Error(`createOrJoinBatch: invalid count ${args.count}`);
  const result = await db.tx(function* (tx) {
    yield* lockRow("user", args.userId);
    yield* assertNotSuspended(tx, args.userId);
    const now = clock.now();
    const prior = yield* findJoin(tx, args.userId, spec, now);
    if (prior) return { ids: prior, joined: true };
    yield* assertCanCreate(tx, args, args.count, now, clock);
    const ids: string[] = [];
    for (let i = 0; i < args.count; i++) ids.push((yield* insertPendingTask(tx, args, now)).id);
    yield* run(
      tx.insert(requestJoins).values({
        userId: args.userId,
        scope: spec.scope,
        key: spec.key,
        requestHash: spec.requestHash,
        genIds: JSON.stringify(ids),
        createdAt: now,
        answeredAt: null,
      }),
    );
    return { ids, joined: false };
  });
  if (!result.joined) {
    for (const id of result.ids) rememberTaskOrigin(id);
    tasksQueued();
  }
  return result;
}

/** The first request answered: identical ones join for AUTO_JOIN_MS more (a later answer does not extend it). */
export async function markJoinAnswered(db: Db, userId: string, spec: JoinSpec, clock: Clock): Promise<void> {
  await db.exec(
    run(
      db
        .update(requestJoins)
        .set({ answeredAt: clock.now() })
        .where(and(entryOf(userId, spec), isNull(requestJoins.answeredAt))),
    ),
  );
}
