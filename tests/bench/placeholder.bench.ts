#!/usr/bin/env bun
/**
 * `bun run bench:placeholder [--completions N] [--rounds N]`: how long the server's thread stalls while completed
 * results' blurred placeholders are computed (docs/decisions/131-placeholders-on-a-worker-thread.md). Each
 * "completion" hands a 2048 × 2048 PNG (4.19 MP, the largest that gets a placeholder) to either the inline
 * ThumbHash (placeholderOf on this thread, as the server did) or the worker pool (placeholder-pool.server.ts), one
 * after another; `perf_hooks.monitorEventLoopDelay` (5 ms resolution) records how late this thread's timers ran
 * meanwhile — what every request, SSE stream and job tick would wait. The two modes alternate round by round in
 * the same process so a noisy neighbour hits both alike; the load average is printed with the numbers.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { placeholderOf } from "~/domain/generations/placeholder.server";
import { createPlaceholderPool } from "~/domain/generations/placeholder-pool.server";
import { renderImagePng } from "~/providers/simulator/render.server";
import { png } from "../support/images";
import { load } from "./harness";

const argv = process.argv.slice(2);
const arg = (name: string, def: number) =>
  argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : def;
const COMPLETIONS = arg("completions", 4);
const ROUNDS = arg("rounds", 2);

const SIDE = 2048;
const ROW = 1 + SIDE * 3;
const picture = png(SIDE, SIDE, {
  level: 1,
  fill: (i) => {
    const col = (i % ROW) - 1;
    const x = (col / 3) | 0;
    return (x * 7 + ((i / ROW) | 0) * 3 + (col % 3) * 80) & 255;
  },
});

const pool = createPlaceholderPool();
type Compute = (bytes: Uint8Array) => Promise<string | null>;
const modes: Record<string, Compute> = {
  inline: async (bytes) => placeholderOf(bytes, "image/png"),
  worker: async (bytes) => (await pool.compute(bytes, "image/png"))?.placeholder ?? null,
  // The machine's own noise floor: the same wait with nothing computed anywhere.
  idle: async () => {
    await Bun.sleep(800);
    return "-";
  },
};

interface Run {
  maxMs: number;
  p99Ms: number;
  meanMs: number;
  wallMs: number;
}

async function run(compute: Compute): Promise<Run> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const t0 = performance.now();
  for (let i = 0; i < COMPLETIONS; i++) {
    if (!(await compute(picture))) throw new Error("no placeholder");
    await Bun.sleep(0); // the next completion comes from another job tick
  }
  const wallMs = performance.now() - t0;
  await Bun.sleep(20); // the last stall is recorded
  h.disable();
  return { maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, meanMs: h.mean / 1e6, wallMs };
}

console.log(
  `placeholders of a ${SIDE}×${SIDE} PNG (${(picture.byteLength / 1024).toFixed(0)} KiB), ${COMPLETIONS} completions × ${ROUNDS} rounds; ${load()}`,
);
// Warm both paths (JIT, the worker's start and module load) on a small picture first.
const small = renderImagePng("warm-up");
for (const compute of Object.values(modes)) await compute(small);

const results: Record<string, Run[]> = { inline: [], worker: [], idle: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const [mode, compute] of Object.entries(modes)) {
    const res = await run(compute);
    results[mode]!.push(res);
    console.log(
      `  round ${r + 1} ${mode.padEnd(6)}: event-loop delay max ${res.maxMs.toFixed(1)} ms, p99 ${res.p99Ms.toFixed(1)} ms, mean ${res.meanMs.toFixed(1)} ms; ${(res.wallMs / COMPLETIONS).toFixed(0)} ms a completion`,
    );
  }
}
const worst = (mode: string) => Math.max(...results[mode]!.map((r) => r.maxMs));
const p99 = (mode: string) => Math.max(...results[mode]!.map((r) => r.p99Ms));
const perCompletion = (mode: string) =>
  results[mode]!.reduce((n, r) => n + r.wallMs, 0) / (results[mode]!.length * COMPLETIONS);
console.log(
  `event-loop delay max (p99) inline ${worst("inline").toFixed(1)} (${p99("inline").toFixed(1)}) ms, worker ${worst("worker").toFixed(1)} (${p99("worker").toFixed(1)}) ms, idle ${worst("idle").toFixed(1)} (${p99("idle").toFixed(1)}) ms: max ${(worst("inline") / worst("worker")).toFixed(1)}×, p99 ${(p99("inline") / p99("worker")).toFixed(1)}× less on the worker; a placeholder takes ${perCompletion("inline").toFixed(0)} ms inline, ${perCompletion("worker").toFixed(0)} ms through the worker; ${load()}`,
);
pool.stop();
