#!/usr/bin/env bun
/**
 * What renditions cost (docs/media.md): CPU per 1024² real-size result (a ~3 MB noisy PNG, the encoder's worst
 * case) made in this thread, alternated with a run that only decodes (the part the original costs anyway), then a
 * burst of 24 through the worker pool while this thread measures its event loop's worst stall, and the bytes: the
 * original against each rendition. A bench that prints, not a timed test: report `uptime` beside its numbers.
 * Usage: bun run bench:renditions [results=10]
 */
import { makeRenditions } from "~/domain/media/make-renditions.server";
import { createRenditionPool } from "~/domain/media/rendition-pool.server";
import { loadSharp } from "~/lib/sharp.server";
import { noisyPng } from "../support/images";

const n = Number(process.argv[2] ?? 10);
const { sharp } = await loadSharp();
if (!sharp) throw new Error("sharp did not load");
const pictures = Array.from({ length: n }, (_, i) => noisyPng(1024, 1024, i + 1));
const cpu = async (fn: () => Promise<unknown>) => {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1000, wall: performance.now() - t0 };
};
let made = 0;
let decoded = 0;
let wall = 0;
for (const p of pictures) {
  const r = await cpu(() => makeRenditions(sharp, p));
  made += r.cpu;
  wall += r.wall;
  decoded += (await cpu(() => sharp(p).raw().toBuffer())).cpu;
}
console.log(`load ${(await Bun.file("/proc/loadavg").text()).trim()}`);
console.log(
  `renditions of a 1024² PNG: ${(made / n).toFixed(0)} ms CPU (${(wall / n).toFixed(0)} ms wall); decode alone ${(decoded / n).toFixed(0)} ms CPU`,
);
const one = await makeRenditions(sharp, pictures[0]!);
console.log(
  `bytes: original ${(pictures[0]!.byteLength / 1024).toFixed(0)} KB; ${one.files.map((f) => `${f.width}w ${(f.bytes.byteLength / 1024).toFixed(1)} KB`).join(", ")}`,
);

const pool = createRenditionPool();
let worst = 0;
let last = performance.now();
const tick = setInterval(() => {
  const now = performance.now();
  worst = Math.max(worst, now - last - 5);
  last = now;
}, 5);
const t0 = performance.now();
await Promise.all(Array.from({ length: 24 }, (_, i) => pool.make(pictures[i % n]!)));
clearInterval(tick);
pool.stop();
console.log(
  `burst of 24 through the worker: ${(performance.now() - t0).toFixed(0)} ms; this thread's worst event-loop stall ${worst.toFixed(1)} ms`,
);
