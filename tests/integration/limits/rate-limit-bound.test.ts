/**
 * The limiter's exactness bounds (decide.ts, docs/performance.md): two
 * processes, each with its own connection to one database (the SQLite file, or
 * PostgreSQL on the ATELIER_TEST_PG run), hammer one user's bucket through the
 * real limiter. Whatever the interleaving, the requests admitted with `now` in
 * any interval [a, b] must number at most
 *  - one statement per request (`take`): (W + b − a) / T (T = W / limit) — a
 *    burst of `limit`, then the steady rate;
 *  - with leases of lifetime L (`LeaseLimiter`): (W + b − a + L) / T.
 * A limiter whose leases never expire breaks the second bound (checked here
 * too, so the test can tell).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, openPostgres } from "#db/client";
import { createTestDatabase, dropTestDatabase, onPostgres } from "../../support/engine";
import { ROOT } from "../../support/server";

const LIMIT = 500;
const WINDOW_MS = 1000;
const RUN_MS = 2500;
const T_US = (WINDOW_MS * 1000) / LIMIT; // 2,000 µs: the limit divides the window
/** The lease lifetime in this test: 2 T, so the bound's slack (L / T = 2 requests) is small next to a lease's reach. */
const LEASE_MS = 4;

type Out = { admitted: number[]; refused: number; statements: number };

async function hammer(mode: "take" | "leases" | "leases-unbounded", patterns: [string, string]): Promise<Out[]> {
  const dir = mkdtempSync(join(tmpdir(), "atelier-bound-"));
  // Migrated once, before the processes start.
  const file = onPostgres ? await createTestDatabase("bound") : join(dir, "atelier.db");
  await (onPostgres ? await openPostgres(file) : openDatabase(file)).close();
  const startAt = Date.now() + 1500; // both processes are up and spinning by then
  const args = [
    file,
    "user:hammered",
    String(LIMIT),
    String(WINDOW_MS),
    String(startAt),
    String(RUN_MS),
    mode,
    String(LEASE_MS),
  ];
  const procs = patterns.map((pattern) =>
    Bun.spawn(["bun", join(ROOT, "tests/support/limiter-hammer.ts"), ...args, pattern], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "inherit",
    }),
  );
  const outs = await Promise.all(procs.map(async (p) => JSON.parse(await new Response(p.stdout).text()) as Out));
  rmSync(dir, { recursive: true, force: true });
  if (onPostgres) await dropTestDatabase(file);
  return outs;
}

/** How far the admitted instants exceed `limit + (b − a + slackMs) · limit / W` at worst, over every interval between two of them. */
function worstExcess(all: number[], slackMs: number): number {
  let worst = -Infinity;
  for (let i = 0; i < all.length; i++) {
    for (let j = i; j < all.length; j++) {
      const allowed = Math.floor(((WINDOW_MS + slackMs) * 1000 + (all[j]! - all[i]!) * 1000) / T_US);
      worst = Math.max(worst, j - i + 1 - allowed);
    }
  }
  return worst;
}

describe("two processes hammering one user never get more than the bound through", () => {
  test("one statement per request: limit + (b − a) · limit / W", async () => {
    const outs = await hammer("take", ["flat", "flat"]);
    // Both processes took part and both were refused: they really contended for one bucket.
    for (const o of outs) {
      expect(o.admitted.length).toBeGreaterThan(0);
      expect(o.refused).toBeGreaterThan(0);
    }
    const all = outs.flatMap((o) => o.admitted).sort((x, y) => x - y);
    expect(worstExcess(all, 0)).toBeLessThanOrEqual(0);
    // And not much stricter than it needs to be: over the whole run, near the bound. Not exact: on a loaded machine
    // both hammering processes can be descheduled at once while the bucket is full, and that capacity is lost (83% of
    // the bound was seen at load average 15 on PostgreSQL). A limiter that counts a request twice gets half through.
    const span = all.at(-1)! - all[0]!;
    expect(all.length).toBeGreaterThanOrEqual(Math.floor(0.75 * Math.floor(((WINDOW_MS + span) * 1000) / T_US)));
  }, 30_000);

  test("leases (lifetime L), both in bursts and pauses: limit + (b − a + L) · limit / W, with fewer statements than requests", async () => {
    const outs = await hammer("leases", ["bursts", "bursts"]);
    for (const o of outs) expect(o.admitted.length).toBeGreaterThan(0);
    expect(outs[0]!.refused + outs[1]!.refused).toBeGreaterThan(0); // the bucket was full at times
    const all = outs.flatMap((o) => o.admitted).sort((x, y) => x - y);
    expect(worstExcess(all, LEASE_MS)).toBeLessThanOrEqual(0);
    expect(outs[0]!.statements + outs[1]!.statements).toBeLessThan(all.length);
    // The pauses leave capacity unused, so no lower bound on the total here; the one-process behaviour at the
    // limit is pinned in tests/unit/limits/ (rate-limit.test.ts, leases.test.ts).
  }, 30_000);

  test("leases, one process filling the bucket while the other holds a lease with tokens left: the same bound", async () => {
    const outs = await hammer("leases", ["phase-hammer", "phase-burst"]);
    const all = outs.flatMap((o) => o.admitted).sort((x, y) => x - y);
    expect(outs[0]!.refused).toBeGreaterThan(0);
    expect(worstExcess(all, LEASE_MS)).toBeLessThanOrEqual(0);
  }, 30_000);

  test("a broken limiter whose leases never expire goes over that bound (the test can fail)", async () => {
    // The excess needs the burster's second burst to land while the hammer has the bucket full. On a machine running
    // other test files at once both processes can be descheduled through that moment (seen once: 2 under the bound),
    // so up to three runs are tried; a limiter that keeps the bound never goes over in any of them.
    let worst = -Infinity;
    for (let run = 1; run <= 3 && worst <= 0; run++) {
      const outs = await hammer("leases-unbounded", ["phase-hammer", "phase-burst"]);
      worst = worstExcess(
        outs.flatMap((o) => o.admitted).sort((x, y) => x - y),
        LEASE_MS,
      );
      console.log(`leases that never expire, run ${run}: ${worst} over the bound`);
    }
    expect(worst).toBeGreaterThan(0);
  }, 60_000);
});
