/**
 * The task lifecycle at the domain, from its surviving mutants: claim limits
 * across the three kinds of due tasks, the idle probe, leases, the guarded
 * transitions' answers, wake-ups, and runStep's paths (deadline, shutdown,
 * cancel during submit, poll states, retries, storage, timings). Messages are
 * the literals of docs/decisions/020-no-double-submit-after-crash.md and docs/reliability.md.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { type Db, inJsonArray, openDatabase } from "#db/client";
import { creditDebits, generations, webhookEndpoints } from "#db/schema";
import { findOffering } from "~/domain/catalog";
import { grantCredits } from "~/domain/credits/ledger.server";
import { cancelTransition } from "~/domain/generations/cancel.server";
import { onGenerationChange, onOutbox } from "~/domain/generations/changes.server";
import { claimDue, due } from "~/domain/generations/claim.server";
import { createGeneration } from "~/domain/generations/create.server";
import {
  POLL_RETRY_MIN_MS,
  planStep,
  runStep,
  type StepContext,
  toRequest,
} from "~/domain/generations/lifecycle.server";
import type { ProviderRegistry } from "~/domain/generations/registry.server";
import { StorageError, storeResults } from "~/domain/generations/results.server";
import {
  completeGeneration,
  failGeneration,
  markSubmitted,
  renewLeases,
  schedulePoll,
} from "~/domain/generations/transitions.server";
import type { GenerationRow } from "~/domain/generations/views.server";
import { manualClock } from "~/lib/clock";
import {
  type AsyncProvider,
  type Provider,
  ProviderError,
  type ResultAsset,
  type SyncProvider,
} from "~/providers/types";
import type { ResultStorage } from "~/storage/types";
import { createUser } from "../../support/fixtures";

const CONFIG = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
const flux = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!;
const never = new AbortController().signal;
/** A real PNG: the result pipeline's first step judges a result by its bytes (app/domain/results/check-bytes.server.ts). */
const SAMPLE_PNG = new Uint8Array(readFileSync(join(import.meta.dir, "../../fakes/assets/sample.png")));
const png = (): ResultAsset => ({ kind: "bytes", bytes: SAMPLE_PNG, contentType: "image/png" });

async function setup(file?: string) {
  const db = openDatabase(file ?? ":memory:");
  const clock = manualClock();
  const userId = crypto.randomUUID();
  await createUser(db, { id: userId, at: clock.now(), email: `${userId}@x.test` });
  await db.exec(grantCredits(db, { userId, amount: 300, source: "admin" }, clock));
  // One millisecond apart: new tasks are claimed oldest first by (created_at, id) on both engines.
  const create = async (mode: "live" | "simulated" = "live") =>
    (clock.advance(1),
    await createGeneration(
      db,
      { userId, input: { offering: flux, prompt: "a cat", options: {} }, mode, config: CONFIG },
      clock,
    )).id;
  const row = async (id: string) => (await db.one(db.select().from(generations).where(eq(generations.id, id))))!;
  const set = (id: string, v: Partial<typeof generations.$inferInsert>) =>
    db.run(db.update(generations).set(v).where(eq(generations.id, id)));
  return { db, clock, userId, create, row, set };
}

const ids = (tasks: { row: GenerationRow }[]) => tasks.map((t) => t.row.id);

function memoryStorage(fail = false): ResultStorage & { keys: string[] } {
  const keys: string[] = [];
  return {
    kind: "local",
    keys,
    async put(key) {
      if (fail) throw new Error("EROFS: read-only file system");
      keys.push(key);
      return `http://pub/media/${key}`;
    },
  };
}

function ctx(
  db: Db,
  clock: ReturnType<typeof manualClock>,
  provider: Provider,
  storage: ResultStorage = memoryStorage(),
): StepContext {
  const providers: ProviderRegistry = { get: () => provider, mode: () => provider.mode, upstreamModel: (_p, m) => m };
  return {
    db,
    clock,
    config: { SIMULATOR_DELAY_MS: 0, OUTBOUND_ALLOW_PRIVATE: false },
    providers,
    storage,
    owner: "A",
    timings: { provider: 0, store: 0, db: 0 },
  };
}

