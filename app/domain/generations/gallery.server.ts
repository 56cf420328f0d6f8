/** The owner's studio gallery: filtered pages, removing a task from it, and the neighbours of a task. */
import { and, asc, desc, eq, gt, gte, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { prepared } from "#db/prepared";
import { generations } from "#db/schema";
import { offsetOf } from "~/domain/paging";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { type GenerationFilter, UNFINISHED } from "./filter";
import { seqRange, taskCount } from "./history.server";
import type { GenerationRow } from "./views.server";

/** The user's tasks removed from the gallery, counted through the index that holds only those (exported for the plan test). */
export const HIDDEN_COUNT = "SELECT count(*) AS n FROM generations WHERE user_id = ? AND hidden_at IS NOT NULL";

/** A page of the user's whole history as rows: a range of the owner's ordinals (history.server.ts HISTORY_IDS). */
const byOrdinals = (db: Db) =>
  prepared(db, "generations.page", (d) =>
    d
      .select()
      .from(generations)
      .where(
        and(
          eq(generations.userId, sql.placeholder("userId")),
          lte(generations.userSeq, sql.placeholder("high")),
          gte(generations.userSeq, sql.placeholder("low")),
        ),
      )
      .orderBy(desc(generations.userSeq)),
  );

/**
 * Rows of one history page (the studio shows them with more detail), optionally filtered. The whole history, and
 * the gallery of a user who removed nothing from it, are ranges of the owner's ordinals and their totals counters,
 * whatever the page; the gallery's total is the task count less the removed tasks. A filter by type or status reads
 * the user's index with the filter applied (its cost grows with the history).
 */
export async function listRecent(
  db: Db,
  userId: string,
  paging: { page: number; pageSize: number },
  filter: GenerationFilter = {},
) {
  const offset = offsetOf(paging.page, paging.pageSize);
  if (!filter.aiType && !filter.status) {
    const tasks = await taskCount(db, userId);
    const hidden = filter.galleryOnly ? Number((await db.raw<{ n: number }>(HIDDEN_COUNT).one(userId))?.n ?? 0) : 0;
    if (hidden === 0) {
      const [high, low] = seqRange(tasks, offset, paging.pageSize);
      const rows = high < 1 ? [] : await db.many(byOrdinals(db), { userId, high, low });
      return { rows, total: tasks };
    }
    const rows = await db.many(
      db
        .select()
        .from(generations)
        .where(and(eq(generations.userId, userId), isNull(generations.hiddenAt)))
        .orderBy(desc(generations.createdAt), desc(generations.id))
        .limit(paging.pageSize)
        .offset(offset),
    );
    return { rows, total: tasks - hidden };
  }
  const where = and(
    eq(generations.userId, userId),
    filter.aiType ? eq(generations.aiType, filter.aiType) : undefined,
    filter.status === "running"
      ? inArray(generations.status, UNFINISHED)
      : filter.status
        ? eq(generations.status, filter.status)
        : undefined,
    filter.galleryOnly ? isNull(generations.hiddenAt) : undefined,
  );
  const rows = await db.many(
    db
      .select()
      .from(generations)
      .where(where)
      .orderBy(desc(generations.createdAt), desc(generations.id))
      .limit(paging.pageSize)
      .offset(offset),
  );
  const total = await db.one(db.select({ n: sql<number>`count(*)` }).from(generations).where(where));
  return { rows, total: Number(total?.n ?? 0) };
}

/**
 * Removes a task from (or puts it back into) the owner's studio gallery. Only
 * the `hidden_at` mark changes: the task, its price and the ledger stay as they
 * were, and the API's history still lists it.
 */
export async function setHidden(
  db: Db,
  userId: string,
  genId: string,
  hidden: boolean,
  clock: Clock,
): Promise<GenerationRow> {
  const row = await db.one(
    db
      .update(generations)
      .set({ hiddenAt: hidden ? new Date(clock.now()) : null })
      .where(and(eq(generations.id, genId), eq(generations.userId, userId)))
      .returning(),
  );
  if (!row) throw new AppError("GENERATION_NOT_FOUND");
  return row;
}

/** The gallery neighbours of a task (newest first order): the newer one and the older one, if any. */
export async function galleryNeighbours(db: Db, row: Pick<GenerationRow, "id" | "userId" | "createdAt">) {
  const mine = and(eq(generations.userId, row.userId), isNull(generations.hiddenAt));
  const newer = await db.one(
    db
      .select({ id: generations.id })
      .from(generations)
      .where(
        and(
          mine,
          or(
            gt(generations.createdAt, row.createdAt),
            and(eq(generations.createdAt, row.createdAt), gt(generations.id, row.id)),
          ),
        ),
      )
      .orderBy(asc(generations.createdAt), asc(generations.id))
      .limit(1),
  );
  const older = await db.one(
    db
      .select({ id: generations.id })
      .from(generations)
      .where(
        and(
          mine,
          or(
            lt(generations.createdAt, row.createdAt),
            and(eq(generations.createdAt, row.createdAt), lt(generations.id, row.id)),
          ),
        ),
      )
      .orderBy(desc(generations.createdAt), desc(generations.id))
      .limit(1),
  );
  return { newer: newer?.id ?? null, older: older?.id ?? null };
}
