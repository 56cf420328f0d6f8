/** The owner's studio gallery: filtered pages, removing a task from it, and the neighbours of a task. */
import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { prepared } from "#db/prepared";
import { generations } from "#db/schema";
import { offsetOf } from "~/domain/paging";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { type GenerationFilter, UNFINISHED } from "./filter";
import { taskCount } from "./history.server";
import type { GenerationRow } from "./views.server";

/** Rows of one history page (the studio shows them with more detail), optionally filtered. */
export async function listRecent(
  db: Db,
  userId: string,
  paging: { page: number; pageSize: number },
  filter: GenerationFilter = {},
) {
  if (!filter.aiType && !filter.status && !filter.galleryOnly) {
    // The API's history page: prepared once per connection (building a drizzle query costs ~100 µs).
    const page = prepared(db, "generations.page", (d) =>
      d
        .select()
        .from(generations)
        .where(eq(generations.userId, sql.placeholder("userId")))
        .orderBy(desc(generations.createdAt), desc(generations.id))
        .limit(sql.placeholder("limit"))
        .offset(sql.placeholder("offset")),
    );
    const rows = await db.many(page, {
      userId,
      limit: paging.pageSize,
      offset: offsetOf(paging.page, paging.pageSize),
    });
    return { rows, total: await taskCount(db, userId) };
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
      .offset(offsetOf(paging.page, paging.pageSize)),
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