async function step(c: StepContext, signal = never) {
  const tasks = await claimDue(c.db, { owner: c.owner, limit: 1, leaseMs: 60_000 }, c.clock);
  for (const t of tasks) await runStep(c, t, signal);
  return tasks.length;
}

describe("claimDue", () => {
  test("the limit holds across due polls, expired leases and new tasks, in that order", async () => {
    const { db, clock, create, set } = await setup();
    const poll = await create();
    const expired = [await create(), await create(), await create()];
    const fresh = [await create(), await create()];
    await set(poll, { status: "processing", upstreamTaskId: "up", nextPollAt: clock.now() - 1 });
    for (const id of expired) await set(id, { status: "processing", leaseOwner: "dead", leaseUntil: clock.now() - 1 });
    const first = await claimDue(db, { owner: "A", limit: 2, leaseMs: 1000 }, clock);
    expect(ids(first)).toEqual([poll, expired[0]]);
    expect(first.map((t) => t.reclaimed)).toEqual([false, true]);
    const second = await claimDue(db, { owner: "A", limit: 3, leaseMs: 1000 }, clock);
    expect(ids(second)).toEqual([expired[1], expired[2], fresh[0]]);
    expect(ids(await claimDue(db, { owner: "A", limit: 5, leaseMs: 1000 }, clock))).toEqual([fresh[1]]);
  });

  test("one due poll and new tasks: the rest of the limit goes to the oldest new ones", async () => {
    const { db, clock, create, set } = await setup();
    const poll = await create();
    const fresh = [await create(), await create(), await create()];
    await set(poll, { status: "processing", upstreamTaskId: "up", nextPollAt: clock.now() });
    expect(ids(await claimDue(db, { owner: "A", limit: 2, leaseMs: 1000 }, clock))).toEqual([poll, fresh[0]]);
  });

  test("the claim's guard lets SQLite take the claimed ids by primary key, not by reading every pending and processing task", async () => {
    const { db } = await setup();
    const now = sql.placeholder("now");
    const claim = db
      .update(generations)
      .set({ status: "processing" })
      .where(and(inJsonArray(db, generations.id, sql.placeholder("ids")), due(now)));
    const plan = db
      .sqlite!.query(`EXPLAIN QUERY PLAN ${claim.toSQL().sql}`)
      .all()
      .map((r) => (r as { detail: string }).detail)
      .join(" | ");
    expect(plan).not.toContain("MULTI-INDEX OR");
    expect(plan).toContain("sqlite_autoindex_generations_1 (id=?)");
  });

  test("a limit of 0 or less claims nothing (SQLite's LIMIT -1 would mean all)", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    for (const limit of [0, -1]) {
      expect(await claimDue(db, { owner: "A", limit, leaseMs: 1000 }, clock)).toEqual([]);
      expect(await claimDue(db, { owner: "A", limit, leaseMs: 1000, probe: false }, clock)).toEqual([]);
    }
    expect((await row(g)).status).toBe("pending");
  });

  test("an idle tick takes no write lock (the probe reads first); with probe: false it does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "atelier-probe-"));
    const file = join(dir, "probe.db");
    const { db, clock } = await setup(file);
    const blocker = openDatabase(file, { migrate: false });
    const ticker = openDatabase(file, { migrate: false, busyTimeoutMs: 50 });
    blocker.sqlite!.exec("BEGIN IMMEDIATE");
    try {
      expect(await claimDue(ticker, { owner: "A", limit: 10, leaseMs: 1000 }, clock)).toEqual([]);
      expect(
        await claimDue(ticker, { owner: "A", limit: 10, leaseMs: 1000, probe: false }, clock).then(
          () => "claimed",
          (e: Error) => e.message,
        ),
      ).toContain("locked");
    } finally {
      blocker.sqlite!.exec("ROLLBACK");
      await Promise.all([blocker.close(), ticker.close(), db.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("guarded writes answer whether they won", () => {
  test("renewLeases extends only the owner's processing tasks; an empty list changes nothing", async () => {
    const { db, clock, create, row, set } = await setup();
    const mine = await create();
    const theirs = await create();
    await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock);
    await claimDue(db, { owner: "B", limit: 1, leaseMs: 1000 }, clock);
    await renewLeases(db, "A", [mine, theirs], clock.now() + 50_000);
    expect((await row(mine)).leaseUntil).toBe(clock.now() + 50_000);
    expect((await row(theirs)).leaseUntil).toBe(clock.now() + 1000);
    await renewLeases(db, "A", [], clock.now() + 90_000);
    expect((await row(mine)).leaseUntil).toBe(clock.now() + 50_000);
    await set(mine, { status: "failed" });
    await renewLeases(db, "A", [mine], clock.now() + 70_000);
    expect((await row(mine)).leaseUntil).toBe(clock.now() + 50_000);
  });

  test("markSubmitted and schedulePoll: true for the lease holder, false for anyone else", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock);
    expect(await markSubmitted(db, { id: g, owner: "B", upstreamTaskId: "up-x", nextPollAt: 5 })).toBe(false);
    expect(await markSubmitted(db, { id: g, owner: "A", upstreamTaskId: "up-1", nextPollAt: clock.now() + 1000 })).toBe(
      true,
    );
    expect(await row(g)).toMatchObject({
      upstreamTaskId: "up-1",
      nextPollAt: clock.now() + 1000,
      leaseOwner: null,
      leaseUntil: null,
    });
    clock.advance(1000);
    await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock);
    expect(await schedulePoll(db, { id: g, owner: "B", nextPollAt: 1, countPoll: true })).toBe(false);
    expect(await schedulePoll(db, { id: g, owner: "A", nextPollAt: clock.now() + 2000, countPoll: true })).toBe(true);
    expect(await row(g)).toMatchObject({ pollCount: 1, nextPollAt: clock.now() + 2000, leaseOwner: null });
  });

  test("failGeneration keeps at most 1,000 characters of the message", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock);
    expect(await failGeneration(db, { id: g, owner: "A", message: "x".repeat(1500) }, clock)).toBe(true);
    expect((await row(g)).errorMessage).toBe("x".repeat(1000));
  });

  test("a final transition wakes the task's streams, and the dispatcher only when an event was queued", async () => {
    const { db, clock, userId, create } = await setup();
    let outbox = 0;
    const offOutbox = onOutbox(() => outbox++);
    const woke: string[] = [];
    const a = await create();
    const b = await create();
    const offs = [a, b].map((id) => onGenerationChange(id, () => woke.push(id)));
    await claimDue(db, { owner: "A", limit: 2, leaseMs: 1000 }, clock);
    await completeGeneration(db, { id: a, owner: "A", resultUrls: ["u"] }, clock);
    expect({ woke, outbox }).toEqual({ woke: [a], outbox: 0 });
    await db.run(
      db.insert(webhookEndpoints).values({
        id: "wh_1",
        userId,
        url: "https://example.test/hook",
        events: JSON.stringify(["generation.failed"]),
        secret: "whsec_x",
        createdAt: clock.now(),
      }),
    );
    await failGeneration(db, { id: b, owner: "A", message: "boom" }, clock);
    expect({ woke, outbox }).toEqual({ woke: [a, b], outbox: 1 });
    const c = await create();
    await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock);
    await completeGeneration(db, { id: c, owner: "A", resultUrls: ["u"] }, clock); // not subscribed to completions
    expect(outbox).toBe(1);
    offs.forEach((off) => off());
    offOutbox();
  });
});

