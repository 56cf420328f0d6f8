/**
 * A result picture's blurred placeholder (docs/studio.md "Blurred placeholders"): a ThumbHash (about 24 bytes,
 * 32 in base64; thumbhash 0.1.1) of the picture, taken once its bytes are stored and kept in
 * `generations.placeholder`. The page gets the hash, not a picture (a data URL of it is about 6 KB), and draws it
 * under the picture until the picture has loaded (app/components/studio/placeholder.ts).
 *
 * Decoding is pure TypeScript (image-in-browser, which also runs inside the compiled executable), about 0.3 s of
 * CPU a megapixel on this kind of machine, so it runs after the task has completed (never in the time to visible)
 * and pictures over PLACEHOLDER_MAX_PIXELS get none.
 */
import { decodeJpg, decodePng, decodeWebP, type MemoryImage } from "image-in-browser";
import { rgbaToThumbHash } from "thumbhash";

export const PLACEHOLDER_MAX_PIXELS = 4_200_000;
/** ThumbHash reads at most 100 × 100 pixels; 32 a side keeps its detail and costs nothing to sample. */
const SIDE = 32;

function decode(bytes: Uint8Array, contentType: string): MemoryImage | undefined {
  if (contentType === "image/png") return decodePng({ data: bytes });
  if (contentType === "image/jpeg") return decodeJpg({ data: bytes });
  if (contentType === "image/webp") return decodeWebP({ data: bytes });
  return undefined;
}

/** The picture's ThumbHash in base64, or null when it is not a PNG, JPEG or WebP this can read, or is too large. */
export function placeholderOf(bytes: Uint8Array, contentType: string): string | null {
  let image: MemoryImage | undefined;
  try {
    image = decode(bytes, contentType);
  } catch {
    return null;
  }
  if (!image || image.width < 1 || image.height < 1 || image.width * image.height > PLACEHOLDER_MAX_PIXELS) return null;
  const k = Math.min(1, SIDE / Math.max(image.width, image.height));
  const width = Math.max(1, Math.round(image.width * k));
  const height = Math.max(1, Math.round(image.height * k));
  const rgba = new Uint8Array(width * height * 4);
  let pixel: ReturnType<MemoryImage["getPixel"]> | undefined;
  let o = 0;
  for (let y = 0; y < height; y++) {
    const sy = Math.min(image.height - 1, Math.floor((y + 0.5) / k));
    for (let x = 0; x < width; x++) {
      pixel = image.getPixel(Math.min(image.width - 1, Math.floor((x + 0.5) / k)), sy, pixel);
      const alpha = image.numChannels === 2 || image.numChannels === 4 ? pixel.aNormalized : 1;
      rgba[o++] = Math.round(pixel.rNormalized * 255);
      rgba[o++] = Math.round(pixel.gNormalized * 255);
      rgba[o++] = Math.round(pixel.bNormalized * 255);
      rgba[o++] = Math.round(alpha * 255);
    }
  }
  return Buffer.from(rgbaToThumbHash(width, height, rgba)).toString("base64");
}
