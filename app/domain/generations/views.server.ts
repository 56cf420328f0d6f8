/** A task as clients see it: the query response (spec §4.2) and a history entry (spec §4.3). */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { prepared } from "#db/prepared";
import { generations } from "#db/schema";
import { inputsView } from "~/domain/files/links.server";
import { iso } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { taskLinks } from "./links";
import type { GenerationStatus } from "./status";

export type GenerationRow = typeof generations.$inferSelect;

/** A task of this user, or `generation not found` (also for another user's id: no hint that it exists). */
export async function getOwnGeneration(db: Db, userId: string, genId: string): Promise<GenerationRow> {
  const q = prepared(db, "generations.own", (d) =>
    d
      .select()
      .from(generations)
      .where(and(eq(generations.id, sql.placeholder("genId")), eq(generations.userId, sql.placeholder("userId")))),
  );
  const row = await db.one(q, { genId, userId });
  if (!row) throw new AppError("GENERATION_NOT_FOUND");
  return row;
}

export function parseResultUrls(row: Pick<GenerationRow, "resultUrls">): string[] {
  if (!row.resultUrls) return [];
  try {
    const v = JSON.parse(row.resultUrls);
    return Array.isArray(v) ? v.filter((u): u is string => typeof u === "string") : [];
  } catch {
    return [];
  }
}

/** What the query response shows of a row (times as Dates from drizzle, as ms from a plain statement). */
type QueryRow = Pick<GenerationRow, "id" | "status" | "resultUrls" | "errorMessage"> &
  Record<"createdAt" | "startedAt" | "completedAt", Date | number | null> &
  Partial<Pick<GenerationRow, "inputs">>;
const QUERY_ROW = `SELECT id, status, result_urls AS "resultUrls", error_message AS "errorMessage",
  created_at AS "createdAt", started_at AS "startedAt", completed_at AS "completedAt", inputs FROM generations WHERE id = ? AND user_id = ?`;

/** Spec 4.2 for the API: the caller's task as toQueryView shows it, from one plain statement of the shown columns. */
export async function queryGeneration(db: Db, userId: string, genId: string) {
  const row = await db.raw<QueryRow>(QUERY_ROW).one(genId, userId);
  if (!row) throw new AppError("GENERATION_NOT_FOUND");
  // PostgreSQL's driver may hand bigints over as strings: times are numbers from here on.
  for (const k of ["createdAt", "startedAt", "completedAt"] as const) if (row[k] !== null) row[k] = Number(row[k]);
  return toQueryView(row);
}

/**
 * Spec 4.2: the fields of the query response, by status; `started_at` once the task has started (additive,
 * docs/design.md §10); `urls` the task's links (additive, links.ts); `inputs` its input pictures, when it has any
 * (additive: option name → a URL its owner can open, docs/api.md §4.14).
 */
export function toQueryView(row: QueryRow) {
  const inputs = inputsView(row.inputs);
  const base = {
    gen_id: row.id,
    status: row.status as GenerationStatus,
    created_at: iso(row.createdAt)!,
    ...(row.startedAt !== null && row.status !== "pending" ? { started_at: iso(row.startedAt)! } : {}),
    ...(inputs ? { inputs } : {}),
  };
  const urls = taskLinks(row.id);
  if (row.status === "completed") {
    return { ...base, result_urls: parseResultUrls(row), completed_at: iso(row.completedAt)!, urls };
  }
  if (row.status === "failed") {
    return {
      ...base,
      error_message: row.errorMessage ?? "generation failed",
      completed_at: iso(row.completedAt)!,
      urls,
    };
  }
  return { ...base, urls };
}

/** History `credits_cost`: the price, except 0 for a failed task (docs/design.md §3). */
export const chargedCost = (row: Pick<GenerationRow, "status" | "creditsCost">) =>
  row.status === "failed" ? 0 : row.creditsCost;

/** Spec 4.3: one history entry; result_urls is a JSON-encoded string. */
export function toHistoryEntry(row: GenerationRow) {
  return {
    gen_id: row.id,
    ai_type: row.aiType,
    provider: row.provider,
    model: row.model,
    prompt: row.prompt,
    result_urls: JSON.stringify(parseResultUrls(row)),
    status: row.status,
    credits_cost: chargedCost(row),
    created_at: iso(row.createdAt)!,
    started_at: iso(row.startedAt),
    completed_at: iso(row.completedAt),
    ...(row.inputs ? { inputs: inputsView(row.inputs) } : {}),
    urls: taskLinks(row.id),
  };
}
