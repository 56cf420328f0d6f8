/**
 * Generation tasks as clients see them (spec §4.1–4.3, docs/design.md §1, §3):
 * validating and creating a task (checking and reserving credits in one write
 * transaction), the status query, and the history.
 */

import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { type Db, inJsonArray, isUniqueViolation, lockRow, one, run, type Steps, type Tx } from "#db/client";
import { engineOf, prepared } from "#db/prepared";
import { generations, idempotencyKeys, user, userGenerationStats } from "#db/schema";
import {
  type AiType,
  findOffering,
  isAiType,
  type Offering,
  optionsProblem,
  type ProviderName,
  providersFor,
} from "~/domain/catalog";
import { assertCanReserve } from "~/domain/credits/ledger.server";
import { offsetOf } from "~/domain/paging";
import { type Clock, iso } from "~/lib/clock";
import { GENERATION_STATUSES, type GenerationStatus, wasCanceled } from "./status";
import { assertUnpaidAllowance } from "./unpaid.server";

export { GENERATION_STATUSES, type GenerationStatus };

import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";

export const MAX_PROMPT_LENGTH = 4000;
export const HISTORY_DEFAULT_PAGE_SIZE = 20;
export const HISTORY_MAX_PAGE_SIZE = 100;

export type GenerationRow = typeof generations.$inferSelect;

export interface GenerateInput {
  offering: Offering;
  prompt: string;
  options: Record<string, unknown>;
}

const present = (v: unknown): v is string => typeof v === "string" && v.trim() !== "";

/**
 * Spec 4.1 rules in order: the four fields (missing, empty or not a string),
 * then ai_type, provider for that type, model for that provider, prompt
 * length, options (what the model declares in the catalog: known keys,
 * values in range, ≤ 8 KB of JSON) — all before anything is written.
 */
export function validateGenerateInput(raw: Record<string, unknown>): GenerateInput {
  const { ai_type, provider, model, prompt, options } = raw;
  if (!present(ai_type) || !present(provider) || !present(model) || !present(prompt)) {
    throw new AppError("GENERATION_FIELDS_REQUIRED");
  }
  if (!isAiType(ai_type)) throw new AppError("INVALID_AI_TYPE");
  if (!providersFor(ai_type).includes(provider as ProviderName)) {
    throw new AppError("UNSUPPORTED_PROVIDER", { aiType: ai_type, provider });
  }
  const offering = findOffering(ai_type, provider, model);
  if (!offering) throw new AppError("UNSUPPORTED_MODEL", { model });
  if (prompt.length > MAX_PROMPT_LENGTH) throw new AppError("PROMPT_TOO_LONG", { max: MAX_PROMPT_LENGTH });
  const problem = optionsProblem(offering, options);
  if (problem) throw new AppError("INVALID_OPTIONS", { reason: problem });
  return { offering, prompt, options: (options as Record<string, unknown> | null | undefined) ?? {} };
}

export function deadlineFor(aiType: AiType, config: Pick<Config, "IMAGE_DEADLINE_MS" | "VIDEO_DEADLINE_MS">): number {
  return aiType === "video" ? config.VIDEO_DEADLINE_MS : config.IMAGE_DEADLINE_MS;
}

export interface CreateArgs {
  userId: string;
  input: GenerateInput;
  mode: "live" | "simulated";
  config: Pick<Config, "IMAGE_DEADLINE_MS" | "VIDEO_DEADLINE_MS">;
  /** An Idempotency-Key and the hash of its request body (docs/design.md §10). */
  idempotency?: { key: string; requestHash: string };
}

/**
 * Creates a pending task. The balance check and the insert (which is the
 * reservation) share one write transaction that holds the user's row lock
 * (SQLite: the immediate transaction's write lock), so concurrent creates can
 * never overdraw.
 */
export async function createGeneration(db: Db, args: CreateArgs, clock: Clock): Promise<GenerationRow> {
  return (await createOrReplay(db, args, clock)).row;
}

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

/**
 * createGeneration with an optional Idempotency-Key: inside the same write
 * transaction, a key seen before replays its task (nothing created or
 * reserved); a new key is stored with the task. The (user, key) primary key
 * decides concurrent duplicates: on an engine where two transactions can
 * race (PostgreSQL), the loser's insert fails and it runs again as a replay.
 */
