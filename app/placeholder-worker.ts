/**
 * The thread that computes results' blurred placeholders (app/domain/generations/placeholder-pool.server.ts): a
 * ThumbHash costs about 0.3 s of CPU a megapixel, which on the server's own thread would hold every request for
 * that long. A file of its own, beside app/cli.ts, so that every way the server runs has it to load: from source as
 * it is, `bun run build` bundles it to build/placeholder-worker.js and `bun run compile` embeds it as a second
 * entry point (docs/decisions/131-placeholders-on-a-worker-thread.md).
 */
import { threadId } from "node:worker_threads";
import { placeholderOf } from "./domain/generations/placeholder.server";
import type { PlaceholderAnswer, PlaceholderJob } from "./domain/generations/placeholder-pool.server";

declare const self: Worker;

self.onmessage = ({ data }: MessageEvent<PlaceholderJob>) => {
  const t0 = performance.now();
  let placeholder: string | null = null;
  try {
    placeholder = placeholderOf(data.bytes, data.contentType);
  } catch {} // an unreadable picture only costs its blur
  const answer: PlaceholderAnswer = { id: data.id, placeholder, threadId, ms: performance.now() - t0 };
  postMessage(answer);
};
