/**
 * Time to visible for a live provider that gives no estimate (docs/studio.md "Time to visible"): the real Replicate
 * adapter against the Replicate fake (tests/fakes/replicate.ts), whose predictions finish on the third poll and whose
 * answers carry no time estimate. The runner's steps run on a manual clock, so the test reads the schedule the
 * runner wrote and the polls the fake received, not wall-clock times.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { openDatabase } from "#db/client";
import { generations } from "#db/schema";
import { findOffering } from "~/domain/catalog";
import { grantCredits } from "~/domain/credits/ledger.server";
import { claimDue } from "~/domain/generations/claim.server";
import { createGeneration } from "~/domain/generations/create.server";
import { runStep, type StepContext } from "~/domain/generations/lifecycle.server";
import { createRegistry } from "~/domain/generations/registry.server";
import { manualClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { LocalStorage } from "~/storage/local.server";
import { startReplicateFake } from "../../fakes/replicate";
import { createUserSync } from "../../support/fixtures";

const dir = mkdtempSync(join(tmpdir(), "atelier-first-polls-"));
const fake = startReplicateFake();
afterAll(async () => {
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a job that finishes on the third poll is seen 1.75 s after the submit (250, 500, 1000 ms), not 4.75 s", async () => {
  fake.steps = { starting: 1, processing: 1 };
  const clock = manualClock();
  const config = parseConfig({
    DATA_DIR: dir,
    REPLICATE_API_TOKEN: fake.token,
    REPLICATE_BASE_URL: fake.baseUrl,
    OUTBOUND_ALLOW_PRIVATE: "true",
  });
  const db = openDatabase(":memory:");
  const userId = crypto.randomUUID();
  createUserSync(db, { id: userId, at: clock.now(), email: `${userId}@x.test` });
  await db.exec(grantCredits(db, { userId, amount: 100, source: "admin" }, clock));
  const offering = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!;
  const g = await createGeneration(
    db,
    { userId, input: { offering, prompt: "a heron at dawn", options: {} }, mode: "live", config },
    clock,
  );
  const wakes: number[] = [];
  const ctx: StepContext = {
    db,
    clock,
    config,
    providers: createRegistry(config, clock),
    storage: new LocalStorage(dir, "http://pub/media"),
    owner: "A",
    wakeAt: (at) => wakes.push(at),
  };
  const row = () => db.select().from(generations).where(eq(generations.id, g.id)).get()!;
  const polls = () => fake.state.requests.filter((r) => r.method === "GET" && r.path.startsWith("/v1/predictions/"));

  const t0 = clock.now();
  const step = async () => {
    const claimed = await claimDue(db, { owner: "A", limit: 1, leaseMs: 30_000 }, clock);
    for (const t of claimed) await runStep(ctx, t, new AbortController().signal);
    return claimed.length;
  };
  await step(); // submit: the adapter reports no estimate
  expect(fake.state.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  for (const [n, due] of [
    [1, 250],
    [2, 750],
    [3, 1750],
  ] as const) {
    expect(row().nextPollAt).toBe(t0 + due);
    clock.set(t0 + due - 1);
    expect(await step()).toBe(0); // not polled before its time
    expect(polls()).toHaveLength(n - 1);
    clock.set(t0 + due);
    expect(await step()).toBe(1);
    expect(polls()).toHaveLength(n);
  }
  // Seen completed at the third poll, 1.75 s after the submit (the 1 s × 1.5ⁿ schedule polled at 1, 2.5, 4.75 s).
  expect(row()).toMatchObject({ status: "completed", pollCount: 2, completedAt: new Date(t0 + 1750) });
  expect(wakes).toEqual([t0 + 250, t0 + 750, t0 + 1750]);
});
