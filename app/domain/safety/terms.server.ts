/**
 * The operator's blocked terms (docs/safety.md "Blocked terms"): stored in the database, so every node reads the same
 * list at its next prompt (no cache to go stale), and each change is written to the audit trail in the same
 * transaction.
 */
import { randomBytes } from "node:crypto";
import { asc, desc, eq } from "drizzle-orm";
import { type Db, run } from "#db/client";
import { safetyEvents, safetyTerms } from "#db/schema";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { normalizeTerm } from "./matcher";

export const MAX_TERM_LENGTH = 200;

export type SafetyEventKind =
  | "term_blocked"
  | "term_unblocked"
  | "prompt_refused"
  | "result_refused"
  | "upload_refused";

export interface SafetyEventInput {
  kind: SafetyEventKind;
  /** The rule: `blocked_term`, a moderation category, `provider`, `classifier`. Never the matched term or a score. */
  category?: string | null;
  /** Who: the admin for a policy change, the user for a refusal. */
  userId?: string | null;
  /** What, for admins: a term for a policy change, a task id for a result. */
  detail?: string | null;
}

export const newEventId = () => `sev_${randomBytes(12).toString("base64url")}`;

const eventRow = (e: SafetyEventInput, now: number) => ({
  id: newEventId(),
  kind: e.kind,
  category: e.category ?? null,
  userId: e.userId ?? null,
  detail: e.detail?.slice(0, 500) ?? null,
  createdAt: new Date(now),
});

function checkedTerm(term: unknown): { term: string; normalized: string } {
  if (typeof term !== "string" || term.length > MAX_TERM_LENGTH) throw new AppError("SAFETY_TERM_INVALID");
  const normalized = normalizeTerm(term);
  if (!normalized) throw new AppError("SAFETY_TERM_INVALID");
  return { term: term.trim(), normalized };
}

/** Adds a term (a term already there, in any spelling that folds the same, is kept as it was). */
export async function blockTerm(
  db: Db,
  raw: unknown,
  adminId: string | null,
  clock: Clock,
): Promise<{ term: string; normalized: string; added: boolean }> {
  const { term, normalized } = checkedTerm(raw);
  const now = clock.now();
  const added = await db.tx(function* (t) {
    const n = yield* run(
      t
        .insert(safetyTerms)
        .values({ normalized, term, createdAt: new Date(now) })
        .onConflictDoNothing({ target: safetyTerms.normalized }),
    );
    if (n > 0)
      yield* run(t.insert(safetyEvents).values(eventRow({ kind: "term_blocked", userId: adminId, detail: term }, now)));
    return n > 0;
  });
  return { term, normalized, added };
}

/** Removes the term that folds like `raw`; SAFETY_TERM_NOT_FOUND when there is none. */
export async function unblockTerm(
  db: Db,
  raw: unknown,
  adminId: string | null,
  clock: Clock,
): Promise<{ normalized: string }> {
  const { normalized } = checkedTerm(raw);
  const now = clock.now();
  const removed = await db.tx(function* (t) {
    const n = yield* run(t.delete(safetyTerms).where(eq(safetyTerms.normalized, normalized)));
    if (n > 0)
      yield* run(
        t.insert(safetyEvents).values(eventRow({ kind: "term_unblocked", userId: adminId, detail: normalized }, now)),
      );
    return n > 0;
  });
  if (!removed) throw new AppError("SAFETY_TERM_NOT_FOUND");
  return { normalized };
}

export async function listTerms(db: Db): Promise<{ term: string; normalized: string; createdAt: Date }[]> {
  return db.many(
    db
      .select({ term: safetyTerms.term, normalized: safetyTerms.normalized, createdAt: safetyTerms.createdAt })
      .from(safetyTerms)
      .orderBy(asc(safetyTerms.normalized)),
  );
}

export async function normalizedTerms(db: Db): Promise<string[]> {
  const rows = await db.many(db.select({ normalized: safetyTerms.normalized }).from(safetyTerms));
  return rows.map((r) => r.normalized);
}

/** Records a refusal or a change outside a transaction; a failure to record is logged by the caller, never fatal. */
export async function recordSafetyEvent(db: Db, e: SafetyEventInput, clock: Clock): Promise<void> {
  await db.run(db.insert(safetyEvents).values(eventRow(e, clock.now())));
}

export async function recentSafetyEvents(db: Db, limit = 100) {
  return db.many(db.select().from(safetyEvents).orderBy(desc(safetyEvents.createdAt)).limit(limit));
}
