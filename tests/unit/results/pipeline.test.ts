/**
 * The result pipeline (docs/design.md §4.1): each result passes the steps in order before it is stored; a refusal,
 * a throw or a timeout fails the task uncharged with nothing stored; a kept file is stored with the bytes the
 * steps left; derivatives run after the completion and their failures cost only the derivative.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { openDatabase } from "#db/client";
import { creditDebits, generations } from "#db/schema";
import { findOffering } from "~/domain/catalog";
import { getCredits, grantCredits } from "~/domain/credits/ledger.server";
import { claimDue } from "~/domain/generations/claim.server";
import { createGeneration } from "~/domain/generations/create.server";
import { runStep, type StepContext } from "~/domain/generations/lifecycle.server";
import type { ProviderRegistry } from "~/domain/generations/registry.server";
import { checkBytes, RESULT_MAX_PIXELS, RESULT_MAX_SIDE, UNREADABLE_RESULT } from "~/domain/results/check-bytes.server";
import {
  CHECK_FAILED,
  type DerivativeStep,
  type ResultFile,
  type ResultStep,
  type ResultTask,
  runResultSteps,
} from "~/domain/results/pipeline.server";
import { manualClock } from "~/lib/clock";
import type { ResultAsset, SyncProvider } from "~/providers/types";
import type { ResultStorage } from "~/storage/types";
import { createUser } from "../../support/fixtures";
import { pngBomb, pngSized } from "../../support/images";

const SAMPLE_PNG = new Uint8Array(readFileSync(join(import.meta.dir, "../../fakes/assets/sample.png")));
const SAMPLE_MP4 = new Uint8Array(readFileSync(join(import.meta.dir, "../../fakes/assets/sample.mp4")));
const flux = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!;
const never = new AbortController().signal;

async function setup(steps: ResultStep[], derivatives: DerivativeStep[] = [], assets?: ResultAsset[]) {
  const db = openDatabase(":memory:");
  const clock = manualClock();
  const userId = crypto.randomUUID();
  await createUser(db, { id: userId, at: clock.now(), email: `${userId}@x.test` });
  await db.exec(grantCredits(db, { userId, amount: 100, source: "admin" }, clock));
  const { id } = await createGeneration(
    db,
    {
      userId,
      input: { offering: flux, prompt: "a cat", options: {} },
      mode: "live",
      config: { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 },
    },
    clock,
  );
  const stored = new Map<string, Uint8Array>();
  const storage: ResultStorage = {
    kind: "local",
    async put(key, bytes) {
      stored.set(key, bytes);
      return `http://pub/media/${key}`;
    },
  };
  const provider: SyncProvider = {
    name: "replicate",
    mode: "live",
    lifecycle: "sync",
    generate: async () => assets ?? [{ kind: "bytes", bytes: SAMPLE_PNG, contentType: "image/png" }],
  };
  const providers: ProviderRegistry = { get: () => provider, mode: () => "live", upstreamModel: (_p, m) => m };
  const ctx: StepContext = {
    db,
    clock,
    config: { SIMULATOR_DELAY_MS: 0, OUTBOUND_ALLOW_PRIVATE: false },
    providers,
    storage,
    owner: "A",
    pipeline: { steps, derivatives },
  };
  const run = async () => {
    for (const t of await claimDue(db, { owner: "A", limit: 1, leaseMs: 60_000 }, clock)) await runStep(ctx, t, never);
  };
  const row = async () => (await db.one(db.select().from(generations).where(eq(generations.id, id))))!;
  const balance = async () => (await db.exec(getCredits(db, userId, clock))).left_credits;
  const debits = async () => db.many(db.select().from(creditDebits).where(eq(creditDebits.genId, id)));
  return { db, run, row, balance, debits, stored, id };
}

const keep: ResultStep = { name: "keep", timeoutMs: 1000, run: async () => ({ kind: "keep" }) };

describe("the result pipeline in a task's lifecycle", () => {
  test("steps run in their order, each sees what the one before left, and the stored file has the final bytes", async () => {
    const seen: string[] = [];
    const stamped = new Uint8Array([...SAMPLE_PNG, 0]);
    const first: ResultStep = {
      name: "first",
      timeoutMs: 1000,
      run: async (file) => (seen.push(`first:${file.bytes.byteLength}`), { kind: "keep", bytes: stamped, note: 7 }),
    };
    const second: ResultStep = {
      name: "second",
      timeoutMs: 1000,
      run: async (file) => (seen.push(`second:${file.bytes.byteLength}:${file.notes.first}`), { kind: "keep" }),
    };
    const t = await setup([first, second]);
    await t.run();
    expect(seen).toEqual([`first:${SAMPLE_PNG.byteLength}`, `second:${stamped.byteLength}:7`]);
    expect(await t.row()).toMatchObject({ status: "completed" });
    expect([...t.stored.values()]).toEqual([stamped]);
    expect(await t.balance()).toBe(100 - flux.credits);
  });

  test("a refusal fails the task with the step's message, stores nothing and charges nothing; later steps do not run", async () => {
    let later = 0;
    const refuse: ResultStep = {
      name: "safety",
      timeoutMs: 1000,
      run: async () => ({
        kind: "refuse",
        message: "content policy: sexual content",
        reason: "score 0.99",
        byRequest: true,
      }),
    };
    const after: ResultStep = { name: "after", timeoutMs: 1000, run: async () => (later++, { kind: "keep" }) };
    const t = await setup([keep, refuse, after]);
    await t.run();
    expect(await t.row()).toMatchObject({ status: "failed", errorMessage: "content policy: sexual content" });
    expect((await t.row()).resultUrls).toBeNull();
    expect(later).toBe(0);
    expect(t.stored.size).toBe(0);
    expect(await t.debits()).toEqual([]);
    expect(await t.balance()).toBe(100);
  });

  test("a step that throws or runs past its time limit fails the task safe (never stored, never charged)", async () => {
    const throws: ResultStep = {
      name: "throws",
      timeoutMs: 1000,
      run: async () => {
        throw new Error("classifier crashed");
      },
    };
    const hangs: ResultStep = { name: "hangs", timeoutMs: 50, run: () => new Promise(() => {}) };
    for (const step of [throws, hangs]) {
      const t = await setup([step]);
      const t0 = performance.now();
      await t.run();
      expect(performance.now() - t0).toBeLessThan(1000);
      expect(await t.row()).toMatchObject({ status: "failed", errorMessage: CHECK_FAILED });
      expect(t.stored.size).toBe(0);
      expect(await t.balance()).toBe(100);
    }
  });

  test("derivatives run after the completion with the stored key; one that fails does not stop the next", async () => {
    const order: string[] = [];
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    const broken: DerivativeStep = {
      name: "broken",
      timeoutMs: 1000,
      run: async () => {
        order.push("broken");
        throw new Error("no space");
      },
    };
    const rendition: DerivativeStep = {
      name: "rendition",
      timeoutMs: 1000,
      run: async (file) => {
        order.push(`rendition:${file.key.endsWith(".png")}:${file.url.startsWith("http://pub/media/")}`);
        resolveDone();
      },
    };
    const t = await setup([keep], [broken, rendition]);
    await t.run();
    expect(await t.row()).toMatchObject({ status: "completed" });
    await done;
    expect(order).toEqual(["broken", "rendition:true:true"]);
  });
});

const task = (aiType: "image" | "video"): ResultTask => ({
  id: "g1",
  userId: "u1",
  aiType,
  provider: "replicate",
  model: "m",
  upstreamModel: "m",
  prompt: "p",
  options: {},
  mode: "live",
  createdAt: 0,
});
const file = (bytes: Uint8Array, contentType = "image/png"): ResultFile => ({
  index: 0,
  bytes,
  contentType,
  notes: {},
});

/** A 1-bit grey PNG of `width` × `height` with exactly the data its header declares (zeros: black). */
const pngHeader = (width: number, height: number) =>
  pngSized(width, height, height * (1 + Math.ceil(width / 8)), { depth: 1, colour: 0 });

