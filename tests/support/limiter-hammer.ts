/**
 * One process of the limiter's exactness test (tests/integration/limits/rate-limit-bound.test.ts):
 * opens the database itself (a SQLite file or a postgres:// URL) and calls the real limiter for one bucket from
 * `startAt` for `ms` milliseconds, then prints the instants (ms) of the requests it admitted and how many it was refused.
 *
 *   bun tests/support/limiter-hammer.ts <db file or URL> <bucket> <limit> <windowMs> <startAt> <ms> <mode> <leaseMs> <pattern>
 *
 * mode: `take` (one statement per request), `leases` (`LeaseLimiter` with a lease lifetime of `leaseMs`), or
 * `leases-unbounded` (the same with leases that never expire — a broken limiter the test must catch).
 * pattern:
 * - `flat`: as fast as it can;
 * - `bursts`: bursts of 1–40 requests as fast as it can, each followed by a pause (mostly up to 3 lease lifetimes,
 *   one in twenty up to half a window), so leases end unused, expire, are given back or not, and are refused at k > 1;
 * - `phase-hammer` / `phase-burst`, a pair: in every window the hammer is idle for its first 30 % (the bucket
 *   drains) and then as fast as it can; the burster sends 8 requests at 10 % (a lease with tokens left) and 8 more
 *   at 60 %, when the hammer has filled the bucket (the tokens left must not be used then).
 */
import { openDatabase, openPostgres } from "#db/client";
import { LeaseLimiter, take } from "~/domain/rate-limits/limiter.server";

const [file, bucket, limit, windowMs, startAt, ms, mode = "take", leaseMs = "250", pattern = "flat"] =
  process.argv.slice(2);
const db = file!.startsWith("postgres://")
  ? await openPostgres(file!, { migrate: false, poolMax: 1 })
  : openDatabase(file!, { migrate: false });
const policy = { name: "bound", limit: Number(limit), windowMs: Number(windowMs) };
const limiter = new LeaseLimiter(db, {
  leaseMs: mode === "leases-unbounded" ? Number.MAX_SAFE_INTEGER : Number(leaseMs),
});
const check =
  mode === "take"
    ? (now: number) => take(db, bucket!, policy, now)
    : (now: number) => limiter.take(bucket!, policy, now);
const W = Number(windowMs);
const t0 = Number(startAt);
const end = t0 + Number(ms);
while (Date.now() < t0);
const admitted: number[] = [];
let refused = 0;
let burst = 0;
async function one(now: number) {
  if ((await check(now)).allowed) admitted.push(now);
  else refused++;
}
if (pattern === "phase-burst") {
  for (let cycle = 0; t0 + cycle * W < end; cycle++) {
    for (const at of [0.1, 0.6]) {
      const when = t0 + cycle * W + at * W;
      if (when >= end) break;
      await Bun.sleep(Math.max(0, when - Date.now()));
      for (let i = 0; i < 8; i++) await one(Date.now());
    }
  }
} else {
  for (let now = Date.now(); now < end; now = Date.now()) {
    if (pattern === "phase-hammer" && (now - t0) % W < 0.3 * W) {
      await Bun.sleep(0.3 * W - ((now - t0) % W));
      continue;
    }
    await one(now);
    if (pattern === "bursts" && --burst <= 0) {
      burst = 1 + Math.floor(Math.random() * 40);
      // Mostly short pauses (the bucket stays full), sometimes long ones (it drains while a lease has tokens left).
      // Long ones are rare and at most half a window, so the two processes together still ask for about four times
      // the limit and the bucket is full at times in every run (one in ten up to a whole window asked for about
      // 1.4 times it, and a quiet machine's run once never filled it).
      await Bun.sleep(Math.random() < 0.95 ? Math.random() * 3 * Number(leaseMs) : (Math.random() * W) / 2);
    }
  }
}
await db.close();
console.log(JSON.stringify({ admitted, refused, statements: limiter.statements }));