describe("planStep", () => {
  const base = { deadlineAt: 10_000, upstreamTaskId: null, mode: "simulated", attempts: 1 } as unknown as GenerationRow;
  test("a task claimed more than 3 times (a crashing simulated one) fails as interrupted; the third is still submitted", async () => {
    expect(planStep({ row: { ...base, attempts: 4 }, reclaimed: true }, 0)).toEqual({
      kind: "fail",
      message: "generation interrupted by a server restart; no credits were charged, please try again",
    });
    expect(planStep({ row: { ...base, attempts: 3 }, reclaimed: true }, 0)).toEqual({ kind: "submit" });
  });
});

describe("toRequest", () => {
  test("options: a JSON object is passed on; anything else becomes {}", async () => {
    const { db, clock, create, row } = await setup();
    const g = await row(await create());
    const providers: ProviderRegistry = {
      get: () => ({}) as Provider,
      mode: () => "live",
      upstreamModel: (_p, m) => `up-${m}`,
    };
    expect(toRequest({ ...g, options: '{"aspect_ratio":"16:9"}' }, providers)).toMatchObject({
      genId: g.id,
      upstreamModel: `up-${g.model}`,
      options: { aspect_ratio: "16:9" },
    });
    for (const bad of ["[1,2]", "null", '"text"', "7", "not json"])
      expect(toRequest({ ...g, options: bad }, providers).options).toEqual({});
    void clock;
    void db;
  });
});