export async function createOrReplay(
  db: Db,
  args: CreateArgs,
  clock: Clock,
): Promise<{ row: GenerationRow; replayed: boolean }> {
  try {
    return await createOrReplayOnce(db, args, clock);
  } catch (e) {
    if (!args.idempotency || !isUniqueViolation(e)) throw e;
    return createOrReplayOnce(db, args, clock);
  }
}

// The reservation's insert, the hottest write: built once (building a drizzle insert costs more than running it).
const v = (name: keyof typeof generations.$inferInsert) => sql.placeholder(name);
const insertTask = (t: Tx) =>
  t
    .insert(generations)
    .values({
      id: v("id"),
      userId: v("userId"),
      aiType: v("aiType"),
      provider: v("provider"),
      model: v("model"),
      prompt: v("prompt"),
      options: v("options"),
      status: v("status"),
      creditsCost: v("creditsCost"),
      mode: v("mode"),
      deadlineAt: v("deadlineAt"),
      createdAt: v("createdAt"),
    })
    .returning();

function createOrReplayOnce(
  db: Db,
  args: CreateArgs,
  clock: Clock,
): Promise<{ row: GenerationRow; replayed: boolean }> {
  const { offering, prompt, options } = args.input;
  const idem = args.idempotency;
  return db.tx(function* (tx) {
    yield* lockRow("user", args.userId);
    const now = clock.now();
    if (idem) {
      const prior = yield* findIdempotent(tx, args.userId, idem.key, idem.requestHash, now);
      if (prior) return { row: prior, replayed: true };
    }
    yield* assertUnpaidAllowance(tx, args.userId, now);
    yield* assertCanReserve(tx, args.userId, offering.credits, clock);
    const row = {
      id: Bun.randomUUIDv7(),
      userId: args.userId,
      aiType: offering.aiType,
      provider: offering.provider,
      model: offering.model,
      prompt,
      options: JSON.stringify(options),
      status: "pending",
      creditsCost: offering.credits,
      mode: args.mode,
      deadlineAt: now + deadlineFor(offering.aiType, args.config),
      createdAt: new Date(now),
    } satisfies typeof generations.$inferInsert;
    const created = (yield* one(prepared(tx, "generations.create", insertTask), row))!;
    if (idem)
      yield* run(
        tx.insert(idempotencyKeys).values({
          userId: args.userId,
          key: idem.key,
          requestHash: idem.requestHash,
          genId: created.id,
          createdAt: now,
        }),
      );
    return { row: created, replayed: false };
  });
}

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
  Record<"createdAt" | "startedAt" | "completedAt", Date | number | null>;
const QUERY_ROW = `SELECT id, status, result_urls AS "resultUrls", error_message AS "errorMessage",
  created_at AS "createdAt", started_at AS "startedAt", completed_at AS "completedAt" FROM generations WHERE id = ? AND user_id = ?`;

/** Spec 4.2 for the API: the caller's task as toQueryView shows it, from one plain statement of the shown columns. */
export async function queryGeneration(db: Db, userId: string, genId: string) {
  const row = await db.raw<QueryRow>(QUERY_ROW).one(genId, userId);
  if (!row) throw new AppError("GENERATION_NOT_FOUND");
  // PostgreSQL's driver may hand bigints over as strings: times are numbers from here on.
  for (const k of ["createdAt", "startedAt", "completedAt"] as const) if (row[k] !== null) row[k] = Number(row[k]);
  return toQueryView(row);
}

/** Spec 4.2: the fields of the query response, by status; `started_at` once the task has started (additive, docs/design.md §10). */
export function toQueryView(row: QueryRow) {
  const base = {
    gen_id: row.id,
    status: row.status as GenerationStatus,
    created_at: iso(row.createdAt)!,
    ...(row.startedAt !== null && row.status !== "pending" ? { started_at: iso(row.startedAt)! } : {}),
  };
  if (row.status === "completed") {
    return { ...base, result_urls: parseResultUrls(row), completed_at: iso(row.completedAt)! };
  }
  if (row.status === "failed") {
    return { ...base, error_message: row.errorMessage ?? "generation failed", completed_at: iso(row.completedAt)! };
  }
  return base;
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
  };
}

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
}
// The API's history page, the hottest list: the page's ids straight from the (user_id, created_at, id)
// index; the entries not remembered in one statement of the shown columns, in the response's order and names.
const HISTORY_IDS = `SELECT id FROM generations WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`;
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
  return JSON.stringify(r);
}

