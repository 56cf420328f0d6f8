/**
 * Generation domain, lifecycle and simulator in-process: guarded claims and
 * leases, exactly-once completion + debit, failure paths of the runner's
 * steps, the simulator's markers and real files, storage keys.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { decode as decodePng } from "fast-png";
import { type Db, openDatabase } from "#db/client";
import { creditDebits, generations } from "#db/schema";
import { createRunner } from "#jobs/runner";
import { findOffering } from "~/domain/catalog";
import { getCredits, grantCredits } from "~/domain/credits/ledger.server";
import { claimDue } from "~/domain/generations/claim.server";
import { createGeneration } from "~/domain/generations/create.server";
import { historyEntriesQuery, historyPageJson, normalizePaging } from "~/domain/generations/history.server";
import {
  INTERRUPTED,
  planStep,
  pollDelayMs,
  runStep,
  type StepContext,
  TIMED_OUT,
} from "~/domain/generations/lifecycle.server";
import { createRegistry, type ProviderRegistry } from "~/domain/generations/registry.server";
import { completeGeneration, failGeneration, releaseLeases } from "~/domain/generations/transitions.server";
import { validateGenerateInput } from "~/domain/generations/validate.server";
import { toHistoryEntry, toQueryView } from "~/domain/generations/views.server";
import { manualClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import type { AppError } from "~/lib/errors";
import { hashPrompt, PIXEL_BUDGET, renderImagePng, wrap } from "~/providers/simulator/render.server";
import { createSimulator } from "~/providers/simulator/simulator.server";
import { type AsyncProvider, type Provider, ProviderError, type SyncProvider } from "~/providers/types";
import { isSafeKey, LocalStorage, resolveKey } from "~/storage/local.server";
import { createUserSync } from "../../support/fixtures";

const SAMPLE_PNG = new Uint8Array(readFileSync(join(import.meta.dir, "../../fakes/assets/sample.png")));

/** A task's links as the views show them (no PUBLIC_URL set in unit tests: relative). */
const linksOf = (id: string) => ({
  get: `/api/generator/query?gen_id=${id}`,
  cancel: `/api/generator/cancel?gen_id=${id}`,
  stream: `/api/generator/stream?gen_id=${id}`,
  web: `/studio/${id}`,
});

const CONFIG = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
const never = new AbortController().signal;

async function setup(credits = 100) {
  const db = openDatabase(":memory:");
  const clock = manualClock();
  const userId = crypto.randomUUID();
  createUserSync(db, { id: userId, at: clock.now(), email: `${userId}@x.test` });
  await db.exec(grantCredits(db, { userId, amount: credits, source: "admin" }, clock));
  const create = (
    prompt = "a cat",
    offering = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!,
    mode: "live" | "simulated" = "simulated",
  ) => createGeneration(db, { userId, input: { offering, prompt, options: {} }, mode, config: CONFIG }, clock);
  return { db, clock, userId, create };
}

const row = (db: Db, id: string) => db.select().from(generations).where(eq(generations.id, id)).get()!;
const debits = (db: Db) => db.select().from(creditDebits).all();

describe("validateGenerateInput", () => {
  test("the rule order of spec 4.1", async () => {
    const msg = (raw: Record<string, unknown>) => {
      try {
        validateGenerateInput(raw);
        return "ok";
      } catch (e) {
        return (e as AppError).message;
      }
    };
    expect(msg({ ai_type: "audio", provider: "", model: "m", prompt: "p" })).toBe(
      "invalid params: ai_type, provider, model, prompt required",
    );
    // Not a string is the same as missing (spec 4.1), never a crash.
    for (const notText of [42, ["a"], { a: 1 }, true, null]) {
      expect(msg({ ai_type: "image", provider: "kling", model: "kling-v1", prompt: notText })).toBe(
        "invalid params: ai_type, provider, model, prompt required",
      );
      expect(msg({ ai_type: notText, provider: "kling", model: "kling-v1", prompt: "p" })).toBe(
        "invalid params: ai_type, provider, model, prompt required",
      );
    }
    expect(msg({ ai_type: "audio", provider: "x", model: "m", prompt: "p" })).toBe(
      "invalid params: ai_type must be image or video",
    );
    expect(msg({ ai_type: "video", provider: "openai", model: "nope", prompt: "p".repeat(5000) })).toBe(
      "Unsupported video provider: openai",
    );
    expect(msg({ ai_type: "image", provider: "kling", model: "kling-v1-6", prompt: "p".repeat(5000) })).toBe(
      "Unsupported model: kling-v1-6",
    );
    expect(msg({ ai_type: "image", provider: "kling", model: "kling-v1", prompt: "p".repeat(4001) })).toBe(
      "invalid params: prompt too long (max 4000)",
    );
    expect(msg({ ai_type: "image", provider: "kling", model: "kling-v1", prompt: "p".repeat(4000) })).toBe("ok");
  });
});

