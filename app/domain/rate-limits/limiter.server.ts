/**
 * Rate limits shared by every process (and, on PostgreSQL, every node) through
 * the database: GCRA with one row per bucket (`rate_limits`: bucket → tat in
 * µs; the math and its exactness bound are in decide.ts). One atomic statement
 * per request, whatever the limit or the window:
 *
 *   INSERT … ON CONFLICT (bucket) DO UPDATE SET tat = … WHERE <admitted> RETURNING tat
 *
 * A row back means admitted (and tat moved); no row means refused (nothing
 * written), and only then a second read fetches tat for Retry-After. The
 * decision is taken and applied inside the one statement, under the row's
 * write lock, so two processes can never both take the last slot. No per-hit
 * rows, nothing to sweep: a row whose tat is past is the same as no row.
 */
import type { Db } from "#db/client";
import { admitted, denied, intervalUs, US_PER_MS, type Decision, type Policy } from "./decide";

/**
 * The statement, portable: SQLite ≥ 3.35 and PostgreSQL run the same text
 * (`$n` are numbered parameters on both): $1 bucket, $2 now (µs), $3 the
 * emission interval T (µs), $4 the window W (µs).
 */
const now = "CAST($2 AS BIGINT)";
const start = `(CASE WHEN rate_limits.tat > ${now} THEN rate_limits.tat ELSE ${now} END)`;
const GCRA_SQL =
  `INSERT INTO rate_limits (bucket, tat) VALUES ($1, ${now} + CAST($3 AS BIGINT)) ` +
  `ON CONFLICT (bucket) DO UPDATE SET tat = ${start} + CAST($3 AS BIGINT) ` +
  `WHERE ${start} + CAST($3 AS BIGINT) - ${now} <= CAST($4 AS BIGINT) ` +
  `RETURNING tat`;

const READ = "SELECT tat FROM rate_limits WHERE bucket = ?";

/** One request against `bucket` at `nowMs`: admitted (and counted) or refused. */
export async function take(db: Db, bucket: string, policy: Pick<Policy, "limit" | "windowMs">, nowMs: number): Promise<Decision> {
  const row = await db.raw<{ tat: number | string }>(GCRA_SQL).one(bucket, Math.floor(nowMs * US_PER_MS), intervalUs(policy), policy.windowMs * US_PER_MS);
  if (row) return admitted(policy, nowMs, Number(row.tat));
  return denied(policy, nowMs, Number((await db.raw<{ tat: number | string }>(READ).one(bucket))?.tat ?? 0));
}
