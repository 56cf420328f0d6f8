/**
 * The thread that makes results' renditions with sharp (app/domain/media/rendition-pool.server.ts, docs/media.md).
 * A file of its own beside app/cli.ts, like the placeholder worker (docs/decisions/131-placeholders-on-a-worker-thread.md),
 * and for one more reason: Bun's bundler embeds sharp's native addon only where it sees sharp's CommonJS
 * `require`, which the server bundle (built by Vite) turns into a run-time lookup the executable cannot answer.
 * `bun run build` bundles this file to build/rendition-worker.js (sharp left in node_modules), `bun run compile`
 * embeds it with sharp's addon and libvips (docs/decisions/150-renditions-with-sharp.md).
 */
import { threadId } from "node:worker_threads";
import { makeRenditions } from "./domain/media/make-renditions.server";
import type { RenditionAnswer, RenditionJob } from "./domain/media/rendition-pool.server";
import { loadSharp } from "./lib/sharp.server";

declare const self: Worker;

self.onmessage = async ({ data }: MessageEvent<RenditionJob>) => {
  const t0 = performance.now();
  let answer: RenditionAnswer;
  try {
    const { sharp, error } = await loadSharp();
    if (!sharp) throw new Error(`sharp did not load: ${error}`);
    const renditions = await makeRenditions(sharp, data.bytes);
    answer = { id: data.id, ok: true, renditions, threadId, ms: performance.now() - t0 };
  } catch (error) {
    answer = { id: data.id, ok: false, error: String(error), threadId, ms: performance.now() - t0 };
  }
  const transfer = answer.ok ? answer.renditions.files.map((f) => f.bytes.buffer as ArrayBuffer) : [];
  postMessage(answer, transfer);
};