describe("createGeneration", () => {
  test("reserves: unfinished tasks hold their cost; the message names need and have", async () => {
    const { create } = await setup(10);
    await create(); // 3
    await create(); // 3
    await create(); // 3 → 1 left
    await expect(create()).rejects.toThrow("insufficient credits: need 3, have 1");
  });

  test("pending rows have no poll time, a deadline per ai_type, and the provider's mode", async () => {
    const { db, clock, create } = await setup();
    const img = await create("x", findOffering("image", "openai", "dall-e-3")!, "live");
    const vid = await create("x", findOffering("video", "runway", "gen4.5")!);
    expect(row(db, img.id)).toMatchObject({
      status: "pending",
      nextPollAt: null,
      mode: "live",
      deadlineAt: clock.now() + 600_000,
    });
    expect(row(db, vid.id).deadlineAt).toBe(clock.now() + 1_200_000);
    expect(toQueryView(row(db, img.id))).toEqual({
      gen_id: img.id,
      status: "pending",
      created_at: "2026-11-22T10:00:00.000Z",
      urls: linksOf(img.id),
    });
  });
});

describe("history", () => {
  test("created_at desc, then gen_id desc; paging bounds", async () => {
    const { db, userId, create } = await setup();
    const ids = [(await create()).id, (await create()).id, (await create()).id]; // same millisecond (manual clock)
    const page = await listHistory(db, userId, { page: 1, pageSize: 20 });
    expect(page.generations.map((g) => g.gen_id)).toEqual([...ids].sort().reverse());
    expect(normalizePaging({})).toEqual({ page: 1, pageSize: 20 });
    expect(normalizePaging({ page: 3, page_size: 1000 })).toEqual({ page: 3, pageSize: 100 });
    for (const bad of [{ page: 0 }, { page: 2.5 }, { page_size: -1 }, { page: "1" }])
      expect(() => normalizePaging(bad)).toThrow("invalid params");
  });
});

/** The page as a client gets it (the route puts the text into the envelope as it is). */
const listHistory = async (db: Db, userId: string, paging: { page: number; pageSize: number }) =>
  JSON.parse(await historyPageJson(db, userId, paging)) as {
    generations: ReturnType<typeof toHistoryEntry>[];
    total: number;
    page: number;
    page_size: number;
  };

