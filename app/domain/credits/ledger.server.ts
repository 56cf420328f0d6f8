/**
 * The credits ledger (DESIGN §3). Grants carry an amount, what remains, an
 * optional expiry and a source; a debit per completed generation records how
 * it was drawn from the grants. Every function here is synchronous: callers
 * run them inside `db.transaction(...)` (bun-sqlite transactions are sync).
 */
import { and, asc, eq, gt, inArray, isNull, or, sql } from "drizzle-orm";
import { randomUUID } from "node:crypto";
import type { Db } from "#db/client";
import { creditAllocations, creditDebits, creditGrants, generations } from "#db/schema";
import { AppError } from "~/lib/errors";
import type { Clock } from "~/lib/clock";

/** Rows changed by a drizzle `.run()` on bun-sqlite (typed as void upstream). */
export const changes = (res: unknown): number => (res as { changes: number }).changes;

/** A transaction handle or the database itself: both run the same statements. */
export type Tx = Pick<Db, "select" | "insert" | "update" | "delete" | "run" | "get" | "all">;

export type GrantSource = "signup" | "checkin" | "admin" | "order";

export interface GrantInput {
  userId: string;
  amount: number;
  source: GrantSource;
  /** Absolute expiry (ms since epoch); null or undefined: never expires. */
  expiresAt?: number | null;
  note?: string | null;
}

const unexpired = (now: number) => or(isNull(creditGrants.expiresAt), gt(creditGrants.expiresAt, new Date(now)));

export function grantCredits(tx: Tx, input: GrantInput, clock: Clock) {
  if (!Number.isInteger(input.amount) || input.amount <= 0) throw new AppError("INVALID_PARAMS", { reason: "credits must be a positive integer" });
  const row = {
    id: randomUUID(),
    userId: input.userId,
    amount: input.amount,
    remaining: input.amount,
    source: input.source,
    note: input.note ?? null,
    expiresAt: input.expiresAt == null ? null : new Date(input.expiresAt),
    createdAt: new Date(clock.now()),
  };
  tx.insert(creditGrants).values(row).run();
  return row;
}

/** `left_credits`: Σ remaining of unexpired grants. `total_credits`: Σ amount of every grant ever made. */
export function getCredits(tx: Tx, userId: string, clock: Clock): { left_credits: number; total_credits: number } {
  const now = clock.now();
  const row = tx
    .select({
      left: sql<number>`coalesce(sum(case when ${creditGrants.expiresAt} is null or ${creditGrants.expiresAt} > ${now} then ${creditGrants.remaining} else 0 end), 0)`,
      total: sql<number>`coalesce(sum(${creditGrants.amount}), 0)`,
    })
    .from(creditGrants)
    .where(eq(creditGrants.userId, userId))
    .get();
  return { left_credits: Number(row?.left ?? 0), total_credits: Number(row?.total ?? 0) };
}

/** Credits held by the user's unfinished (pending or processing) tasks. */
export function reservedCredits(tx: Tx, userId: string): number {
  const row = tx
    .select({ n: sql<number>`coalesce(sum(${generations.creditsCost}), 0)` })
    .from(generations)
    .where(and(eq(generations.userId, userId), inArray(generations.status, ["pending", "processing"])))
    .get();
  return Number(row?.n ?? 0);
}

/** available = left_credits − reserved. */
export function availableCredits(tx: Tx, userId: string, clock: Clock): number {
  return getCredits(tx, userId, clock).left_credits - reservedCredits(tx, userId);
}

/**
 * The reservation check the generation module calls inside its create
 * transaction, right before inserting the task (which is the reservation).
 * Throws `insufficient credits: need <cost>, have <available>`.
 */
export function assertCanReserve(tx: Tx, userId: string, cost: number, clock: Clock): void {
  const have = availableCredits(tx, userId, clock);
  if (have < cost) throw new AppError("INSUFFICIENT_CREDITS", { need: cost, have: Math.max(0, have) });
}

export interface DebitResult {
  debitId: string;
  amount: number;
  /** What was drawn from grants; less than amount only if grants expired since the reservation. */
  charged: number;
  /** False when this gen_id had been debited before (the call changed nothing). */
  applied: boolean;
}

/**
 * Debits a completed generation exactly once (unique gen_id), drawing from
 * unexpired grants soonest-expiring first, never-expiring last, then oldest
 * first. If grants expired meanwhile it takes what is left, never below zero.
 */
export function debitForGeneration(tx: Tx, input: { genId: string; userId: string; amount: number }, clock: Clock): DebitResult {
  const existing = tx.select().from(creditDebits).where(eq(creditDebits.genId, input.genId)).get();
  if (existing) return { debitId: existing.id, amount: existing.amount, charged: existing.charged, applied: false };

  const now = clock.now();
  const grants = tx
    .select({ id: creditGrants.id, remaining: creditGrants.remaining })
    .from(creditGrants)
    .where(and(eq(creditGrants.userId, input.userId), gt(creditGrants.remaining, 0), unexpired(now)))
    .orderBy(sql`${creditGrants.expiresAt} is null`, asc(creditGrants.expiresAt), asc(creditGrants.createdAt), asc(creditGrants.id))
    .all();

  const debitId = randomUUID();
  let need = input.amount;
  const allocations: { grantId: string; amount: number }[] = [];
  for (const g of grants) {
    if (need === 0) break;
    const take = Math.min(need, g.remaining);
    allocations.push({ grantId: g.id, amount: take });
    need -= take;
  }
  const charged = input.amount - need;
  tx.insert(creditDebits)
    .values({ id: debitId, userId: input.userId, genId: input.genId, amount: input.amount, charged, createdAt: new Date(now) })
    .run();
  for (const a of allocations) {
    const res = tx
      .update(creditGrants)
      .set({ remaining: sql`${creditGrants.remaining} - ${a.amount}` })
      .where(and(eq(creditGrants.id, a.grantId), sql`${creditGrants.remaining} >= ${a.amount}`))
      .run();
    if (changes(res) !== 1) throw new Error(`ledger: grant ${a.grantId} changed under a debit`);
    tx.insert(creditAllocations).values({ debitId, grantId: a.grantId, amount: a.amount }).run();
  }
  return { debitId, amount: input.amount, charged, applied: true };
}
