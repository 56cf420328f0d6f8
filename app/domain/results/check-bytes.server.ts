/**
 * The pipeline's first step: the bytes are a file Atelier serves for the task's kind (a PNG, JPEG, WebP or GIF for an
 * image task; an MP4, WebM or QuickTime file for a video task), judged by the bytes, not by what the provider
 * declared; the declared type is replaced by the judged one. A picture's header must state sides within
 * RESULT_MAX_SIDE and pixels within RESULT_MAX_PIXELS (read from the header, nothing is decoded), and a PNG's data
 * must inflate to no more than its header declares (inflated off the main thread, nothing kept:
 * app/lib/png-data.server.ts), so every later step that decodes the picture (safety, renditions, the placeholder)
 * starts from a bounded one.
 */
import { imageSize } from "image-size";
import { checkPngData, PngDataRefused } from "~/lib/png-data.server";
import { sniffContentType } from "~/providers/http.server";
import type { ResultStep } from "./pipeline.server";

export const RESULT_MAX_SIDE = 16_384;
export const RESULT_MAX_PIXELS = 80_000_000;
/** Within the step's own time limit. */
const PNG_DATA_TIMEOUT_MS = 4_000;
export const UNREADABLE_RESULT =
  "generation failed: the provider returned a file that is not a picture or a video; no credits were charged";

const ACCEPTED = {
  image: ["image/png", "image/jpeg", "image/webp", "image/gif"],
  video: ["video/mp4", "video/webm", "video/quicktime"],
} as const;

export const checkBytes: ResultStep = {
  name: "check-bytes",
  timeoutMs: 5_000,
  async run(file, task) {
    const refuse = (reason: string) =>
      ({ kind: "refuse", message: UNREADABLE_RESULT, reason, byRequest: false }) as const;
    const judged = sniffContentType(file.bytes);
    const accepted: readonly string[] = ACCEPTED[task.aiType];
    if (!judged || !accepted.includes(judged))
      return refuse(`declared ${file.contentType}, bytes say ${judged ?? "unknown"}`);
    if (judged.startsWith("image/")) {
      let size: { width?: number; height?: number };
      try {
        size = imageSize(file.bytes);
      } catch (error) {
        return refuse(`unreadable ${judged} header: ${(error as Error).message}`);
      }
      const { width = 0, height = 0 } = size;
      if (width < 1 || height < 1) return refuse(`${judged} without dimensions`);
      if (width > RESULT_MAX_SIDE || height > RESULT_MAX_SIDE || width * height > RESULT_MAX_PIXELS)
        return refuse(`${judged} of ${width}×${height} is over the bound`);
      if (judged === "image/png") {
        try {
          await checkPngData(file.bytes, { timeoutMs: PNG_DATA_TIMEOUT_MS });
        } catch (error) {
          if (error instanceof PngDataRefused) return refuse(error.reason);
          throw error;
        }
      }
      return { kind: "keep", contentType: judged, note: { width, height } };
    }
    return { kind: "keep", contentType: judged };
  },
};