describe("history entries", () => {
  test("the page's JSON text is exactly JSON.stringify of toHistoryEntry of every row, field order included", async () => {
    const { db, clock, userId, create } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push((await create(`prompt ${i} "quoted" ü`)).id);
      clock.advance(1000);
    }
    const set = (id: string, v: Partial<typeof generations.$inferInsert>) =>
      db.update(generations).set(v).where(eq(generations.id, id)).run();
    set(ids[1]!, { status: "processing", startedAt: new Date(clock.now()) });
    set(ids[2]!, {
      status: "completed",
      startedAt: new Date(clock.now()),
      completedAt: new Date(clock.now() + 1500),
      resultUrls: JSON.stringify(["https://x.test/a.png", "https://x.test/b é.png"]),
    });
    set(ids[3]!, { status: "failed", completedAt: new Date(clock.now() + 7), errorMessage: "boom", resultUrls: null });
    set(ids[4]!, { status: "completed", completedAt: new Date(clock.now()), resultUrls: "not json" });
    set(ids[5]!, {
      status: "completed",
      completedAt: new Date(clock.now()),
      resultUrls: JSON.stringify(["u", 3, null]),
    });
    set(ids[6]!, {
      status: "completed",
      completedAt: new Date(clock.now()),
      resultUrls: String.raw`["a\/b","c\u00e9"]`,
    });
    const expected = db.select().from(generations).all().map(toHistoryEntry).reverse();
    const text = await historyPageJson(db, userId, { page: 1, pageSize: 20 });
    expect(text).toBe(JSON.stringify({ generations: expected, total: 7, page: 1, page_size: 20 }));
    // The second time the finished entries come from memory: the same bytes.
    expect(await historyPageJson(db, userId, { page: 1, pageSize: 20 })).toBe(text);
    const page = await listHistory(db, userId, { page: 1, pageSize: 20 });
    expect(page.generations.find((g) => g.gen_id === ids[3])!.credits_cost).toBe(0);
    expect((await listHistory(db, userId, { page: 2, pageSize: 4 })).generations.map((g) => g.gen_id)).toEqual([
      ids[2],
      ids[1],
      ids[0],
    ]);
    expect(await listHistory(db, userId, { page: 9, pageSize: 4 })).toEqual({
      generations: [],
      total: 7,
      page: 9,
      page_size: 4,
    });
  });

  test("entries not remembered are read by primary key, not by walking the user's tasks (SQLite's query plan)", async () => {
    const { db } = await setup();
    const q = historyEntriesQuery(db).toSQL();
    const plan = (db.sqlite!.query(`EXPLAIN QUERY PLAN ${q.sql}`).all('["a","b"]', "u") as { detail: string }[]).map(
      (r) => r.detail,
    );
    // With a plain user_id = ? the planner searched a (user_id, …) index instead: every task of the user
    // for each page holding an unfinished task (≈ 760 µs instead of ≈ 100 at 2,000 tasks).
    expect(plan.find((d) => d.includes("generations"))).toBe(
      "SEARCH generations USING INDEX sqlite_autoindex_generations_1 (id=?)",
    );
  });

  test("an unfinished task is read again on every page: the entry follows it to its final state", async () => {
    const { db, clock, userId, create } = await setup();
    const t = await create("watch me");
    const set = (v: Partial<typeof generations.$inferInsert>) =>
      db.update(generations).set(v).where(eq(generations.id, t.id)).run();
    const entry = async () => (await listHistory(db, userId, { page: 1, pageSize: 20 })).generations[0]!;
    expect(await entry()).toMatchObject({ status: "pending", started_at: null });
    set({ status: "processing", startedAt: new Date(clock.now() + 10) });
    expect(await entry()).toMatchObject({
      status: "processing",
      started_at: "2026-11-22T10:00:00.010Z",
      completed_at: null,
    });
    set({ status: "failed", completedAt: new Date(clock.now() + 20), errorMessage: "boom" });
    expect(await entry()).toMatchObject({
      status: "failed",
      credits_cost: 0,
      completed_at: "2026-11-22T10:00:00.020Z",
    });
  });

  test("total: counted when the page is full or past the end, read off a partial page, 0 with no tasks", async () => {
    const { db, clock, userId, create } = await setup();
    for (let i = 0; i < 7; i++) {
      await create(`t${i}`);
      clock.advance(1000);
    }
    const totals = async (pageSize: number, pages: number[]) =>
      Promise.all(
        pages.map(async (page) =>
          listHistory(db, userId, { page, pageSize }).then((p) => [p.generations.length, p.total]),
        ),
      );
    // [entries on the page, total] for pages 1..4 of 4 (full, partial, past the end, past the end).
    expect(await totals(4, [1, 2, 3, 4])).toEqual([
      [4, 7],
      [3, 7],
      [0, 7],
      [0, 7],
    ]);
    expect(await totals(7, [1, 2])).toEqual([
      [7, 7],
      [0, 7],
    ]);
    expect(await totals(8, [1, 2])).toEqual([
      [7, 7],
      [0, 7],
    ]);
    expect(await totals(3, [1, 2, 3])).toEqual([
      [3, 7],
      [3, 7],
      [1, 7],
    ]);
    const other = await setup();
    expect(await listHistory(other.db, other.userId, { page: 1, pageSize: 20 })).toEqual({
      generations: [],
      total: 0,
      page: 1,
      page_size: 20,
    });
    expect(await listHistory(other.db, other.userId, { page: 2, pageSize: 20 })).toEqual({
      generations: [],
      total: 0,
      page: 2,
      page_size: 20,
    });
  });
});

