/**
 * The credits ledger (docs/design.md §3). Grants carry an amount, what remains, an
 * optional expiry and a source; a debit per completed generation records how
 * it was drawn from the grants. Functions here are statement sequences
 * (generators, docs/data-layer.md): callers run them inside `db.tx(...)`
 * with `yield*`, or alone with `db.exec(...)`.
 *
 * Expiry boundary: a grant is spendable while `now < expires_at`; at the exact
 * expiry instant it is gone.
 */

import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, gt, inArray, isNull, or, sql } from "drizzle-orm";
import { many, one, run, type Steps, type Tx } from "#db/client";
import { prepared } from "#db/prepared";
import {
  creditAllocations,
  creditDebits,
  creditGrants,
  generations,
  userCreditStats,
  userGenerationStats,
} from "#db/schema";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";

export type { Tx };

export type GrantSource = "signup" | "checkin" | "admin" | "order" | "referral" | "code";
export const GRANT_SOURCES: readonly GrantSource[] = ["signup", "checkin", "admin", "order", "referral", "code"];

export interface GrantInput {
  userId: string;
  amount: number;
  source: GrantSource;
  /** Absolute expiry (ms since epoch); null or undefined: never expires. */
  expiresAt?: number | null;
  note?: string | null;
}

export type GrantRow = typeof creditGrants.$inferSelect;

const _unexpired = (now: number) => or(isNull(creditGrants.expiresAt), gt(creditGrants.expiresAt, new Date(now)));

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n);

export function* grantCredits(tx: Tx, input: GrantInput, clock: Clock): Steps<GrantRow> {
  if (!isCount(input.amount) || input.amount <= 0) {
    throw new AppError("INVALID_PARAMS", { reason: "credits must be a positive integer" });
  }
  if (!GRANT_SOURCES.includes(input.source)) throw new Error(`ledger: unknown grant source ${input.source}`);
  const now = clock.now();
  if (input.expiresAt != null && !(Number.isFinite(input.expiresAt) && input.expiresAt > now)) {
    throw new AppError("INVALID_PARAMS", { reason: "expiry must be in the future" });
  }
  const row: GrantRow = {
    id: randomUUID(),
    userId: input.userId,
    amount: input.amount,
    remaining: input.amount,
    source: input.source,
    note: input.note ?? null,
    expiresAt: input.expiresAt == null ? null : new Date(input.expiresAt),
    createdAt: new Date(now),
  };
  yield* run(tx.insert(creditGrants).values(row));
  return row;
}

export interface Credits {
  left_credits: number;
  total_credits: number;
}

/**
 * Grants with credit left, as the partial index credit_grants_live_idx holds them (`remaining > 0`, a literal as in
 * the index): the balance, the reservation and the debit read these only, never the user's used-up grants.
 */
const LIVE = sql`${creditGrants.remaining} > 0`;
const unexpiredLeft = sql<number>`coalesce(sum(case when ${creditGrants.expiresAt} is null or ${creditGrants.expiresAt} > ${sql.placeholder("now")} then ${creditGrants.remaining} else 0 end), 0)`;
/** Σ amount of every grant the user ever had: user_credit_stats.granted, kept by triggers on credit_grants. */
const granted$ = sql<number>`coalesce((select ${userCreditStats.granted} from ${userCreditStats} where ${userCreditStats.userId} = ${sql.placeholder("userId")}), 0)`;

/** `left_credits`: Σ remaining of unexpired grants. `total_credits`: Σ amount of every grant ever made. */
export function* getCredits(tx: Tx, userId: string, clock: Clock): Steps<Credits> {
  const now = clock.now();
  // Read on every balance request and every reservation: prepared once per connection.
  const q = prepared(tx, "ledger.getCredits", (t) =>
    t
      .select({ left: unexpiredLeft, total: granted$ })
      .from(creditGrants)
      .where(and(eq(creditGrants.userId, sql.placeholder("userId")), LIVE)),
  );
  const row = yield* one(q, { now, userId });
  return { left_credits: Number(row?.left ?? 0), total_credits: Number(row?.total ?? 0) };
}

