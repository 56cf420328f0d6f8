/**
 * Placeholders on the worker thread (app/domain/generations/placeholder-pool.server.ts): the ThumbHash is computed
 * off the caller's thread, one worker is reused, and whatever goes wrong with it (dies, hangs, too many pictures
 * waiting, the pool stopped) only costs the picture its placeholder.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { threadId } from "node:worker_threads";
import { placeholderOf } from "~/domain/generations/placeholder.server";
import {
  createPlaceholderPool,
  type PlaceholderPool,
  placeholderWorkerPath,
} from "~/domain/generations/placeholder-pool.server";
import { renderImagePng } from "~/providers/simulator/render.server";

const STUB = join(import.meta.dir, "../../support/placeholder-worker-stub.ts");
const pools: PlaceholderPool[] = [];
const pool = (opts: Parameters<typeof createPlaceholderPool>[0] = {}) => {
  const p = createPlaceholderPool(opts);
  pools.push(p);
  return p;
};
afterEach(() => {
  for (const p of pools.splice(0)) p.stop();
});

test("the real worker computes the same ThumbHash as the inline code, on another thread, reused", async () => {
  expect(placeholderWorkerPath()).toEndWith("app/placeholder-worker.ts");
  const p = pool();
  const png = renderImagePng("a lighthouse");
  const first = await p.compute(png, "image/png");
  expect(first?.placeholder).toBe(placeholderOf(png, "image/png")!);
  expect(first!.threadId).not.toBe(threadId);
  const second = await p.compute(renderImagePng("a fox"), "image/png");
  expect(second!.threadId).toBe(first!.threadId);
  // What it cannot read gets none, and the worker keeps serving.
  expect((await p.compute(new TextEncoder().encode("<html>"), "image/png"))?.placeholder).toBeNull();
  expect((await p.compute(png, "image/png"))!.threadId).toBe(first!.threadId);
});

test("a worker that dies or hangs costs one placeholder; the next picture gets a new worker", async () => {
  const errors: string[] = [];
  // The timeout also covers a new worker's start, which takes over 300 ms on a loaded 2-core machine.
  const p = pool({ workerPath: STUB, timeoutMs: 2000, onError: (m) => errors.push(m) });
  const before = await p.compute(new Uint8Array(1), "a");
  expect(before?.placeholder).toBe("stub:a");
  expect(await p.compute(new Uint8Array(1), "die")).toBeNull();
  const after = await p.compute(new Uint8Array(1), "b");
  expect(after?.placeholder).toBe("stub:b");
  expect(after!.threadId).not.toBe(before!.threadId);
  expect(await p.compute(new Uint8Array(1), "hang")).toBeNull();
  expect(errors.at(-1)).toContain("took over 2000 ms");
  const last = await p.compute(new Uint8Array(1), "c");
  expect(last?.placeholder).toBe("stub:c");
  expect(last!.threadId).not.toBe(after!.threadId);
});

test("the queue is bounded and stopping answers what waits", async () => {
  const p = pool({ workerPath: STUB, maxQueue: 1, timeoutMs: 60_000 });
  const running = p.compute(new Uint8Array(1), "hang");
  const waiting = p.compute(new Uint8Array(1), "x");
  expect(await p.compute(new Uint8Array(1), "y")).toBeNull(); // a third is refused at once
  p.stop();
  expect(await running).toBeNull();
  expect(await waiting).toBeNull();
  expect(await p.compute(new Uint8Array(1), "z")).toBeNull();
});

test("the waiting pictures' bytes are bounded too: one that would pass the bound is refused at once", async () => {
  const p = pool({ workerPath: STUB, maxQueueBytes: 10, timeoutMs: 60_000 });
  const running = p.compute(new Uint8Array(8), "hang"); // being read: no longer waiting, no longer counted
  const waiting = p.compute(new Uint8Array(6), "x");
  expect(await p.compute(new Uint8Array(5), "y")).toBeNull(); // 6 + 5 > 10
  const fits = p.compute(new Uint8Array(4), "z"); // 6 + 4 = 10
  p.stop();
  expect(await running).toBeNull();
  expect(await waiting).toBeNull();
  expect(await fits).toBeNull();
});

test("a missing worker script costs the placeholder, never an error", async () => {
  const errors: string[] = [];
  const p = pool({ workerPath: join(import.meta.dir, "no-such-worker.ts"), onError: (m) => errors.push(m) });
  expect(await p.compute(new Uint8Array(1), "image/png")).toBeNull();
  expect(errors.length).toBeGreaterThan(0);
});