describe("claims and leases", () => {
  test("a claimed task is not claimed again by another owner until its lease expires", async () => {
    const { db, clock, create } = await setup();
    const g = await create();
    const a = await claimDue(db, { owner: "A", limit: 10, leaseMs: 1000 }, clock);
    expect(a.map((t) => t.row.id)).toEqual([g.id]);
    expect(a[0]!.reclaimed).toBe(false);
    expect(a[0]!.row).toMatchObject({ status: "processing", leaseOwner: "A", attempts: 1 });
    expect(await claimDue(db, { owner: "B", limit: 10, leaseMs: 1000 }, clock)).toEqual([]);
    clock.advance(1000);
    const b = await claimDue(db, { owner: "B", limit: 10, leaseMs: 1000 }, clock);
    expect(b.map((t) => [t.row.id, t.reclaimed, t.row.leaseOwner, t.row.attempts])).toEqual([[g.id, true, "B", 2]]);
    // A lost the lease: its completion changes nothing and debits nothing.
    expect(await completeGeneration(db, { id: g.id, owner: "A", resultUrls: ["u"] }, clock)).toBe(false);
    expect(debits(db)).toEqual([]);
  });

  test("the claim respects the limit and takes the oldest first; polls wait for next_poll_at", async () => {
    const { db, clock, create } = await setup();
    const ids: string[] = [];
    // One millisecond apart: new tasks are claimed oldest first by (created_at, id) on both engines.
    for (let i = 0; i < 5; i++, clock.advance(1)) ids.push((await create()).id);
    const first = await claimDue(db, { owner: "A", limit: 2, leaseMs: 1000 }, clock);
    expect(first.map((t) => t.row.id)).toEqual(ids.slice(0, 2));
    db.update(generations)
      .set({ leaseOwner: null, leaseUntil: null, upstreamTaskId: "up", nextPollAt: clock.now() + 500 })
      .where(eq(generations.id, ids[0]!))
      .run();
    const next = await claimDue(db, { owner: "A", limit: 10, leaseMs: 1000 }, clock);
    expect(next.map((t) => t.row.id)).toEqual(ids.slice(2));
    clock.advance(500);
    expect((await claimDue(db, { owner: "B", limit: 10, leaseMs: 1000 }, clock)).map((t) => t.row.id)).toEqual([
      ids[0],
    ]);
  });

  test("complete + debit happen once; fail debits nothing", async () => {
    const { db, clock, userId, create } = await setup(10);
    const ok = await create();
    const bad = await create();
    await claimDue(db, { owner: "A", limit: 10, leaseMs: 1000 }, clock);
    expect(await completeGeneration(db, { id: ok.id, owner: "A", resultUrls: ["http://x/media/a.png"] }, clock)).toBe(
      true,
    );
    expect(await completeGeneration(db, { id: ok.id, owner: "A", resultUrls: ["http://x/media/a.png"] }, clock)).toBe(
      false,
    );
    expect(await failGeneration(db, { id: bad.id, owner: "A", message: "boom" }, clock)).toBe(true);
    expect(await failGeneration(db, { id: ok.id, owner: "A", message: "late" }, clock)).toBe(false);
    expect(debits(db).map((d) => [d.genId, d.amount])).toEqual([[ok.id, 3]]);
    expect((await db.exec(getCredits(db, userId, clock))).left_credits).toBe(7);
    expect(toQueryView(row(db, ok.id))).toMatchObject({ status: "completed", result_urls: ["http://x/media/a.png"] });
    expect(toQueryView(row(db, bad.id))).toMatchObject({ status: "failed", error_message: "boom" });
  });

  test("releaseLeases hands back simulated tasks and submitted live ones, not a live submit in flight", async () => {
    const { db, clock, create } = await setup();
    const sim = await create();
    const liveSubmitting = await create("x", findOffering("image", "kling", "kling-v1")!, "live");
    const livePolled = await create("x", findOffering("image", "kling", "kling-v1")!, "live");
    await claimDue(db, { owner: "A", limit: 10, leaseMs: 60_000 }, clock);
    db.update(generations).set({ upstreamTaskId: "up-1" }).where(eq(generations.id, livePolled.id)).run();
    expect(await releaseLeases(db, "A")).toBe(2);
    expect(row(db, sim.id).leaseOwner).toBeNull();
    expect(row(db, livePolled.id).leaseOwner).toBeNull();
    expect(row(db, liveSubmitting.id).leaseOwner).toBe("A");
  });
});

