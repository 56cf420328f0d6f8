/** The owner's studio gallery: filtered pages, removing a task from it, and the neighbours of a task. */
import { and, desc, eq, gte, isNull, lte, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { prepared } from "#db/prepared";
import { galleryEntries, generations, userTaskCounts } from "#db/schema";
import { offsetOf } from "~/domain/paging";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import type { GenerationFilter } from "./filter";
import { seqRange, taskCount } from "./history.server";
import type { GenerationRow } from "./views.server";

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
 * The gallery list a filter reads (db/schema/generations.ts, galleryEntries): '' every task the owner kept, its type,
 * and once finished its status and "type status". Undefined for a filter on unfinished tasks, which are read from the
 * index that holds those alone (the user's queue, however long the history).
 */
function galleryList(filter: GenerationFilter): string | undefined {
  const status = filter.status;
  if (status === "running" || status === "pending" || status === "processing") return undefined;
  if (filter.aiType && status) return `${filter.aiType} ${status}`;
  return filter.aiType ?? status ?? "";
}

/** A page of one gallery list: a range of its places, newest first, with the tasks' rows (one statement). */
const byPlaces = (db: Db) =>
  prepared(db, "generations.galleryPage", (d) =>
    d
      .select({ g: generations })
      .from(galleryEntries)
      .innerJoin(generations, eq(generations.id, galleryEntries.genId))
      .where(
        and(
          eq(galleryEntries.userId, sql.placeholder("userId")),
          eq(galleryEntries.grp, sql.placeholder("grp")),
          lte(galleryEntries.seq, sql.placeholder("high")),
          gte(galleryEntries.seq, sql.placeholder("low")),
        ),
      )
      .orderBy(desc(galleryEntries.seq)),
  );

/** The user's task counts by type and status (user_task_counts, kept by triggers): at most eight rows. */
const countsOf = (db: Db) =>
  prepared(db, "generations.taskCounts", (d) =>
    d
      .select({
        aiType: userTaskCounts.aiType,
        status: userTaskCounts.status,
        tasks: userTaskCounts.tasks,
        hidden: userTaskCounts.hidden,
      })
      .from(userTaskCounts)
      .where(eq(userTaskCounts.userId, sql.placeholder("userId"))),
  );

/** The unfinished tasks a filter keeps, newest first: the user's queue, through generations_user_unfinished_idx. */
const unfinishedPage = (db: Db, userId: string, filter: GenerationFilter, limit: number, offset: number) =>
  db.many(
    db
      .select()
      .from(generations)
      .where(
        and(
          eq(generations.userId, userId),
          // The index's own condition, as a literal: a bound parameter would not let the planner use it.
          sql`${generations.status} IN ('pending', 'processing')`,
          filter.status && filter.status !== "running" ? eq(generations.status, filter.status) : undefined,
          filter.aiType ? eq(generations.aiType, filter.aiType) : undefined,
          filter.galleryOnly ? isNull(generations.hiddenAt) : undefined,
        ),
      )
      .orderBy(desc(generations.createdAt), desc(generations.id))
      .limit(limit)
      .offset(offset),
  );

/** How many of the user's tasks a filter keeps, from the counters (no row is read from generations). */
function totalOf(
  counts: { aiType: string; status: string; tasks: number; hidden: number }[],
  filter: GenerationFilter,
) {
  let n = 0;
  for (const c of counts) {
    if (filter.aiType && c.aiType !== filter.aiType) continue;
    const unfinished = c.status === "pending" || c.status === "processing";
    if (filter.status && (filter.status === "running" ? !unfinished : c.status !== filter.status)) continue;
    n += Number(c.tasks) - (filter.galleryOnly ? Number(c.hidden) : 0);
  }
  return n;
}

/**
 * Rows of one history page (the studio shows them with more detail), optionally filtered, with the total the filter
 * keeps. Whatever the page and the filter, nothing walks the user's history: the whole history is a range of the
 * owner's ordinals (generations.user_seq); the gallery (what the owner kept), under any filter by type or finished
 * status, a range of places in one of its lists (gallery_entries); a filter on unfinished tasks reads the user's queue
 * alone. Totals come from the counters the triggers keep (user_generation_stats, user_task_counts). A filter always
 * reads the gallery (what the owner kept): filters are the studio's.
 */
export async function listRecent(
  db: Db,
  userId: string,
  paging: { page: number; pageSize: number },
  filter: GenerationFilter = {},
) {
  const offset = offsetOf(paging.page, paging.pageSize);
  if (!filter.aiType && !filter.status && !filter.galleryOnly) {
    const tasks = await taskCount(db, userId);
    const [high, low] = seqRange(tasks, offset, paging.pageSize);
    const rows = high < 1 ? [] : await db.many(byOrdinals(db), { userId, high, low });
    return { rows, total: tasks };
  }
  const gallery = { ...filter, galleryOnly: true };
  const total = totalOf(await db.many(countsOf(db), { userId }), gallery);
  const grp = galleryList(gallery);
  if (grp === undefined) return { rows: await unfinishedPage(db, userId, gallery, paging.pageSize, offset), total };
  const [high, low] = seqRange(total, offset, paging.pageSize);
  const rows = high < 1 ? [] : (await db.many(byPlaces(db), { userId, grp, high, low })).map((r) => r.g);
  return { rows, total };
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

/** A task's place in the gallery's whole list ('' : every task the owner kept), if it is there. */
const placeOf = (db: Db) =>
  prepared(db, "generations.galleryPlace", (d) =>
    d
      .select({ seq: galleryEntries.seq })
      .from(galleryEntries)
      .where(and(eq(galleryEntries.genId, sql.placeholder("genId")), eq(galleryEntries.grp, "")))
      .limit(1),
  );
/** The task at a place of the gallery's whole list. */
const atPlace = (db: Db) =>
  prepared(db, "generations.galleryAt", (d) =>
    d
      .select({ id: galleryEntries.genId })
      .from(galleryEntries)
      .where(
        and(
          eq(galleryEntries.userId, sql.placeholder("userId")),
          eq(galleryEntries.grp, ""),
          eq(galleryEntries.seq, sql.placeholder("seq")),
        ),
      )
      .limit(1),
  );

/**
 * The gallery neighbours of a task (newest first order): the newer one and the older one, if any — the places
 * either side of its own in the gallery's whole list, so a task deep in a long history costs what the newest does.
 */
export async function galleryNeighbours(db: Db, row: Pick<GenerationRow, "id" | "userId" | "createdAt">) {
  const place = await db.one(placeOf(db), { genId: row.id });
  if (!place) return { newer: null, older: null }; // removed from the gallery
  const seq = Number(place.seq);
  const newer = await db.one(atPlace(db), { userId: row.userId, seq: seq + 1 });
  const older = seq > 1 ? await db.one(atPlace(db), { userId: row.userId, seq: seq - 1 }) : undefined;
  return { newer: newer?.id ?? null, older: older?.id ?? null };
}