/** Balances of many users in one query (admin lists). Users without grants are absent. */
export function* getCreditsMany(tx: Tx, userIds: string[], clock: Clock): Steps<Map<string, Credits>> {
  const out = new Map<string, Credits>();
  if (userIds.length === 0) return out;
  const now = clock.now();
  const totals = yield* many(
    tx
      .select({ userId: userCreditStats.userId, total: userCreditStats.granted })
      .from(userCreditStats)
      .where(inArray(userCreditStats.userId, userIds)),
  );
  const left = yield* many(
    tx
      .select({
        userId: creditGrants.userId,
        left: sql<number>`coalesce(sum(case when ${creditGrants.expiresAt} is null or ${creditGrants.expiresAt} > ${now} then ${creditGrants.remaining} else 0 end), 0)`,
      })
      .from(creditGrants)
      .where(and(inArray(creditGrants.userId, userIds), LIVE))
      .groupBy(creditGrants.userId),
  );
  const leftOf = new Map(left.map((r) => [r.userId, Number(r.left)]));
  for (const r of totals)
    out.set(r.userId, { left_credits: leftOf.get(r.userId) ?? 0, total_credits: Number(r.total) });
  return out;
}

/**
 * Credits held by the user's unfinished (pending or processing) tasks: `user_generation_stats.held`, which the
 * database's triggers keep equal to Σ credits_cost of those tasks in the transaction of every write to them
 * (db/migrations 0010). No row: no task, nothing held.
 */
const held$ = sql<number>`coalesce((select ${userGenerationStats.held} from ${userGenerationStats} where ${userGenerationStats.userId} = ${sql.placeholder("userId")}), 0)`;

export function* reservedCredits(tx: Tx, userId: string): Steps<number> {
  const q = prepared(tx, "ledger.reservedCredits", (t) =>
    t
      .select({ n: userGenerationStats.held })
      .from(userGenerationStats)
      .where(eq(userGenerationStats.userId, sql.placeholder("userId"))),
  );
  const row = yield* one(q, { userId });
  return Number(row?.n ?? 0);
}

/**
 * available = left_credits − reserved (negative when grants expired under running tasks), in one statement:
 * the reservation's check reads the grants' sum and the held credits at once (one round trip on PostgreSQL).
 */
export function* availableCredits(tx: Tx, userId: string, clock: Clock): Steps<number> {
  const q = prepared(tx, "ledger.available", (t) =>
    t
      .select({ left: unexpiredLeft, held: held$ })
      .from(creditGrants)
      .where(and(eq(creditGrants.userId, sql.placeholder("userId")), LIVE)),
  );
  const row = yield* one(q, { now: clock.now(), userId });
  return Number(row?.left ?? 0) - Number(row?.held ?? 0);
}

/** The one balance the UI shows: what can be spent now, and what running tasks hold beside it. */
export function* balanceOf(tx: Tx, userId: string, clock: Clock): Steps<{ available: number; held: number }> {
  const held = yield* reservedCredits(tx, userId);
  const { left_credits } = yield* getCredits(tx, userId, clock);
  return { available: Math.max(0, left_credits - held), held };
}

/**
 * The reservation check the generation module calls inside its create
 * transaction (with the user's row locked), right before inserting the task (which
 * is the reservation). Throws `insufficient credits: need <cost>, have <available>`
 * with available floored at 0.
 */