/**
 * The entries of finished tasks this process has listed, as JSON text, by gen_id, per database. Nothing
 * changes what a completed or failed task shows (only `hidden_at`, which the history does not show), so an
 * entry remembered once is right for as long as the task exists; an unfinished task is read every time.
 * Bounded: past MAX_REMEMBERED entries the map starts over.
 */
const finished = new WeakMap<Db, Map<string, string>>();
const MAX_REMEMBERED = 50_000;
const isFinal = (status: string) => status === "completed" || status === "failed";

/**
 * Whole pages whose entries are all finished, as the JSON text returned, by database, paging and user, with the
 * user's tasks_version they were built at. The version goes up with every insert, delete or move of the user's
 * tasks (triggers), so the same version means the same list of tasks; finished entries never change (above). A page
 * is served from here only while the version read for the request is the one it was built at. Bounded by size.
 */
const pages = new WeakMap<Db, { size: number; byKey: Map<string, { version: number; json: string }> }>();
const MAX_PAGE_CHARS = 16 * 1024 * 1024;

/**
 * Spec 4.3: the caller's page, newest first (created_at desc, then gen_id desc; docs/design.md §1), as the JSON
 * text of `{generations, total, page, page_size}` — each entry JSON.stringify(toHistoryEntry(row)). First the
 * user's task counter and version (one primary-key read): a page of finished tasks built at that version is
 * returned as it is. Otherwise the ids come from the index; a finished task's entry from memory, the others from
 * their rows (one statement). The total is the counter when the page leaves it open (a full page, or an empty one
 * past the first); any other page shows it (offset + entries).
 */
export async function historyPageJson(
  db: Db,
  userId: string,
  paging: { page: number; pageSize: number },
): Promise<string> {
  const stats = await taskStats(db, userId);
  let cache = pages.get(db);
  if (!cache) pages.set(db, (cache = { size: 0, byKey: new Map() }));
  const key = `${paging.page}/${paging.pageSize}/${userId}`;
  const version = stats === undefined ? undefined : Number(stats.v);
  const hit = cache.byKey.get(key);
  if (hit !== undefined && hit.version === version) return hit.json;

  let memo = finished.get(db);
  if (!memo) finished.set(db, (memo = new Map()));
  const offset = offsetOf(paging.page, paging.pageSize);
  const ids = await db.raw<{ id: string }>(HISTORY_IDS).many(userId, paging.pageSize, offset);
  const known = ids.map(({ id }) => memo.get(id));
  const missing = ids.filter((_, i) => known[i] === undefined).map(({ id }) => id);
  const read = new Map<string, string>();
  let allFinal = true;
  if (missing.length > 0) {
    for (const row of (await db.many(historyEntries(db), { userId, ids: JSON.stringify(missing) })) as HistoryRow[]) {
      const json = entryJson(row);
      read.set(row.gen_id, json);
      if (isFinal(row.status)) {
        if (memo.size >= MAX_REMEMBERED) memo.clear();
        memo.set(row.gen_id, json);
      } else allFinal = false;
    }
  }
  const entries: string[] = [];
  ids.forEach(({ id }, i) => {
    const json = known[i] ?? read.get(id);
    if (json !== undefined) entries.push(json); // undefined: gone since the ids were read
  });
  const counted = ids.length === paging.pageSize || (ids.length === 0 && paging.page > 1);
  const total = counted ? Number(stats?.n ?? 0) : offset + ids.length;
  const json = `{"generations":[${entries.join(",")}],"total":${total},"page":${paging.page},"page_size":${paging.pageSize}}`;
  if (version !== undefined && allFinal && entries.length === ids.length) {
    if (cache.size + json.length > MAX_PAGE_CHARS) pages.set(db, (cache = { size: 0, byKey: new Map() }));
    cache.size += json.length - (cache.byKey.get(key)?.json.length ?? 0);
    cache.byKey.set(key, { version, json });
  }
  return json;
}

