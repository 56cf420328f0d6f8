/**
 * A result picture's blurred placeholder (docs/studio.md "Blurred placeholders"): a ThumbHash (about 24 bytes,
 * 32 in base64; thumbhash 0.1.1) of the picture, taken once its bytes are stored and kept in
 * `generations.placeholder`. The page gets the hash, not a picture (a data URL of it is about 6 KB), and draws it
 * under the picture until the picture has loaded (app/components/studio/placeholder.ts).
 *
 * Decoding is pure TypeScript (app/lib/picture-sample.server.ts), about 0.3 s of CPU a megapixel on this kind of
 * machine, so the server runs this on a worker thread (placeholder-pool.server.ts,
 * docs/decisions/131-placeholders-on-a-worker-thread.md), after the task has completed (never in the time to
 * visible), and pictures over PLACEHOLDER_MAX_PIXELS get none.
 */
import { rgbaToThumbHash } from "thumbhash";
import { samplePicture } from "~/lib/picture-sample.server";

export const PLACEHOLDER_MAX_PIXELS = 4_200_000;
/** ThumbHash reads at most 100 × 100 pixels; 32 a side keeps its detail and costs nothing to sample. */
const SIDE = 32;

/** The picture's ThumbHash in base64, or null when it is not a PNG, JPEG or WebP this can read, or is too large. */
export function placeholderOf(bytes: Uint8Array, contentType: string): string | null {
  const copy = samplePicture(bytes, contentType, { maxSide: SIDE, maxPixels: PLACEHOLDER_MAX_PIXELS });
  if (!copy) return null;
  return Buffer.from(rgbaToThumbHash(copy.width, copy.height, copy.data)).toString("base64");
}