export function* assertCanReserve(tx: Tx, userId: string, cost: number, clock: Clock): Steps<void> {
  if (!isCount(cost) || cost < 0) throw new Error(`ledger: invalid cost ${cost}`);
  const have = yield* availableCredits(tx, userId, clock);
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

// The debit's statements run once per completed task (the job runner's hottest writes): built once per connection.
const $ = sql.placeholder;
const debitStatements = {
  insert: (t: Tx) =>
    t
      .insert(creditDebits)
      .values({
        id: $("id"),
        userId: $("userId"),
        genId: $("genId"),
        amount: $("amount"),
        charged: 0,
        createdAt: $("createdAt"),
      })
      .onConflictDoNothing({ target: creditDebits.genId }),
  grants: (t: Tx) =>
    t
      .select({ id: creditGrants.id, remaining: creditGrants.remaining })
      .from(creditGrants)
      .where(
        and(
          eq(creditGrants.userId, $("userId")),
          LIVE,
          or(isNull(creditGrants.expiresAt), gt(creditGrants.expiresAt, $("now"))),
        ),
      )
      .orderBy(
        sql`${creditGrants.expiresAt} is null`,
        asc(creditGrants.expiresAt),
        asc(creditGrants.createdAt),
        asc(creditGrants.id),
      ),
  take: (t: Tx) =>
    t
      .update(creditGrants)
      .set({ remaining: sql`${creditGrants.remaining} - ${$("take")}` })
      .where(and(eq(creditGrants.id, $("id")), sql`${creditGrants.remaining} >= ${$("take")}`)),
  allocate: (t: Tx) =>
    t.insert(creditAllocations).values({ debitId: $("debitId"), grantId: $("grantId"), amount: $("amount") }),
  charged: (t: Tx) =>
    t
      .update(creditDebits)
      .set({ charged: sql`${$("charged")}` })
      .where(eq(creditDebits.id, $("id"))),
};

/**
 * Debits a completed generation exactly once (unique gen_id), drawing from
 * unexpired grants soonest-expiring first, never-expiring last, then oldest
 * first. If grants expired meanwhile it takes what is left, never below zero.
 * Call it in the same transaction as the guarded `processing → completed` update.
 */
export function* debitForGeneration(
  tx: Tx,
  input: { genId: string; userId: string; amount: number },
  clock: Clock,
): Steps<DebitResult> {
  if (!isCount(input.amount) || input.amount < 0) throw new Error(`ledger: invalid debit amount ${input.amount}`);
  const now = clock.now();
  const debitId = randomUUID();
  // The unique gen_id decides who debits: a second call (or a racing process) inserts nothing.
  const inserted = yield* run(prepared(tx, "ledger.debit.insert", debitStatements.insert), {
    id: debitId,
    userId: input.userId,
    genId: input.genId,
    amount: input.amount,
    createdAt: new Date(now),
  });
  if (inserted === 0) {
    const existing = (yield* one(tx.select().from(creditDebits).where(eq(creditDebits.genId, input.genId))))!;
    return { debitId: existing.id, amount: existing.amount, charged: existing.charged, applied: false };
  }

  const grants = yield* many(prepared(tx, "ledger.debit.grants", debitStatements.grants), {
    userId: input.userId,
    now,
  });

  let need = input.amount;
  for (const g of grants) {
    if (need === 0) break;
    const take = Math.min(need, g.remaining);
    const changed = yield* run(prepared(tx, "ledger.debit.take", debitStatements.take), { id: g.id, take });
    if (changed !== 1) throw new Error(`ledger: grant ${g.id} changed under a debit`);
    yield* run(prepared(tx, "ledger.debit.allocate", debitStatements.allocate), {
      debitId,
      grantId: g.id,
      amount: take,
    });
    need -= take;
  }
  const charged = input.amount - need;
  yield* run(prepared(tx, "ledger.debit.charged", debitStatements.charged), { id: debitId, charged });
  return { debitId, amount: input.amount, charged, applied: true };
}

/**
 * Undoes a debit whose service was never delivered (a paid demo call whose
 * upstream failed): each allocation goes back to its grant and the debit row
 * is deleted, once (the guarded delete decides). Returns whether it undid one.
 */
export function* voidDebit(tx: Tx, genId: string): Steps<boolean> {
  const debit = yield* one(tx.select({ id: creditDebits.id }).from(creditDebits).where(eq(creditDebits.genId, genId)));
  if (!debit) return false;
  const allocations = yield* many(tx.select().from(creditAllocations).where(eq(creditAllocations.debitId, debit.id)));
  if ((yield* run(tx.delete(creditDebits).where(eq(creditDebits.id, debit.id)))) !== 1) return false;
  for (const a of allocations) {
    yield* run(
      tx
        .update(creditGrants)
        .set({ remaining: sql`${creditGrants.remaining} + ${a.amount}` })
        .where(eq(creditGrants.id, a.grantId)),
    );
  }
  return true;
}

/**
 * Takes back up to `amount` credits from one grant (a refunded order), never
 * below zero, recorded as a debit keyed by `key` (unique like a gen_id, so a
 * repeated call changes nothing). Returns what was actually taken.
 */
export function* clawBackGrant(
  tx: Tx,
  input: { key: string; userId: string; grantId: string; amount: number },
  clock: Clock,
): Steps<number> {
  if (!isCount(input.amount) || input.amount <= 0) return 0;
  const grant = yield* one(
    tx.select({ remaining: creditGrants.remaining }).from(creditGrants).where(eq(creditGrants.id, input.grantId)),
  );
  const take = Math.min(input.amount, grant?.remaining ?? 0);
  const debitId = randomUUID();
  const inserted = yield* run(
    tx
      .insert(creditDebits)
      .values({
        id: debitId,
        userId: input.userId,
        genId: input.key,
        amount: input.amount,
        charged: take,
        createdAt: new Date(clock.now()),
      })
      .onConflictDoNothing({ target: creditDebits.genId }),
  );
  if (inserted === 0) return 0;
  if (take > 0) {
    const changed = yield* run(
      tx
        .update(creditGrants)
        .set({ remaining: sql`${creditGrants.remaining} - ${take}` })
        .where(and(eq(creditGrants.id, input.grantId), sql`${creditGrants.remaining} >= ${take}`)),
    );
    if (changed !== 1) throw new Error(`ledger: grant ${input.grantId} changed under a claw-back`);
    yield* run(tx.insert(creditAllocations).values({ debitId, grantId: input.grantId, amount: take }));
  }
  return take;
}

// ------------------------------------------------------------------ statements for the user center

export interface GrantEntry {
  id: string;
  source: GrantSource;
  amount: number;
  remaining: number;
  note: string | null;
  created_at: string;
  expires_at: string | null;
  expired: boolean;
}

export interface DebitEntry {
  id: string;
  gen_id: string;
  amount: number;
  charged: number;
  created_at: string;
  /** What the generation was, when it still exists. */
  generation: { ai_type: string; provider: string; model: string; prompt: string } | null;
}

/** The user's grants, newest first. */
export function* listGrants(tx: Tx, userId: string, clock: Clock, limit = 100): Steps<GrantEntry[]> {
  const now = clock.now();
  const rows = yield* many(
    tx
      .select()
      .from(creditGrants)
      .where(eq(creditGrants.userId, userId))
      .orderBy(desc(creditGrants.createdAt), desc(creditGrants.id))
      .limit(limit),
  );
  return rows.map((g) => ({
    id: g.id,
    source: g.source as GrantSource,
    amount: g.amount,
    remaining: g.remaining,
    note: g.note,
    created_at: g.createdAt.toISOString(),
    expires_at: g.expiresAt ? g.expiresAt.toISOString() : null,
    expired: g.expiresAt !== null && g.expiresAt.getTime() <= now,
  }));
}

/** The user's debits with the generation each paid for, newest first. */
export function* listDebits(tx: Tx, userId: string, limit = 100): Steps<DebitEntry[]> {
  const rows = yield* many(
    tx
      .select({
        id: creditDebits.id,
        genId: creditDebits.genId,
        amount: creditDebits.amount,
        charged: creditDebits.charged,
        createdAt: creditDebits.createdAt,
        aiType: generations.aiType,
        provider: generations.provider,
        model: generations.model,
        prompt: generations.prompt,
      })
      .from(creditDebits)
      .leftJoin(generations, eq(generations.id, creditDebits.genId))
      .where(eq(creditDebits.userId, userId))
      .orderBy(desc(creditDebits.createdAt), desc(creditDebits.id))
      .limit(limit),
  );
  return rows.map((d) => ({
    id: d.id,
    gen_id: d.genId,
    amount: d.amount,
    charged: d.charged,
    created_at: d.createdAt.toISOString(),
    generation:
      d.aiType !== null ? { ai_type: d.aiType, provider: d.provider!, model: d.model!, prompt: d.prompt! } : null,
  }));
}
