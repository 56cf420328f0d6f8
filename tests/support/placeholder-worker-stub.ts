/**
 * A stand-in for app/placeholder-worker.ts in the pool's tests: a picture whose type is `die` ends the thread,
 * `hang` is never answered, anything else gets the placeholder "stub:<type>".
 */
import { threadId } from "node:worker_threads";

declare const self: Worker;

self.onmessage = ({ data }: MessageEvent<{ id: number; contentType: string }>) => {
  if (data.contentType === "die") process.exit(1);
  if (data.contentType === "hang") return;
  postMessage({ id: data.id, placeholder: `stub:${data.contentType}`, threadId, ms: 0 });
};
