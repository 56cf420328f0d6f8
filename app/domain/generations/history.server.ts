/** The API's history (spec §4.3): paging, the task counter, and the page cache of finished entries. */

import { and, eq, sql } from "drizzle-orm";
import { LRUCache } from "lru-cache";
import { type Db, inJsonArray, type Tx } from "#db/client";
import { engineOf, prepared } from "#db/prepared";
import { generations } from "#db/schema";
import { inputsView } from "~/domain/files/links.server";
import { offsetOf } from "~/domain/paging";
import { AppError } from "~/lib/errors";
import { type TaskLinks, taskLinks } from "./links";
import { parseResultUrls } from "./views.server";

export const HISTORY_DEFAULT_PAGE_SIZE = 20;
export const HISTORY_MAX_PAGE_SIZE = 100;

/** Page and page size: integers ≥ 1 when given (else invalid params); page_size over 100 is clamped. */
export function normalizePaging(raw: { page?: unknown; page_size?: unknown }): { page: number; pageSize: number } {
  const check = (v: unknown, fallback: number) => {
    if (v === undefined || v === null) return fallback;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1) throw new AppError("INVALID_PARAMS");
    return v;
  };
  const page = check(raw.page, 1);
  const pageSize = Math.min(check(raw.page_size, HISTORY_DEFAULT_PAGE_SIZE), HISTORY_MAX_PAGE_SIZE);
  return { page, pageSize };
}

/** One history entry as the statements read it: the shown columns only, the cost already charged. */
interface HistoryRow {
  gen_id: string;
  ai_type: string;
  provider: string;
  model: string;
  prompt: string;
  result_urls: string | null;
  status: string;
  credits_cost: number;
  created_at: number | string;
  started_at: number | string | null;
  completed_at: number | string | null;
  inputs?: string | null | Record<string, string>;
}
/**
 * The API's history page, the hottest list: the page's ids as a range of the owner's ordinals (`user_seq`: 1 … the
 * task count in (created_at, id) order, kept dense by triggers; db/schema/generations.ts), read from the
 * (user_id, user_seq) index — page 5,000 costs what page 1 does, where an OFFSET walked every entry before it.
 * Arguments: user id, the highest and the lowest ordinal of the page. Exported for the query-plan test.
 */
export const HISTORY_IDS = `SELECT id FROM generations WHERE user_id = ? AND user_seq <= ? AND user_seq >= ? ORDER BY user_seq DESC`;
/** The ordinals a page covers, newest first: [highest, lowest] (empty when highest < 1). */
export const seqRange = (tasks: number, offset: number, pageSize: number) =>
  [tasks - offset, tasks - offset - pageSize + 1] as const;
/** The entries by id (exported for the query-plan test). */
export const historyEntriesQuery = (d: Tx) =>
  d
    .select({
      gen_id: generations.id,
      ai_type: generations.aiType,
      provider: generations.provider,
      model: generations.model,
      prompt: generations.prompt,
      result_urls: generations.resultUrls,
      status: generations.status,
      credits_cost: sql<number>`CASE WHEN ${generations.status} = 'failed' THEN 0 ELSE ${generations.creditsCost} END`,
      created_at: sql<number>`${generations.createdAt}`,
      started_at: sql<number | null>`${generations.startedAt}`,
      completed_at: sql<number | null>`${generations.completedAt}`,
      inputs: generations.inputs,
    })
    .from(generations)
    .where(and(inJsonArray(d, generations.id, sql.placeholder("ids")), ownerIs(d)));
/**
 * The entries' owner test. SQLite: by primary key, then the owner checked on each row — written as a plain
 * `user_id = ?` its planner walks the user's whole (user_id, …) index range instead (every task the user has: ≈ 760
 * µs instead of ≈ 100 per page at 2,000 tasks), so there it is an expression no index serves. PostgreSQL keeps the
 * plain test: without it the planner scans the whole table (it expects 100 ids from the JSON array).
 */
const ownerIs = (d: Tx) =>
  engineOf(d) === "sqlite"
    ? sql`(${generations.userId} || '') = ${sql.placeholder("userId")}`
    : eq(generations.userId, sql.placeholder("userId"));
const historyEntries = (db: Db) => prepared(db, "generations.historyEntries", historyEntriesQuery);
// The user's task counter and its version, kept by triggers on generations (db/schema.ts, userGenerationStats).
const TASK_STATS = `SELECT tasks AS n, tasks_version AS v FROM user_generation_stats WHERE user_id = ?`;
const taskStats = (db: Db, userId: string) =>
  db.raw<{ n: number | string; v: number | string }>(TASK_STATS).one(userId);