describe("planStep and backoff", () => {
  test("deadline, interrupted live submit, poll, submit", async () => {
    const { db, clock, create } = await setup();
    const g = await create("x", findOffering("image", "openai", "dall-e-3")!, "live");
    const [t] = await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock);
    expect(planStep(t!, clock.now())).toEqual({ kind: "submit" });
    expect(planStep(t!, t!.row.deadlineAt)).toEqual({ kind: "fail", message: TIMED_OUT });
    clock.advance(1000);
    const [again] = await claimDue(db, { owner: "B", limit: 1, leaseMs: 1000 }, clock);
    expect(again!.row.id).toBe(g.id);
    expect(planStep(again!, clock.now())).toEqual({ kind: "fail", message: INTERRUPTED });
    expect(planStep({ ...again!, row: { ...again!.row, mode: "simulated" } }, clock.now())).toEqual({ kind: "submit" });
    expect(planStep({ ...again!, row: { ...again!.row, upstreamTaskId: "u" } }, clock.now())).toEqual({
      kind: "poll",
      upstreamTaskId: "u",
    });
  });

  test("poll delays: live 250 ms, 500 ms, 1 s, then growing by half to 5 s; simulated scaled to the delay", async () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((n) => pollDelayMs(n, "live", 1500))).toEqual([
      250, 500, 1000, 1500, 2250, 3375, 5000, 5000,
    ]);
    expect(pollDelayMs(0, "simulated", 0)).toBe(0);
    expect(pollDelayMs(0, "simulated", 1500)).toBe(375);
    expect(pollDelayMs(9, "simulated", 1500)).toBe(1875);
  });
});

function fakeRegistry(p: Provider): ProviderRegistry {
  return { get: () => p, mode: () => p.mode, upstreamModel: (_p, m) => `up-${m}` };
}

function stepCtx(db: Db, clock: ReturnType<typeof manualClock>, provider: Provider, dir: string): StepContext {
  return {
    db,
    clock,
    config: { SIMULATOR_DELAY_MS: 0, OUTBOUND_ALLOW_PRIVATE: false },
    providers: fakeRegistry(provider),
    storage: new LocalStorage(dir, "http://pub/media"),
    owner: "A",
  };
}

