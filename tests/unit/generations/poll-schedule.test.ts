/**
 * Time to visible (docs/studio.md "Time to visible"): the runner polls an async job when the provider says it will be
 * ready, a poll scheduled in this process is claimed when due (not at the next tick), and a task created in this
 * process is claimed at once.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { openDatabase } from "#db/client";
import { generations } from "#db/schema";
import { createRunner } from "#jobs/runner";
import { findOffering } from "~/domain/catalog";
import { grantCredits } from "~/domain/credits/ledger.server";
import { claimDue } from "~/domain/generations/claim.server";
import { createGeneration } from "~/domain/generations/create.server";
import {
  LIVE_POLL_STEPS_MS,
  MAX_POLL_DELAY_MS,
  POLL_RETRY_MIN_MS,
  pollDelayMs,
  pollRetryDelayMs,
  runStep,
} from "~/domain/generations/lifecycle.server";
import { createRegistry } from "~/domain/generations/registry.server";
import { manualClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import type { AsyncProvider } from "~/providers/types";
import { LocalStorage } from "~/storage/local.server";
import { createUserSync } from "../../support/fixtures";

const dir = mkdtempSync(join(tmpdir(), "atelier-poll-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CONFIG = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
const flux = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!;

async function setup(clock: { now(): number }) {
  const db = openDatabase(":memory:");
  const userId = crypto.randomUUID();
  createUserSync(db, { id: userId, at: clock.now(), email: `${userId}@x.test` });
  await db.exec(grantCredits(db, { userId, amount: 100, source: "admin" }, clock));
  const create = (prompt: string) =>
    createGeneration(
      db,
      { userId, input: { offering: flux, prompt, options: {} }, mode: "simulated", config: CONFIG },
      clock,
    );
  return { db, create };
}

describe("poll schedule", () => {
  test("the provider's estimate sets the next poll (at most 5 s; 50 ms at least after the first)", () => {
    expect(pollDelayMs(0, "simulated", 1500, 1500)).toBe(1500);
    expect(pollDelayMs(0, "live", 1500, 1234.4)).toBe(1234);
    expect(pollDelayMs(0, "live", 1500, 60_000)).toBe(MAX_POLL_DELAY_MS);
    expect(pollDelayMs(0, "simulated", 0, 0)).toBe(0);
    expect(pollDelayMs(3, "live", 0, 0)).toBe(50);
    expect(pollDelayMs(3, "live", 0, -5)).toBe(50);
    // Without an estimate, the backoff schedule.
    expect(pollDelayMs(0, "live", 1500)).toBe(250);
    expect(pollDelayMs(0, "simulated", 1500, Number.NaN)).toBe(375);
  });

  test("a live provider without an estimate: quick first polls, then growing to 5 s, few calls for a long job", () => {
    const delays = Array.from({ length: 40 }, (_, n) => pollDelayMs(n, "live", 0));
    expect(delays.slice(0, LIVE_POLL_STEPS_MS.length)).toEqual([...LIVE_POLL_STEPS_MS]);
    expect(delays.slice(0, 7)).toEqual([250, 500, 1000, 1500, 2250, 3375, 5000]);
    // Never shorter than the step before, never longer than the ceiling.
    for (let n = 1; n < delays.length; n++) expect(delays[n]!).toBeGreaterThanOrEqual(delays[n - 1]!);
    expect(Math.max(...delays)).toBe(MAX_POLL_DELAY_MS);
    // Bounded: the first 10 s cost 6 calls (4 with 1 s × 1.5ⁿ), a 2-minute job 28 (26).
    const callsWithin = (ms: number) => {
      let at = 0;
      let n = 0;
      while ((at += pollDelayMs(n, "live", 0)) <= ms) n++;
      return n;
    };
    expect(callsWithin(10_000)).toBe(6);
    expect(callsWithin(120_000)).toBe(28);
  });

  test("after a failed poll a live provider waits at least 1 s, and at least a 429's Retry-After", () => {
    expect(pollRetryDelayMs(1, "live", 0)).toBe(POLL_RETRY_MIN_MS);
    expect(pollRetryDelayMs(4, "live", 0)).toBe(2250);
    expect(pollRetryDelayMs(1, "live", 0, 7000)).toBe(7000);
    expect(pollRetryDelayMs(1, "live", 0, Number.NaN)).toBe(POLL_RETRY_MIN_MS);
    // The simulator keeps its own schedule.
    expect(pollRetryDelayMs(1, "simulated", 1500)).toBe(pollDelayMs(1, "simulated", 1500));
  });

  test("runStep schedules the first poll at the submit's estimate and asks the runner to wake then", async () => {
    const clock = manualClock();
    const { db, create } = await setup(clock);
    const g = await create("a cat");
    const provider: AsyncProvider = {
      name: "replicate",
      mode: "live",
      lifecycle: "async",
      submit: async () => ({ upstreamTaskId: "up-1", readyInMs: 1700 }),
      poll: async () => ({ state: "running", readyInMs: 300 }),
    };
    const wakes: number[] = [];
    const ctx = {
      db,
      clock,
      config: { SIMULATOR_DELAY_MS: 0, OUTBOUND_ALLOW_PRIVATE: false },
      providers: { get: () => provider, mode: () => provider.mode, upstreamModel: (_p: string, m: string) => m },
      storage: new LocalStorage(dir, "http://pub/media"),
      owner: "A",
      wakeAt: (at: number) => wakes.push(at),
    };
    const step = async () => {
      for (const t of await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock))
        await runStep(ctx, t, new AbortController().signal);
    };
    const t0 = clock.now();
    await step();
    const nextPollAt = () => db.select().from(generations).where(eq(generations.id, g.id)).get()!.nextPollAt;
    expect(nextPollAt()).toBe(t0 + 1700);
    expect(wakes).toEqual([t0 + 1700]);
    clock.advance(1700);
    await step();
    expect(nextPollAt()).toBe(t0 + 2000);
    expect(wakes).toEqual([t0 + 1700, t0 + 2000]);
  });

  test("the runner claims a new task at once and polls it when the simulated job is ready, whatever its tick", async () => {
    const clock = { now: () => Date.now() };
    const { db, create } = await setup(clock);
    // A tick far longer than the job: only the wake-ups can finish it in time.
    const config = parseConfig({ DATA_DIR: dir, SIMULATOR_DELAY_MS: "300", JOB_TICK_MS: "20000", C2PA: "false" });
    const runner = createRunner({
      db,
      clock,
      config,
      providers: createRegistry(config, clock),
      storage: new LocalStorage(dir, "http://pub/media"),
    });
    runner.start();
    await runner.idle();
    try {
      const created = Date.now();
      const g = await create("a fox");
      const read = () => db.select().from(generations).where(eq(generations.id, g.id)).get()!;
      while (read().status !== "completed" && Date.now() - created < 3000) await Bun.sleep(5);
      const r = read();
      expect(r.status).toBe("completed");
      const readyAt = Number(/^sim_(\d+)_/.exec(r.upstreamTaskId!)![1]);
      // Claimed at once: the job began within a moment of the create.
      expect(readyAt - created).toBeLessThan(300 + 150);
      // Seen finished when it was ready (the file rendered and stored, the debit written), not a tick later.
      expect(r.completedAt!.getTime() - readyAt).toBeLessThan(200);
      // Two steps, the submit and the one poll; the second ends after the placeholder is kept, a moment after the
      // completion is visible.
      await runner.idle();
      expect(runner.stats().steps).toBe(2);
    } finally {
      await runner.stop(1000);
    }
  });
});