/** The user's number of tasks: the counter database triggers keep on every insert and delete (userGenerationStats). */
export async function taskCount(db: Db, userId: string): Promise<number> {
  return Number((await taskStats(db, userId))?.n ?? 0); // no row: no task yet
}
/** A JSON array of strings with nothing escaped: exactly what JSON.stringify(JSON.parse(s)) gives back. */
const PLAIN_URL_LIST = /^\[(?:"[^"\\\u0000-\u001f]*"(?:,"[^"\\\u0000-\u001f]*")*)?\]$/;
const isoOf = (ms: number | string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** The JSON text of one entry, byte for byte JSON.stringify(toHistoryEntry(row)). */
function entryJson(r: HistoryRow): string {
  // Stored by completeGeneration as JSON.stringify(string[]): passed through when plain; anything else re-encoded.
  const urls = r.result_urls;
  r.result_urls =
    urls !== null && PLAIN_URL_LIST.test(urls) ? urls : JSON.stringify(parseResultUrls({ resultUrls: urls }));
  r.credits_cost = Number(r.credits_cost);
  r.created_at = isoOf(r.created_at)!;
  r.started_at = isoOf(r.started_at);
  r.completed_at = isoOf(r.completed_at);
  // Input pictures (docs/api.md §4.14): shown only on tasks that have them, as the query does.
  const inputs = inputsView(r.inputs as string | null);
  if (inputs) r.inputs = inputs;
  else delete r.inputs;
  (r as HistoryRow & { urls: TaskLinks }).urls = taskLinks(r.gen_id);
  return JSON.stringify(r);
}

/**
 * The entries of finished tasks this process has listed, as JSON text, by gen_id, per database. Nothing
 * changes what a completed or failed task shows (only `hidden_at`, which the history does not show), so an
 * entry remembered once is right for as long as the task exists; an unfinished task is read every time.
 * Bounded: past MAX_REMEMBERED entries the least recently used go (never all at once: a cleared cache would send
 * every following request to the database together).
 */
const finished = new WeakMap<Db, LRUCache<string, string>>();
const MAX_REMEMBERED = 50_000;
const isFinal = (status: string) => status === "completed" || status === "failed";

/**
 * Whole pages whose entries are all finished, as the JSON text returned, by database, paging and user, with the
 * user's tasks_version they were built at. The version goes up with every insert, delete or move of the user's
 * tasks (triggers), so the same version means the same list of tasks; finished entries never change (above). A page
 * is served from here only while the version read for the request is the one it was built at. Bounded by size, the
 * least recently used going first.
 */
const pages = new WeakMap<Db, LRUCache<string, { version: number; json: string }>>();
const MAX_PAGE_CHARS = 16 * 1024 * 1024;

/** The entries of these ids as JSON text, in their order: a finished task's from memory, the others from their rows. */
async function entriesOf(db: Db, userId: string, ids: { id: string }[]) {
  let memo = finished.get(db);
  if (!memo) finished.set(db, (memo = new LRUCache({ max: MAX_REMEMBERED })));
  const known = ids.map(({ id }) => memo.get(id));
  const missing = ids.filter((_, i) => known[i] === undefined).map(({ id }) => id);
  const read = new Map<string, string>();
  let allFinal = true;
  if (missing.length > 0) {
    for (const row of (await db.many(historyEntries(db), { userId, ids: JSON.stringify(missing) })) as HistoryRow[]) {
      const json = entryJson(row);
      read.set(row.gen_id, json);
      if (isFinal(row.status)) memo.set(row.gen_id, json);
      else allFinal = false;
    }
  }
  const entries: string[] = [];
  ids.forEach(({ id }, i) => {
    const json = known[i] ?? read.get(id);
    if (json !== undefined) entries.push(json); // undefined: gone since the ids were read
  });
  return { entries, allFinal };
}

/**
 * Spec 4.3: the caller's page, newest first (created_at desc, then gen_id desc; docs/design.md §1), as the JSON
 * text of `{generations, total, page, page_size}` — each entry JSON.stringify(toHistoryEntry(row)). First the
 * user's task counter and version (one primary-key read): a page of finished tasks built at that version is
 * returned as it is. Otherwise the ids come from the ordinal index; a finished task's entry from memory, the others from
 * their rows (one statement). The total is the counter when the page leaves it open (a full page, or an empty one
 * past the first); any other page shows it (offset + entries).
 */
export async function historyPageJson(
  db: Db,
  userId: string,
  paging: { page: number; pageSize: number },
): Promise<string> {
  if (engineOf(db) === "postgres") return historyPageJsonPg(db, userId, paging);
  const stats = await taskStats(db, userId);
  let cache = pages.get(db);
  if (!cache)
    pages.set(db, (cache = new LRUCache({ maxSize: MAX_PAGE_CHARS, sizeCalculation: (page) => page.json.length })));
  const key = `${paging.page}/${paging.pageSize}/${userId}`;
  const version = stats === undefined ? undefined : Number(stats.v);
  const hit = cache.get(key);
  if (hit !== undefined && hit.version === version) return hit.json;

  const offset = offsetOf(paging.page, paging.pageSize);
  const [high, low] = seqRange(Number(stats?.n ?? 0), offset, paging.pageSize);
  const ids = high < 1 ? [] : await db.raw<{ id: string }>(HISTORY_IDS).many(userId, high, low);
  const { entries, allFinal } = await entriesOf(db, userId, ids);
  const counted = ids.length === paging.pageSize || (ids.length === 0 && paging.page > 1);
  const total = counted ? Number(stats?.n ?? 0) : offset + ids.length;
  const json = `{"generations":[${entries.join(",")}],"total":${total},"page":${paging.page},"page_size":${paging.pageSize}}`;
  if (version !== undefined && allFinal && entries.length === ids.length) {
    cache.set(key, { version, json });
  }
  return json;
}

/**
 * The same page on PostgreSQL in one round trip: the counter and the page's rows by their ordinals in one statement
 * (a round trip costs more there than reading 20 rows, so the process memory above would save nothing). Arguments:
 * user id, the offset, the page size. Exported for the query-plan test.
 */
export const HISTORY_PAGE_PG = `SELECT s.tasks AS n, g.* FROM user_generation_stats s LEFT JOIN LATERAL (
  SELECT id AS gen_id, ai_type, provider, model, prompt, result_urls, status,
    CASE WHEN status = 'failed' THEN 0 ELSE credits_cost END AS credits_cost, created_at, started_at, completed_at, inputs,
    user_seq AS seq
  FROM generations WHERE user_id = s.user_id AND user_seq <= s.tasks - ? AND user_seq >= s.tasks - ? - ? + 1
  ) g ON true WHERE s.user_id = ?`;

async function historyPageJsonPg(db: Db, userId: string, paging: { page: number; pageSize: number }) {
  const offset = offsetOf(paging.page, paging.pageSize);
  const rows = await db
    .raw<HistoryRow & { n: number | string; seq: number | string }>(HISTORY_PAGE_PG)
    .many(offset, offset, paging.pageSize, userId);
  const tasks = Number(rows[0]?.n ?? 0); // no row: no task yet
  // Newest first: at most a page of rows, ordered here rather than by the statement (no sort node over generations).
  const found = rows.filter((r) => r.gen_id !== null).sort((a, b) => Number(b.seq) - Number(a.seq));
  const entries = found.map(({ n: _, seq: __, ...r }) => entryJson(r));
  const counted = found.length === paging.pageSize || (found.length === 0 && paging.page > 1);
  const total = counted ? tasks : offset + found.length;
  return `{"generations":[${entries.join(",")}],"total":${total},"page":${paging.page},"page_size":${paging.pageSize}}`;
}

/**
 * A keyset cursor (additive to spec 4.3, docs/api.md): the position after an entry, as base64url of
 * `<created_at ms>.<gen_id>`. "" is the start (the newest task).
 */
const encodeCursor = (createdAt: number, id: string) => Buffer.from(`${createdAt}.${id}`).toString("base64url");
function decodeCursor(cursor: unknown): { createdAt: number; id: string } | null {
  if (cursor === "") return null;
  const text = typeof cursor === "string" && cursor.length <= 200 ? Buffer.from(cursor, "base64url").toString() : "";
  const m = /^(\d{1,15})\.([\w-]{1,100})$/.exec(text);
  if (!m) throw new AppError("INVALID_PARAMS", { reason: "cursor must be a next_cursor this API returned" });
  return { createdAt: Number(m[1]), id: m[2]! };
}
// Keyset pages through the (user_id, created_at, id) index, newest first, from the start or after a position.
const FIRST_IDS = `SELECT id, created_at AS at FROM generations WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`;
/** Exported for the query-plan test. Arguments: user id, the position's time (twice) and id, the page size. */
export const AFTER_IDS = `SELECT id, created_at AS at FROM generations WHERE user_id = ? AND created_at <= ?
  AND (created_at < ? OR id < ?) ORDER BY created_at DESC, id DESC LIMIT ?`;

/**
 * The caller's tasks after a cursor (or from the newest with ""), as the JSON text of
 * `{generations, total, page_size, next_cursor}`: the same entries and order as the pages, read from the position
 * on (the cost of any page is the cost of the first), and stable while tasks are added (a new task never moves an
 * entry to the next page). `next_cursor` is null on the last page.
 */
export async function historyAfterJson(db: Db, userId: string, args: { cursor: unknown; pageSize: number }) {
  const after = decodeCursor(args.cursor);
  const stats = await taskStats(db, userId);
  const ids = after
    ? await db
        .raw<{ id: string; at: number | string }>(AFTER_IDS)
        .many(userId, after.createdAt, after.createdAt, after.id, args.pageSize)
    : await db.raw<{ id: string; at: number | string }>(FIRST_IDS).many(userId, args.pageSize);
  const { entries } = await entriesOf(db, userId, ids);
  const last = ids.at(-1);
  const next = ids.length === args.pageSize && last ? JSON.stringify(encodeCursor(Number(last.at), last.id)) : "null";
  return `{"generations":[${entries.join(",")}],"total":${Number(stats?.n ?? 0)},"page_size":${args.pageSize},"next_cursor":${next}}`;
}

/**
 * Forgets what this process remembers of a task's history entry (a takedown changes a finished task's result_urls,
 * the one change the memory above does not expect; docs/safety.md "Reports and takedowns"). The caller also moves
 * the owner's tasks_version, so remembered pages are rebuilt.
 */
export function forgetHistoryEntry(db: Db, genId: string): void {
  finished.get(db)?.delete(genId);
}