describe("storeResults", () => {
  test("keys are <gen_id>/<n>-<random>.<ext> by content type (bin when unknown), in order", async () => {
    const storage = memoryStorage();
    const types = [
      "image/png",
      "image/jpeg",
      "image/webp",
      "image/gif",
      "video/mp4",
      "video/webm",
      "video/quicktime",
      "application/x-thing",
    ];
    const assets = types.map((contentType) => ({ kind: "bytes" as const, bytes: new Uint8Array([1]), contentType }));
    // MAX_ASSETS_PER_TASK is 8 (docs/design.md §4): all eight are kept.
    const urls = await storeResults(storage, "g1", assets, never);
    expect(storage.keys.map((k) => k.replace(/-[A-Za-z0-9_-]{16}\./, "-R."))).toEqual(
      ["png", "jpg", "webp", "gif", "mp4", "webm", "mov", "bin"].map((ext, i) => `g1/${i}-R.${ext}`),
    );
    expect(urls).toEqual(storage.keys.map((k) => `http://pub/media/${k}`));
  });

  test("more than 8 results: the first 8 are kept; none: a provider error that is not retried", async () => {
    const storage = memoryStorage();
    expect(
      await storeResults(
        storage,
        "g2",
        Array.from({ length: 11 }, () => png()),
        never,
      ),
    ).toHaveLength(8);
    const none = await storeResults(storage, "g3", [], never).catch((e) => e);
    expect(none).toBeInstanceOf(ProviderError);
    expect({ kind: none.kind, message: none.message, retryable: none.retryable }).toEqual({
      kind: "bad_response",
      message: "the provider returned no results",
      retryable: false,
    });
  });

  test("a failing store is a StorageError naming the key and the cause", async () => {
    const e = await storeResults(memoryStorage(true), "g4", [png()], never).catch((x) => x);
    expect(e).toBeInstanceOf(StorageError);
    expect(e.name).toBe("StorageError");
    expect(e.message).toMatch(/^storing g4\/0-[A-Za-z0-9_-]{16}\.png failed: EROFS: read-only file system$/);
  });
});

