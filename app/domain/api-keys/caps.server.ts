/**
 * A key's spending cap (docs/decisions/115-scoped-keys-and-caps.md): `credit_limit` credits per `credit_period`
 * (the UTC day or month). What counts: the credits of the tasks the key created in the period that hold credits
 * (pending, processing) or were charged (completed); failed and canceled tasks cost nothing and count nothing.
 * Checked inside the task's creation transaction, which holds the owner's row lock: creates of one user (and so
 * of one key) are serialised, and 20 parallel creates can never pass the cap, on either engine.
 */
import { and, eq, gte, isNotNull, ne, sql } from "drizzle-orm";
import { type Db, one, type Steps, type Tx } from "#db/client";
import { apiKeys, generations } from "#db/schema";
import { AppError } from "~/lib/errors";
import { type CreditPeriod, periodStart } from "./scopes";

export interface KeyCap {
  credits: number;
  period: CreditPeriod;
}

/** The stored cap of a key row, or null. */
export function capOf(row: { creditLimit: number | null; creditPeriod: string | null }): KeyCap | null {
  if (row.creditLimit === null || row.creditLimit === undefined) return null;
  return { credits: Number(row.creditLimit), period: row.creditPeriod === "month" ? "month" : "day" };
}

const usedQuery = (tx: Tx, keyId: string, since: number) =>
  tx
    .select({ used: sql<number | string | null>`sum(${generations.creditsCost})` })
    .from(generations)
    .where(
      and(
        eq(generations.apiKeyId, keyId),
        isNotNull(generations.apiKeyId),
        gte(generations.createdAt, new Date(since)),
        ne(generations.status, "failed"),
      ),
    );

/** Credits the key's tasks of the current period hold or were charged. */
export function* keyCreditsUsed(tx: Tx, keyId: string, period: CreditPeriod, now: number): Steps<number> {
  const r = yield* one(usedQuery(tx, keyId, periodStart(period, now)));
  return Number(r?.used ?? 0);
}

/** Outside a transaction (the key list). */
export async function keyCreditsUsedNow(db: Db, keyId: string, period: CreditPeriod, now: number): Promise<number> {
  return db.exec(keyCreditsUsed(db, keyId, period, now));
}

/**
 * Refuses a task of `cost` credits that would take the key past its cap. Run inside the creation transaction,
 * after the owner's row lock: the cap is read there too, so a change made a moment ago applies.
 */
export function* assertKeyCap(tx: Tx, keyId: string, cost: number, now: number): Steps<void> {
  const row = yield* one(
    tx
      .select({ creditLimit: apiKeys.creditLimit, creditPeriod: apiKeys.creditPeriod })
      .from(apiKeys)
      .where(eq(apiKeys.id, keyId)),
  );
  const cap = row && capOf(row);
  if (!cap) return;
  const used = yield* keyCreditsUsed(tx, keyId, cap.period, now);
  if (used + cost > cap.credits) {
    throw new AppError("KEY_CREDIT_LIMIT", { used, limit: cap.credits, period: cap.period });
  }
}
