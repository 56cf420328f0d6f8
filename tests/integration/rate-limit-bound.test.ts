/**
 * The limiter's exactness bound (DESIGN §5, docs/performance.md): two
 * processes, each with its own connection to one database (the SQLite file, or
 * PostgreSQL on the ATELIER_TEST_PG run), hammer one
 * user's bucket through the real limiter as fast as they can. Whatever the
 * interleaving, the requests admitted with `now` in any interval [a, b] must
 * number at most (W + b − a) / T (T = W / limit): a burst of `limit`, then
 * the steady rate — never more, however the two processes race.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, openPostgres } from "#db/client";
import { createTestDatabase, dropTestDatabase, onPostgres } from "../support/engine";
import { ROOT } from "../support/server";

const LIMIT = 500;
const WINDOW_MS = 1000;
const RUN_MS = 2500;
const T_US = (WINDOW_MS * 1000) / LIMIT; // 2,000 µs: the limit divides the window

test("two processes hammering one user never get more than the bound through", async () => {
  const dir = mkdtempSync(join(tmpdir(), "atelier-bound-"));
  // Migrated once, before the processes start.
  const file = onPostgres ? await createTestDatabase("bound") : join(dir, "atelier.db");
  await (onPostgres ? await openPostgres(file) : openDatabase(file)).close();
  const startAt = Date.now() + 1500; // both processes are up and spinning by then
  const procs = [0, 1].map(() =>
    Bun.spawn(["bun", join(ROOT, "tests/support/limiter-hammer.ts"), file, "user:hammered", String(LIMIT), String(WINDOW_MS), String(startAt), String(RUN_MS)], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "inherit",
    }),
  );
  const outs = await Promise.all(procs.map(async (p) => JSON.parse(await new Response(p.stdout).text()) as { admitted: number[]; refused: number }));
  rmSync(dir, { recursive: true, force: true });
  if (onPostgres) await dropTestDatabase(file);

  // Both processes took part and both were refused: they really contended for one bucket.
  for (const o of outs) {
    expect(o.admitted.length).toBeGreaterThan(0);
    expect(o.refused).toBeGreaterThan(0);
  }
  const all = outs.flatMap((o) => o.admitted).sort((x, y) => x - y);
  // The bound, for every interval whose ends are admitted requests.
  let worst = 0;
  for (let i = 0; i < all.length; i++) {
    for (let j = i; j < all.length; j++) {
      const allowed = Math.floor((WINDOW_MS * 1000 + (all[j]! - all[i]!) * 1000) / T_US);
      worst = Math.max(worst, j - i + 1 - allowed);
    }
  }
  expect(worst).toBeLessThanOrEqual(0);
  // And not much stricter than it needs to be: over the whole run, near the bound. Not exact: on a loaded machine
  // both hammering processes can be descheduled at once while the bucket is full, and that capacity is lost.
  const span = all.at(-1)! - all[0]!;
  expect(all.length).toBeGreaterThanOrEqual(Math.floor(0.9 * Math.floor((WINDOW_MS + span) * 1000 / T_US)));
}, 30_000);