describe("runStep", () => {
  test("a task past its deadline fails as timed out without calling the provider", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    let calls = 0;
    const p: SyncProvider = {
      name: "openai",
      mode: "live",
      lifecycle: "sync",
      generate: async () => (calls++, [png()]),
    };
    clock.advance(600_000);
    await step(ctx(db, clock, p));
    expect(calls).toBe(0);
    expect(await row(g)).toMatchObject({ status: "failed", errorMessage: "generation timed out" });
  });

  test("a provider call still running at the deadline is aborted and the task times out; a slower call within it completes", async () => {
    const { db, clock, create, row } = await setup();
    const slow = await create();
    const p: SyncProvider = {
      name: "openai",
      mode: "live",
      lifecycle: "sync",
      generate: (_req, signal) =>
        new Promise((resolve, reject) => {
          const done = setTimeout(() => resolve([png()]), 1500);
          signal.addEventListener("abort", () => (clearTimeout(done), reject(new ProviderError("timeout", "aborted"))));
        }),
    };
    clock.advance(600_000 - 40); // 40 ms of real time left before the deadline
    await step(ctx(db, clock, p));
    expect(await row(slow)).toMatchObject({ status: "failed", errorMessage: "generation timed out" });

    const ok = await create(); // a fresh deadline, 10 minutes away
    const q: SyncProvider = {
      ...p,
      generate: (_req, signal) =>
        new Promise((resolve, reject) => {
          const done = setTimeout(() => resolve([png()]), 30);
          signal.addEventListener(
            "abort",
            () => (clearTimeout(done), reject(new ProviderError("timeout", "aborted too early"))),
          );
        }),
    };
    const storage = memoryStorage();
    const c = ctx(db, clock, q, {
      ...storage,
      put: async (key, bytes, type) => (await Bun.sleep(2), storage.put(key, bytes, type)),
    });
    const t0 = performance.now();
    await step(c);
    const wall = performance.now() - t0;
    expect(await row(ok)).toMatchObject({ status: "completed", errorMessage: null });
    // Time per phase, for the jobs benchmark: each within the step's wall time.
    expect(c.timings!.provider).toBeGreaterThanOrEqual(25);
    expect(c.timings!.store).toBeGreaterThanOrEqual(1);
    expect(c.timings!.db).toBeGreaterThan(0);
    expect(c.timings!.provider + c.timings!.store + c.timings!.db).toBeLessThanOrEqual(wall);
  });

  test("shutting down mid-call leaves the task to another process (not failed)", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    const stop = new AbortController();
    const p: SyncProvider = {
      name: "openai",
      mode: "live",
      lifecycle: "sync",
      generate: async (_req, signal) => {
        stop.abort();
        throw signal.aborted ? new ProviderError("bad_request", "aborted") : new Error("signal not passed on");
      },
    };
    await step(ctx(db, clock, p), stop.signal);
    // Neither failed nor rescheduled: the lease stays until released at shutdown or expired.
    expect(await row(g)).toMatchObject({ status: "processing", errorMessage: null, leaseOwner: "A", nextPollAt: null });
  });

  test("canceled while submitting: the new upstream job is canceled and the task stays canceled", async () => {
    const { db, clock, userId, create, row } = await setup();
    const g = await create();
    const canceled: string[] = [];
    const p: AsyncProvider = {
      name: "replicate",
      mode: "live",
      lifecycle: "async",
      submit: async () => {
        await cancelTransition(db, userId, g, clock); // the user presses Cancel during the call
        return { upstreamTaskId: "up-late" };
      },
      poll: async () => ({ state: "running" }),
      cancel: async (id) => void canceled.push(id),
    };
    await step(ctx(db, clock, p));
    expect(canceled).toEqual(["up-late"]);
    expect(await row(g)).toMatchObject({ status: "failed", errorMessage: "canceled", upstreamTaskId: null });
  });

  test("a live submit a crashed process may have sent fails as interrupted: the provider is not called again", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    let calls = 0;
    const p: AsyncProvider = {
      name: "replicate",
      mode: "live",
      lifecycle: "async",
      submit: async () => (calls++, { upstreamTaskId: "up" }),
      poll: async () => (calls++, { state: "running" }),
    };
    await claimDue(db, { owner: "dead", limit: 1, leaseMs: 1000 }, clock); // claimed, then the process died
    clock.advance(1000);
    await step(ctx(db, clock, p));
    expect(calls).toBe(0);
    expect(await row(g)).toMatchObject({
      status: "failed",
      errorMessage: "generation interrupted by a server restart; no credits were charged, please try again",
    });
  });

  test("async submit and poll count as provider time", async () => {
    const { db, clock, create } = await setup();
    await create();
    const p: AsyncProvider = {
      name: "replicate",
      mode: "live",
      lifecycle: "async",
      submit: async () => (await Bun.sleep(2), { upstreamTaskId: "up" }),
      poll: async () => (await Bun.sleep(2), { state: "running" }),
    };
    const c = ctx(db, clock, p);
    await step(c);
    expect(c.timings!.provider).toBeGreaterThanOrEqual(1);
    c.timings!.provider = 0;
    clock.advance(1000);
    await step(c);
    expect(c.timings!.provider).toBeGreaterThanOrEqual(1);
  });

  test("canceled during a sync call: its stored files are removed; a task completed meanwhile by another process keeps them", async () => {
    const { db, clock, userId, create, row, set } = await setup();
    const removed: string[] = [];
    const storage = { ...memoryStorage(), deletePrefix: async (prefix: string) => void removed.push(prefix) };
    const g = await create();
    const canceling: SyncProvider = {
      name: "openai",
      mode: "live",
      lifecycle: "sync",
      generate: async () => (await cancelTransition(db, userId, g, clock), [png()]),
    };
    await step(ctx(db, clock, canceling, storage));
    expect(removed).toEqual([`${g}/`]);
    expect((await row(g)).errorMessage).toBe("canceled");
    const h = await create();
    const stolen: SyncProvider = {
      ...canceling,
      generate: async () => (await set(h, { status: "completed", leaseOwner: "B" }), [png()]),
    };
    await step(ctx(db, clock, stolen, storage));
    expect(removed).toEqual([`${g}/`]);
  });

  test("submitted normally: no upstream cancel", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    const canceled: string[] = [];
    const p: AsyncProvider = {
      name: "replicate",
      mode: "live",
      lifecycle: "async",
      submit: async () => ({ upstreamTaskId: "up-1" }),
      poll: async () => ({ state: "running" }),
      cancel: async (id) => void canceled.push(id),
    };
    await step(ctx(db, clock, p));
    expect(canceled).toEqual([]);
    expect(await row(g)).toMatchObject({
      status: "processing",
      upstreamTaskId: "up-1",
      nextPollAt: clock.now() + 250,
    });
  });

  test("poll states: pending and running wait 500 ms then 1 s (live backoff), failed fails with the provider's message", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    const states = [
      { state: "pending" as const },
      { state: "running" as const },
      { state: "failed" as const, message: "NSFW content detected" },
    ];
    const p: AsyncProvider = {
      name: "replicate",
      mode: "live",
      lifecycle: "async",
      submit: async () => ({ upstreamTaskId: "up" }),
      poll: async () => states.shift()!,
    };
    const c = ctx(db, clock, p);
    await step(c); // submit
    clock.advance(250);
    await step(c); // pending
    expect(await row(g)).toMatchObject({ status: "processing", pollCount: 1, nextPollAt: clock.now() + 500 });
    clock.advance(500);
    await step(c); // running
    expect(await row(g)).toMatchObject({ status: "processing", pollCount: 2, nextPollAt: clock.now() + 1000 });
    clock.advance(1000);
    await step(c); // failed
    expect(await row(g)).toMatchObject({ status: "failed", errorMessage: "NSFW content detected" });
    expect(await db.many(db.select().from(creditDebits))).toEqual([]);
  });

  test("a retryable poll error polls again after the backoff (1 s at least, not the quick first steps), counting the poll", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    const p: AsyncProvider = {
      name: "replicate",
      mode: "live",
      lifecycle: "async",
      submit: async () => ({ upstreamTaskId: "up" }),
      poll: async () => Promise.reject(new ProviderError("server", "upstream 502")),
    };
    const c = ctx(db, clock, p);
    await step(c);
    clock.advance(250);
    await step(c);
    expect(await row(g)).toMatchObject({ status: "processing", pollCount: 1, nextPollAt: clock.now() + 1000 });
  });

  test("a rate-limited poll waits out the provider's Retry-After before polling again", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    const limited = Object.assign(new ProviderError("rate_limit", "slow down"), { retryAfterMs: 8000 });
    const p: AsyncProvider = {
      name: "replicate",
      mode: "live",
      lifecycle: "async",
      submit: async () => ({ upstreamTaskId: "up" }),
      poll: async () => Promise.reject(limited),
    };
    const c = ctx(db, clock, p);
    await step(c);
    clock.advance(250);
    await step(c);
    expect(await row(g)).toMatchObject({ status: "processing", pollCount: 1, nextPollAt: clock.now() + 8000 });
  });

  test("a retryable submit error retries without counting a poll", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    const p: SyncProvider = {
      name: "openai",
      mode: "live",
      lifecycle: "sync",
      generate: async () => Promise.reject(new ProviderError("rate_limit", "slow down")),
    };
    await step(ctx(db, clock, p));
    expect(await row(g)).toMatchObject({
      status: "processing",
      pollCount: 0,
      attempts: 1,
      nextPollAt: clock.now() + POLL_RETRY_MIN_MS,
    });
  });

  test("a retryable error at the deadline is not retried: the task times out", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    const deadline = (await row(g)).deadlineAt;
    const p: SyncProvider = {
      name: "openai",
      mode: "live",
      lifecycle: "sync",
      generate: async () => {
        clock.set(deadline); // the call took until exactly the deadline
        throw new ProviderError("server", "upstream 503");
      },
    };
    await step(ctx(db, clock, p));
    expect(await row(g)).toMatchObject({ status: "failed", errorMessage: "generation timed out" });
  });

  test("a sync provider asked to poll (a task with an upstream id) fails with 'provider cannot poll'", async () => {
    const { db, clock, create, row, set } = await setup();
    const g = await create();
    await set(g, { status: "processing", upstreamTaskId: "up", nextPollAt: clock.now() });
    const p: SyncProvider = { name: "openai", mode: "live", lifecycle: "sync", generate: async () => [png()] };
    await step(ctx(db, clock, p));
    expect(await row(g)).toMatchObject({ status: "failed", errorMessage: "provider cannot poll" });
  });

  test("storage failing: the task fails with the storage message, nothing charged", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    const p: SyncProvider = { name: "openai", mode: "live", lifecycle: "sync", generate: async () => [png()] };
    await step(ctx(db, clock, p, memoryStorage(true)));
    expect(await row(g)).toMatchObject({
      status: "failed",
      errorMessage: "generation failed: the result could not be stored; no credits were charged",
    });
    expect(await db.many(db.select().from(creditDebits))).toEqual([]);
  });
});