describe("check-bytes", () => {
  test("the judged type replaces the declared one; the picture's sides are noted", async () => {
    expect(await checkBytes.run(file(SAMPLE_PNG, "application/octet-stream"), task("image"), never)).toEqual({
      kind: "keep",
      contentType: "image/png",
      note: { width: 16, height: 16 },
    });
    expect(await checkBytes.run(file(SAMPLE_MP4, "image/png"), task("video"), never)).toMatchObject({
      kind: "keep",
      contentType: "video/mp4",
    });
  });

  test("bytes that are not a file of the task's kind are refused, as the provider's fault", async () => {
    for (const [bytes, kind] of [
      [new Uint8Array([1, 2, 3]), "image"],
      [SAMPLE_MP4, "image"],
      [SAMPLE_PNG, "video"],
      [new TextEncoder().encode("<html>error</html>"), "video"],
    ] as const) {
      expect(await checkBytes.run(file(bytes), task(kind), never)).toMatchObject({
        kind: "refuse",
        message: UNREADABLE_RESULT,
        byRequest: false,
      });
    }
  });

  test("sides and pixels: at the bound kept, one over refused", async () => {
    const verdict = async (w: number, h: number) =>
      (await checkBytes.run(file(pngHeader(w, h)), task("image"), never)).kind;
    expect(await verdict(RESULT_MAX_SIDE, 1)).toBe("keep");
    expect(await verdict(RESULT_MAX_SIDE + 1, 1)).toBe("refuse");
    expect(await verdict(1, RESULT_MAX_SIDE + 1)).toBe("refuse");
    expect(RESULT_MAX_PIXELS).toBe(80_000_000);
    expect(await verdict(10_000, 8_000)).toBe("keep");
    expect(await verdict(10_000, 8_001)).toBe("refuse");
    expect(await verdict(0, 10)).toBe("refuse");
  });

  test("a PNG whose data inflates past its header (a bomb) is refused without being inflated; at the size kept", async () => {
    const bomb = await pngBomb(64, 64, 256 * 1024 * 1024);
    const t0 = performance.now();
    expect(await checkBytes.run(file(bomb), task("image"), never)).toMatchObject({
      kind: "refuse",
      message: UNREADABLE_RESULT,
      reason: "PNG image data inflates to more than its 64×64 header declares (a decompression bomb)",
    });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect((await checkBytes.run(file(pngSized(64, 64, 64 * 193)), task("image"), never)).kind).toBe("keep");
    expect((await checkBytes.run(file(pngSized(64, 64, 64 * 193 + 1)), task("image"), never)).kind).toBe("refuse");
    expect((await checkBytes.run(file(pngSized(64, 64, 64 * 193 - 1)), task("image"), never)).kind).toBe("refuse");
  });
});

describe("runResultSteps", () => {
  test("the first refusal ends every file's pipeline", async () => {
    const seen: number[] = [];
    const refuseSecond: ResultStep = {
      name: "s",
      timeoutMs: 1000,
      run: async (f) => (
        seen.push(f.index),
        f.index === 1
          ? { kind: "refuse", message: "content policy: violence", reason: "r", byRequest: true }
          : { kind: "keep" }
      ),
    };
    const files = [0, 1, 2].map((index) => ({ ...file(SAMPLE_PNG), index }));
    expect(await runResultSteps([refuseSecond], task("image"), files, never)).toMatchObject({
      kind: "refuse",
      step: "s",
      message: "content policy: violence",
    });
    expect(seen).toEqual([0, 1]);
  });

  test("shutting down rethrows instead of failing the task", async () => {
    const abort = new AbortController();
    const slow: ResultStep = { name: "slow", timeoutMs: 10_000, run: () => new Promise(() => {}) };
    setTimeout(() => abort.abort(new Error("shutdown")), 20);
    expect(runResultSteps([slow], task("image"), [file(SAMPLE_PNG)], abort.signal)).rejects.toThrow("shutdown");
  });
});