describe("runStep with providers that misbehave", () => {
  const dir = mkdtempSync(join(tmpdir(), "atelier-unit-"));

  test("async: submit persists the upstream id, poll stores results and completes", async () => {
    const { db, clock, create } = await setup();
    const g = await create();
    const seen: string[] = [];
    let polls = 0;
    const p: AsyncProvider = {
      name: "replicate",
      mode: "live",
      lifecycle: "async",
      submit: async (req) => (seen.push(req.upstreamModel), { upstreamTaskId: "up-123" }),
      poll: async (_id) =>
        ++polls < 2
          ? { state: "running" }
          : {
              state: "succeeded",
              assets: [{ kind: "bytes", bytes: SAMPLE_PNG, contentType: "image/png" }],
            },
    };
    const ctx = stepCtx(db, clock, p, dir);
    const step = async () => {
      const tasks = await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock);
      for (const t of tasks) await runStep(ctx, t, never);
      return tasks.length;
    };
    await step();
    expect(seen).toEqual(["up-black-forest-labs/flux-schnell"]);
    expect(row(db, g.id)).toMatchObject({
      status: "processing",
      upstreamTaskId: "up-123",
      leaseOwner: null,
      nextPollAt: clock.now() + 250,
    });
    expect(await step()).toBe(0); // not due yet
    clock.advance(250);
    await step(); // running
    expect(row(db, g.id)).toMatchObject({ status: "processing", pollCount: 1 });
    clock.advance(500);
    await step(); // succeeded
    const r = row(db, g.id);
    expect(r.status).toBe("completed");
    const urls = JSON.parse(r.resultUrls!) as string[];
    expect(urls).toHaveLength(1);
    // `<gen_id>/0-<random>.png`: a stored file is reachable only through the URL a completed task hands out.
    expect(urls[0]).toMatch(new RegExp(`^http://pub/media/${g.id}/0-[A-Za-z0-9_-]{16}\\.png$`));
    expect(new Uint8Array(readFileSync(join(dir, urls[0]!.slice("http://pub/media/".length))))).toEqual(SAMPLE_PNG);
    expect(debits(db).length).toBe(1);
  });

  test("a transient poll error keeps polling; a permanent one fails with the provider's message", async () => {
    const { db, clock, create } = await setup();
    const g = await create();
    let mode: "transient" | "permanent" = "transient";
    const p: AsyncProvider = {
      name: "replicate",
      mode: "live",
      lifecycle: "async",
      submit: async () => ({ upstreamTaskId: "u" }),
      poll: async () => {
        throw mode === "transient"
          ? new ProviderError("server", "upstream 503")
          : new ProviderError("bad_request", "content policy violation", { operatorHint: "secret detail" });
      },
    };
    const ctx = stepCtx(db, clock, p, dir);
    const run = async () => {
      for (const t of await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock)) await runStep(ctx, t, never);
      clock.advance(10_000);
    };
    await run(); // submit
    await run(); // transient
    expect(row(db, g.id)).toMatchObject({ status: "processing", pollCount: 1 });
    mode = "permanent";
    await run();
    expect(row(db, g.id)).toMatchObject({ status: "failed", errorMessage: "content policy violation" });
    expect(debits(db)).toEqual([]);
  });

  test("sync: retryable submit errors retry a bounded number of times; others fail at once", async () => {
    const { db, clock, create } = await setup();
    const g = await create("x", findOffering("image", "openai", "dall-e-3")!, "live");
    let calls = 0;
    const p: SyncProvider = {
      name: "openai",
      mode: "live",
      lifecycle: "sync",
      generate: async () => {
        calls++;
        throw new ProviderError("rate_limit", "rate limited upstream", { status: 429 });
      },
    };
    const ctx = stepCtx(db, clock, p, dir);
    for (let i = 0; i < 5; i++) {
      for (const t of await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock)) await runStep(ctx, t, never);
      clock.advance(10_000);
    }
    expect(calls).toBe(3);
    expect(row(db, g.id)).toMatchObject({ status: "failed", errorMessage: "rate limited upstream", attempts: 3 });

    const h = await create("y", findOffering("image", "openai", "dall-e-3")!, "live");
    const q: SyncProvider = { ...p, generate: async () => Promise.reject(new Error("bug with a secret inside")) };
    for (const t of await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock))
      await runStep(stepCtx(db, clock, q, dir), t, never);
    expect(row(db, h.id)).toMatchObject({ status: "failed", errorMessage: "generation failed: internal error" });
  });

  test("a task past its deadline fails with 'generation timed out'", async () => {
    const { db, clock, create } = await setup();
    const g = await create();
    clock.advance(600_000);
    const p = createSimulator("replicate", "async", { delayMs: 0, clock });
    for (const t of await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock))
      await runStep(stepCtx(db, clock, p, dir), t, never);
    expect(row(db, g.id)).toMatchObject({ status: "failed", errorMessage: "generation timed out" });
  });

  test("the runner drives many tasks to completion with the simulator, each debited once", async () => {
    const { db, userId } = await setup(1000);
    const realClock = { now: () => Date.now() };
    const config = parseConfig({ DATA_DIR: dir, SIMULATOR_DELAY_MS: "0", JOB_CONCURRENCY: "4" });
    for (let i = 0; i < 30; i++) {
      const o = i % 3 ? findOffering("image", "kling", "kling-v1")! : findOffering("image", "openai", "dall-e-3")!;
      await createGeneration(
        db,
        { userId, input: { offering: o, prompt: `t${i}`, options: {} }, mode: "simulated", config: CONFIG },
        realClock,
      );
    }
    const runner = createRunner({
      db,
      clock: realClock,
      config,
      providers: createRegistry(config, realClock),
      storage: new LocalStorage(dir, "http://pub/media"),
    });
    runner.start();
    const until = Date.now() + 10_000;
    const left = () =>
      (db.sqlite!.query("SELECT count(*) AS n FROM generations WHERE status != 'completed'").get() as { n: number }).n;
    while (left() > 0 && Date.now() < until) await Bun.sleep(10);
    await runner.stop(1000);
    expect((db.sqlite!.query("SELECT count(*) AS n FROM generations WHERE status = 'completed'").get() as any).n).toBe(
      30,
    );
    expect(debits(db).length).toBe(30);
    expect(runner.stats().claimed).toBeGreaterThanOrEqual(30);
  });

  test("only a request the provider refused counts as an unpaid task; outages, timeouts and crashes never do", async () => {
    const { db, clock, userId, create } = await setup();
    const dallE = findOffering("image", "openai", "dall-e-3")!;
    // The allowance's bucket (unpaid.server.ts): a row appears with the first task counted.
    const counted = () =>
      db.sqlite!.query("SELECT tat FROM rate_limits WHERE bucket = ?").get(`unpaid:${userId}`) !== null;
    const failWith = async (error: Error) => {
      const g = await create(`t ${error.message}`, dallE, "live");
      const p: SyncProvider = {
        name: "openai",
        mode: "live",
        lifecycle: "sync",
        generate: async () => Promise.reject(error),
      };
      for (const t of await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock))
        await runStep(stepCtx(db, clock, p, dir), t, never);
      clock.advance(1000);
      return row(db, g.id);
    };
    // The provider's outage, its credentials, our crash: failed, never counted against the user.
    expect((await failWith(new ProviderError("server", "upstream 500", { retryable: false }))).status).toBe("failed");
    expect((await failWith(new ProviderError("auth", "provider credentials rejected"))).status).toBe("failed");
    expect((await failWith(new Error("bug"))).errorMessage).toBe("generation failed: internal error");
    const late = await create("late");
    clock.advance(600_000);
    for (const t of await claimDue(db, { owner: "A", limit: 1, leaseMs: 1000 }, clock))
      await runStep(stepCtx(db, clock, createSimulator("replicate", "async", { delayMs: 0, clock }), dir), t, never);
    expect(row(db, late.id).errorMessage).toBe(TIMED_OUT);
    expect(counted()).toBe(false);
    // The prompt refused: counted.
    expect((await failWith(new ProviderError("bad_request", "content policy violation"))).errorMessage).toBe(
      "content policy violation",
    );
    expect(counted()).toBe(true);
  });

  test("cleanup", async () => rmSync(dir, { recursive: true, force: true }));
});