/** The studio gallery's filters (absent: all). */
/** A status to filter by; "running" is every unfinished task, queued (pending) or processing. */
export type StatusFilter = GenerationStatus | "running";
const UNFINISHED: GenerationStatus[] = ["pending", "processing"];

export interface GenerationFilter {
  aiType?: AiType;
  status?: StatusFilter;
  /** The studio gallery: leave out what the owner removed from it. */
  galleryOnly?: boolean;
}

/** Reads `type` and `status` query parameters; unknown values mean "all". */
export function parseFilter(params: URLSearchParams): GenerationFilter {
  const type = params.get("type");
  const status = params.get("status");
  return {
    aiType: isAiType(type) ? type : undefined,
    status:
      status === "running" || GENERATION_STATUSES.includes(status as GenerationStatus)
        ? (status as StatusFilter)
        : undefined,
  };
}

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

/** How many unfinished tasks the user has: the counter the triggers keep (user_generation_stats.unfinished). */
async function unfinishedCount(db: Db, userId: string): Promise<number> {
  const row = await db.one(
    db
      .select({ n: userGenerationStats.unfinished })
      .from(userGenerationStats)
      .where(eq(userGenerationStats.userId, userId)),
  );
  return Number(row?.n ?? 0);
}

/** Whether the user has unfinished tasks (the studio keeps polling while so). */
export async function hasUnfinished(db: Db, userId: string): Promise<boolean> {
  return (await unfinishedCount(db, userId)) > 0;
}

/** Everyone's latest tasks, newest first (the admin page); `failed` only when asked. */
export function listLatestAll(db: Db, opts: { limit: number; status?: GenerationStatus }) {
  return db.many(
    db
      .select({
        id: generations.id,
        userId: generations.userId,
        email: user.email,
        aiType: generations.aiType,
        provider: generations.provider,
        model: generations.model,
        prompt: generations.prompt,
        status: generations.status,
        mode: generations.mode,
        creditsCost: generations.creditsCost,
        errorMessage: generations.errorMessage,
        resultUrls: generations.resultUrls,
        createdAt: generations.createdAt,
        completedAt: generations.completedAt,
      })
      .from(generations)
      .leftJoin(user, eq(user.id, generations.userId))
      .where(opts.status ? eq(generations.status, opts.status) : undefined)
      .orderBy(desc(generations.createdAt), desc(generations.id))
      .limit(opts.limit),
  );
}

/**
 * What the header needs to stay live on every page: the user's unfinished
 * tasks, and the latest finished ones (so a page can tell which of the tasks it
 * saw running has just finished, and how).
 */
export async function liveSummary(db: Db, userId: string) {
  const pick = {
    id: generations.id,
    status: generations.status,
    prompt: generations.prompt,
    aiType: generations.aiType,
  };
  // The user's tasks newest first (the (user_id, created_at, id) index), read only until the unfinished ones are all found.
  const unfinished = Math.min(await unfinishedCount(db, userId), 50);
  const active =
    unfinished === 0
      ? []
      : await db.many(
          db
            .select(pick)
            .from(generations)
            .where(and(eq(generations.userId, userId), inArray(generations.status, ["pending", "processing"])))
            .orderBy(desc(generations.createdAt), desc(generations.id))
            .limit(unfinished),
        );
  const finished = await db.many(
    db
      .select({ ...pick, errorMessage: generations.errorMessage })
      .from(generations)
      .where(and(eq(generations.userId, userId), inArray(generations.status, ["completed", "failed"])))
      .orderBy(desc(generations.completedAt))
      .limit(10),
  );
  // A cancel is not a failure to the person who asked for it: the page says "Canceled", not "could not be made".
  return {
    active,
    finished: finished.map(({ errorMessage, ...t }) => ({
      ...t,
      canceled: wasCanceled({ status: t.status, errorMessage }),
    })),
  };
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
