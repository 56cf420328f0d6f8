/** An Idempotency-Key's stored task (docs/design.md §10), read inside the create transaction. */
import { and, eq } from "drizzle-orm";
import { one, run, type Steps, type Tx } from "#db/client";
import { generations, idempotencyKeys } from "#db/schema";
import { AppError } from "~/lib/errors";
import type { GenerationRow } from "./views.server";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The task an Idempotency-Key already made (within 24 h), or undefined; the
 * same key with another body is a 409. An expired entry is forgotten.
 */
export function* findIdempotent(
  tx: Tx,
  userId: string,
  key: string,
  requestHash: string,
  now: number,
): Steps<GenerationRow | undefined> {
  const mine = and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key));
  const hit = yield* one(tx.select().from(idempotencyKeys).where(mine));
  if (!hit) return undefined;
  if (hit.createdAt <= now - IDEMPOTENCY_TTL_MS) {
    yield* run(tx.delete(idempotencyKeys).where(mine));
    return undefined;
  }
  if (hit.requestHash !== requestHash) throw new AppError("IDEMPOTENCY_MISMATCH");
  return yield* one(tx.select().from(generations).where(eq(generations.id, hit.genId)));
}