describe("simulator", () => {
  test("async: stateless polling by upstream id; [simulate:slow] takes 10×, [simulate:long] 100×; [simulate:fail] fails provider-style", async () => {
    const clock = manualClock();
    const sim = createSimulator("kling", "async", { delayMs: 100, clock }) as AsyncProvider;
    const req = (prompt: string) => ({
      genId: "g",
      aiType: "image" as const,
      provider: "kling" as const,
      model: "kling-v1",
      upstreamModel: "kling-v1",
      specs: findOffering("image", "kling", "kling-v1")!.options,
      prompt,
      options: {},
    });
    const { upstreamTaskId } = await sim.submit(req("fast"), never);
    expect(await sim.poll(upstreamTaskId, req("fast"), never)).toEqual({ state: "running", readyInMs: 100 });
    clock.advance(100);
    const done = await sim.poll(upstreamTaskId, req("fast"), never);
    expect(done.state).toBe("succeeded");
    const slow = await sim.submit(req("x [simulate:slow]"), never);
    clock.advance(999);
    expect((await sim.poll(slow.upstreamTaskId, req("x [simulate:slow]"), never)).state).toBe("running");
    clock.advance(1);
    expect((await sim.poll(slow.upstreamTaskId, req("x [simulate:slow]"), never)).state).toBe("succeeded");
    const long = await sim.submit(req("x [simulate:long]"), never);
    clock.advance(9_999);
    expect((await sim.poll(long.upstreamTaskId, req("x [simulate:long]"), never)).state).toBe("running");
    clock.advance(1);
    expect((await sim.poll(long.upstreamTaskId, req("x [simulate:long]"), never)).state).toBe("succeeded");
    const bad = await sim.submit(req("[simulate:fail]"), never);
    clock.advance(100);
    const failed = await sim.poll(bad.upstreamTaskId, req("[simulate:fail]"), never);
    expect(failed.state).toBe("failed");
    // Another simulator instance (another process) can poll the same id.
    const other = createSimulator("kling", "async", { delayMs: 100, clock }) as AsyncProvider;
    expect((await other.poll(upstreamTaskId, req("fast"), never)).state).toBe("succeeded");
    await expect(other.poll("garbage", req("fast"), never)).rejects.toBeInstanceOf(ProviderError);
  });

  test("sync: waits the delay, fails with a non-retryable provider error on [simulate:fail]", async () => {
    const sim = createSimulator("openai", "sync", { delayMs: 30, clock: manualClock() }) as SyncProvider;
    const req = {
      genId: "g",
      aiType: "image" as const,
      provider: "openai" as const,
      model: "dall-e-3",
      upstreamModel: "dall-e-3",
      specs: findOffering("image", "openai", "dall-e-3")!.options,
      prompt: "ok",
      options: {},
    };
    const t0 = performance.now();
    const assets = await sim.generate(req, never);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
    expect(assets[0]).toMatchObject({ kind: "bytes", contentType: "image/png" });
    const err = await sim.generate({ ...req, prompt: "[simulate:fail]" }, never).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.retryable).toBe(false);
    expect(err.message).toContain("safety system");
  });

  test("registry: simulator without credentials or without an adapter; live adapter otherwise; MODEL_MAP", async () => {
    const clock = manualClock();
    const none = createRegistry(parseConfig({}), clock);
    expect(["openai", "replicate", "kling", "runway"].map((p) => none.mode(p as any))).toEqual([
      "simulated",
      "simulated",
      "simulated",
      "simulated",
    ]);
    expect(none.get("openai").lifecycle).toBe("sync");
    expect(none.get("runway").lifecycle).toBe("async");
    const live: SyncProvider = { name: "openai", mode: "live", lifecycle: "sync", generate: async () => [] };
    const cfg = parseConfig({
      OPENAI_API_KEY: "sk-test",
      REPLICATE_API_TOKEN: "r8",
      MODEL_MAP: "openai:dall-e-3=dall-e-3-hd",
    });
    const reg = createRegistry(cfg, clock, { openai: () => live });
    expect(reg.get("openai")).toBe(live);
    expect(reg.mode("replicate")).toBe("simulated"); // credentials but no adapter yet
    expect(reg.upstreamModel("openai", "dall-e-3")).toBe("dall-e-3-hd");
    expect(reg.upstreamModel("openai", "gpt-image-1")).toBe("gpt-image-1");
  });
});

