/** The blurred placeholder of a task's first picture, as a derivative (docs/studio.md "Blurred placeholders"). */
import type { Db } from "#db/client";
import { storePlaceholder } from "~/domain/generations/placeholder-store.server";
import type { DerivativeStep } from "./pipeline.server";

export function placeholderStep(db: Db): DerivativeStep {
  return {
    name: "placeholder",
    // The worker has its own 20 s bound per picture (placeholder-pool.server.ts).
    timeoutMs: 30_000,
    async run(file, task) {
      if (file.index !== 0 || !file.contentType.startsWith("image/")) return;
      await storePlaceholder(db, task.id, file.bytes, file.contentType);
    },
  };
}
