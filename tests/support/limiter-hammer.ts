/**
 * One process of the limiter's exactness test (tests/integration/rate-limit-bound.test.ts):
 * opens the database itself (a SQLite file or a postgres:// URL) and calls the real limiter (`take`) for one
 * bucket as fast as it can from `startAt` for `ms` milliseconds, then prints
 * the instants (ms) of the requests it admitted and how many it was refused.
 *
 *   bun tests/support/limiter-hammer.ts <db file or URL> <bucket> <limit> <windowMs> <startAt> <ms>
 */
import { openDatabase, openPostgres } from "#db/client";
import { take } from "~/domain/rate-limits/limiter.server";

const [file, bucket, limit, windowMs, startAt, ms] = process.argv.slice(2);
const db = file!.startsWith("postgres://") ? await openPostgres(file!, { migrate: false, poolMax: 1 }) : openDatabase(file!, { migrate: false });
const policy = { name: "bound", limit: Number(limit), windowMs: Number(windowMs) };
const end = Number(startAt) + Number(ms);
while (Date.now() < Number(startAt));
const admitted: number[] = [];
let refused = 0;
for (let now = Date.now(); now < end; now = Date.now()) {
  if ((await take(db, bucket!, policy, now)).allowed) admitted.push(now);
  else refused++;
}
await db.close();
console.log(JSON.stringify({ admitted, refused }));