describe("rendering", () => {
  test("a real PNG of the prompt: decodes, square by default (384×384), colours from the prompt's hash, text drawn", () => {
    const a = renderImagePng("A lighthouse on a cliff at dawn");
    const b = renderImagePng("A lighthouse on a cliff at dusk");
    const png = decodePng(a);
    expect([png.width, png.height]).toEqual([384, 384]);
    expect(png.width * png.height).toBe(PIXEL_BUDGET);
    expect(png.palette!.length).toBe(68);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
    expect(hashPrompt("x")).not.toBe(hashPrompt("y"));
    // Text pixels (palette index 64, white) — more words, more ink.
    const ink = (bytes: Uint8Array) => {
      const d = decodePng(bytes);
      return Array.from(d.data as Uint8Array).filter((i) => i === 64).length;
    };
    expect(ink(renderImagePng("hi"))).toBeGreaterThan(0);
    expect(ink(renderImagePng("a much longer prompt with many more words in it"))).toBeGreaterThan(
      ink(renderImagePng("hi")) * 5,
    );
    expect(ink(renderImagePng("✨ emoji only ✨"))).toBeGreaterThan(0);
  });

  test("wrap keeps words, cuts long ones, ellipsises overflow", () => {
    expect(wrap("one two three four", 9, 5)).toEqual(["one two", "three", "four"]);
    expect(wrap("abcdefghijkl", 5, 5)).toEqual(["abcde", "fghij", "kl"]);
    expect(wrap("a b c d e f", 1, 2)).toEqual(["a", "..."]);
  });
});

describe("storage keys", () => {
  test("only safe relative keys resolve inside the root", async () => {
    expect(isSafeKey("0b1c/0.png")).toBe(true);
    for (const bad of ["../x", "a/../../x", "/etc/passwd", "a//b", ".hidden", "a/./b", "a\\b", ""]) {
      expect(resolveKey("/data/media", bad)).toBeNull();
    }
    expect(resolveKey("/data/media", "g/0.png")).toBe("/data/media/g/0.png");
  });
});