describe("runStep when the database cannot answer (docs/reliability.md: a write that meets an outage is tried again)", () => {
  const busy = () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });

  /** The step's own connection waits 50 ms for a lock; `blocker` holds the write lock from inside the provider call. */
  async function lockedDuringCall(
    holdMs: number,
    body: (s: Awaited<ReturnType<typeof setup>> & { stepDb: Db; lock: () => void }) => Promise<void>,
  ) {
    const dir = mkdtempSync(join(tmpdir(), "atelier-step-busy-"));
    const s = await setup(join(dir, "busy.db"));
    const stepDb = openDatabase(join(dir, "busy.db"), { migrate: false, busyTimeoutMs: 50 });
    const blocker = openDatabase(join(dir, "busy.db"), { migrate: false });
    const lock = () => {
      blocker.sqlite!.exec("BEGIN IMMEDIATE");
      if (holdMs > 0) setTimeout(() => blocker.sqlite!.exec("COMMIT"), holdMs);
    };
    try {
      await body({ ...s, stepDb, lock });
    } finally {
      if (blocker.sqlite!.inTransaction) blocker.sqlite!.exec("ROLLBACK");
      await Promise.all([stepDb.close(), blocker.close(), s.db.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test("a sync result whose completion meets a lock is recorded once the lock is gone: completed, charged once, not left leased", async () => {
    await lockedDuringCall(400, async ({ stepDb, clock, create, row, lock, db }) => {
      const g = await create();
      const p: SyncProvider = {
        name: "openai",
        mode: "live",
        lifecycle: "sync",
        generate: async () => (lock(), [png()]),
      };
      await step(ctx(stepDb, clock, p));
      expect(await row(g)).toMatchObject({ status: "completed", leaseOwner: null, errorMessage: null });
      expect(
        (await db.many(db.select().from(creditDebits).where(eq(creditDebits.genId, g)))).map((d) => d.amount),
      ).toEqual([3]);
    });
  });

  test("an upstream id whose write meets a lock is recorded once the lock is gone, and the job is not canceled", async () => {
    await lockedDuringCall(400, async ({ stepDb, clock, create, row, lock }) => {
      const g = await create();
      const canceled: string[] = [];
      const p: AsyncProvider = {
        name: "replicate",
        mode: "live",
        lifecycle: "async",
        submit: async () => (lock(), { upstreamTaskId: "up-1" }),
        poll: async () => ({ state: "running" }),
        cancel: async (id) => void canceled.push(id),
      };
      await step(ctx(stepDb, clock, p));
      expect(await row(g)).toMatchObject({
        status: "processing",
        upstreamTaskId: "up-1",
        leaseOwner: null,
        nextPollAt: clock.now() + 250,
      });
      expect(canceled).toEqual([]);
    });
  });

  test("a write that committed but whose answer was lost: the second try answers false, and the upstream job is still not canceled", async () => {
    const { db, clock, create, row } = await setup();
    const g = await create();
    let lose = 1;
    // Each statement of the step commits; the first answer of a write (markSubmitted's UPDATE) is lost, as with a dropped connection.
    const flaky = new Proxy(db, {
      get: (target, key) =>
        key === "run"
          ? async (...args: Parameters<Db["run"]>) => {
              const n = await target.run(...args);
              if (lose-- > 0) throw busy();
              return n;
            }
          : Reflect.get(target, key),
    });
    const canceled: string[] = [];
    const p: AsyncProvider = {
      name: "replicate",
      mode: "live",
      lifecycle: "async",
      submit: async () => ({ upstreamTaskId: "up-2" }),
      poll: async () => ({ state: "running" }),
      cancel: async (id) => void canceled.push(id),
    };
    await step(ctx(flaky, clock, p));
    expect(canceled).toEqual([]);
    expect(await row(g)).toMatchObject({ status: "processing", upstreamTaskId: "up-2", leaseOwner: null });
  });

  test("still locked at the task's deadline: the step gives up and the task keeps its lease (never failed for our outage)", async () => {
    await lockedDuringCall(0, async ({ stepDb, clock, create, row, lock }) => {
      const g = await create();
      const p: SyncProvider = {
        name: "openai",
        mode: "live",
        lifecycle: "sync",
        generate: async () => (lock(), setTimeout(() => clock.advance(600_000), 300), [png()]),
      };
      await step(ctx(stepDb, clock, p));
      expect(await row(g)).toMatchObject({ status: "processing", leaseOwner: "A", errorMessage: null });
    });
  });

  test("the runner stopping ends the tries: the task keeps its lease for the next process", async () => {
    await lockedDuringCall(0, async ({ stepDb, clock, create, row, lock }) => {
      const g = await create();
      const stop = new AbortController();
      const p: SyncProvider = {
        name: "openai",
        mode: "live",
        lifecycle: "sync",
        generate: async () => (lock(), setTimeout(() => stop.abort(), 300), [png()]),
      };
      await step(ctx(stepDb, clock, p), stop.signal);
      expect(await row(g)).toMatchObject({ status: "processing", leaseOwner: "A", errorMessage: null });
    });
  });
});
