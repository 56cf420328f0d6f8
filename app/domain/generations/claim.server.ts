/**
 * Claiming due tasks (docs/design.md §4): one guarded `UPDATE … RETURNING` whose returned rows say which tasks this
 * process won, so any number of runner processes on one database take each task once.
 */
import { and, asc, eq, getTableColumns, isNull, lte, or, sql } from "drizzle-orm";
import { type Db, type Drizzle, inJsonArray, many, type Steps, skipLocked, type Tx } from "#db/client";
import { prepared } from "#db/prepared";
import { generations } from "#db/schema";
import type { Clock } from "~/lib/clock";
import type { GenerationRow } from "./views.server";

export interface ClaimedTask {
  row: GenerationRow;
  /** The previous owner's lease had expired: that process died in the middle of a step. */
  reclaimed: boolean;
}

/**
 * Tasks that may be worked on now: pending ones, and processing ones nobody holds whose next poll is due.
 * The claim's guard: wrapped in `coalesce(…, false)` (the same truth on both engines) so that SQLite's planner
 * takes the claimed ids by primary key; the bare OR made it read every pending and processing task through the
 * status index on each claim (a "MULTI-INDEX OR"), a cost that grew with the backlog.
 */
export const due = (now: ReturnType<typeof sql.placeholder> | number) =>
  sql`coalesce(${or(
    eq(generations.status, "pending"),
    and(
      eq(generations.status, "processing"),
      or(isNull(generations.leaseUntil), lte(generations.leaseUntil, now)),
      or(isNull(generations.nextPollAt), lte(generations.nextPollAt, now)),
    ),
  )}, false)`;

const now$ = sql.placeholder("now");
const limit$ = sql.placeholder("limit");
const owner$ = sql.placeholder("owner");

const cols = { id: generations.id, leaseUntil: generations.leaseUntil };

/** A status as a literal, not a parameter: PostgreSQL's generic plan of a prepared claim then still sees how few rows match. */
const statusIs = (status: "pending" | "processing") => sql`${generations.status} = ${sql.raw(`'${status}'`)}`;
const candidate = (t: Tx) => t.select(cols).from(generations).$dynamic();

/**
 * The due candidates of each kind, in the order they are taken, all read through generations_claim_idx
 * (status, next_poll_at, created_at, id) with no sort: polls that are due, leases that expired (a crashed process),
 * then new tasks oldest first. New tasks have no next poll; ordering them by it too lets PostgreSQL see that the
 * index order is the wanted one (it does not treat `IS NULL` as fixing the column).
 */
const candidates: [name: string, build: (t: Tx) => ReturnType<typeof candidate>][] = [
  [
    "polls",
    (t) =>
      candidate(t)
        .where(
          and(
            statusIs("processing"),
            lte(generations.nextPollAt, now$),
            or(isNull(generations.leaseUntil), lte(generations.leaseUntil, now$)),
          ),
        )
        .orderBy(asc(generations.nextPollAt))
        .limit(limit$),
  ],
  [
    "expired",
    (t) =>
      candidate(t)
        .where(and(statusIs("processing"), isNull(generations.nextPollAt), lte(generations.leaseUntil, now$)))
        // In the index's order: once ANALYZE has seen a history of finished tasks, SQLite otherwise scans the table.
        .orderBy(asc(generations.nextPollAt))
        .limit(limit$),
  ],
  [
    "fresh",
    (t) =>
      candidate(t)
        .where(and(statusIs("pending"), isNull(generations.nextPollAt)))
        .orderBy(asc(generations.nextPollAt), asc(generations.createdAt), asc(generations.id))
        .limit(limit$),
  ],
];

/** What a claim writes: processing, leased to `owner` until `leaseUntil`; a submit not yet sent counts as an attempt. */
const claimed = {
  status: "processing",
  leaseOwner: sql`${owner$}`,
  leaseUntil: sql`${sql.placeholder("leaseUntil")}`,
  startedAt: sql`coalesce(${generations.startedAt}, ${now$})`,
  attempts: sql`${generations.attempts} + (case when ${generations.upstreamTaskId} is null then 1 else 0 end)`,
} as const;

/** SQLite: the candidates, read inside the claim's write transaction (which already excludes every other claimer). */
function* dueCandidates(t: Tx, now: number, limit: number): Steps<{ id: string; leaseUntil: number | null }[]> {
  const found: { id: string; leaseUntil: number | null }[] = [];
  for (const [name, build] of candidates) {
    if (found.length >= limit) break;
    found.push(...(yield* many(prepared(t, `lifecycle.${name}`, build), { now, limit: limit - found.length })));
  }
  return found;
}

/**
 * PostgreSQL: the whole claim in one statement, one round trip. Each kind's candidates are read in a CTE with
 * `FOR UPDATE SKIP LOCKED` (rows another node is claiming are skipped, not waited for); `c` takes them in order up to
 * the limit (a CTE is read only as far as its reader asks, so no more rows are locked than taken); the UPDATE takes
 * them and returns each row with whether its previous lease had expired.
 */
export function pgClaim(d: Drizzle) {
  const kinds = candidates.map(([name, build]) => d.$with(name).as(skipLocked(build(d))));
  const [first, ...rest] = kinds.map((k) => d.select().from(k).$dynamic());
  const c = d.$with("c").as(rest.reduce((all, next) => all.unionAll(next), first!).limit(limit$));
  return d
    .with(...kinds, c)
    .update(generations)
    .set(claimed)
    .from(c)
    .where(and(eq(generations.id, c.id), due(now$)))
    .returning({ ...getTableColumns(generations), reclaimed: sql<boolean>`${c.leaseUntil} is not null` });
}

/** The claim statement of each PostgreSQL pool, built and rendered once (that costs several times what running it does). */
const pgClaims = new WeakMap<Drizzle, ReturnType<ReturnType<typeof pgClaim>["prepare"]>>();

/**
 * Claims up to `limit` due tasks for `owner` until now + leaseMs: the candidates taken with one guarded
 * `UPDATE … RETURNING` (the guard re-checks that each is still due). On PostgreSQL one statement (`pgClaim`); on
 * SQLite one write transaction, after a cheap read with `probe` (so idle ticks take no write lock).
 */
export async function claimDue(
  db: Db,
  args: { owner: string; limit: number; leaseMs: number; probe?: boolean },
  clock: Clock,
): Promise<ClaimedTask[]> {
  if (args.limit <= 0) return [];
  const now = clock.now();
  const params = { owner: args.owner, leaseUntil: now + args.leaseMs, now, limit: args.limit };
  if (db.engine === "postgres") {
    let claim = pgClaims.get(db.drizzle);
    if (!claim) pgClaims.set(db.drizzle, (claim = pgClaim(db.drizzle).prepare()));
    const rows = await db.many(claim, params);
    return rows.map(({ reclaimed, ...row }) => ({ row, reclaimed }));
  }
  if (args.probe !== false && (await db.exec(dueCandidates(db, now, 1))).length === 0) return [];
  return db.tx(function* (t) {
    const found = yield* dueCandidates(t, now, args.limit);
    if (found.length === 0) return [];
    const claim = prepared(t, "lifecycle.claim", (t) =>
      t
        .update(generations)
        .set(claimed)
        .where(and(inJsonArray(t, generations.id, sql.placeholder("ids")), due(now$)))
        .returning(),
    );
    const rows = yield* many(claim, { ...params, ids: JSON.stringify(found.map((c) => c.id)) });
    const expired = new Set(found.filter((c) => c.leaseUntil !== null).map((c) => c.id));
    return rows.map((row) => ({ row, reclaimed: expired.has(row.id) }));
  });
}
