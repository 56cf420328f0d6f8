/**
 * Reading a small copy of a picture: decoded by image-in-browser (pure TypeScript: PNG, JPEG, WebP; no native
 * add-on or wasm, so it also runs inside the `bun build --compile` executable and in a worker thread), then sampled
 * nearest-neighbour to at most `maxSide` pixels a side. The simulator draws its image-to-image results from an RGB
 * copy (app/providers/simulator/picture.server.ts) and a result's blurred placeholder is a ThumbHash of an RGBA one
 * (app/domain/generations/placeholder.server.ts).
 */
import { decodeJpg, decodePng, decodeWebP, type MemoryImage } from "image-in-browser";
import { checkPngDataSync } from "./png-data.server";

/** A sampled picture: `channels` bytes a pixel, row by row. */
export interface Sampled {
  width: number;
  height: number;
  data: Uint8Array;
}

export interface SampleOptions {
  /** The longest side of the copy; smaller pictures keep their size. */
  maxSide: number;
  /** Larger pictures are not decoded (pure-JS decoding costs about 0.3 s of CPU a megapixel). */
  maxPixels: number;
  /**
   * Given, the copy is RGB with transparency laid over this grey (0..1); without it the copy is RGBA.
   */
  matte?: number;
}

/**
 * A PNG is decoded only when its header's pixels are within `maxPixels`, it is not animated, and its data inflates
 * to no more than the header declares (app/lib/png-data.server.ts): the decoder itself inflates without a bound.
 */
function decode(bytes: Uint8Array, contentType: string, maxPixels: number): MemoryImage | undefined {
  switch (contentType) {
    case "image/png": {
      const { header, animated } = checkPngDataSync(bytes);
      if (animated || header.width * header.height > maxPixels) return undefined;
      return decodePng({ data: bytes });
    }
    case "image/jpeg":
      return decodeJpg({ data: bytes });
    case "image/webp":
      return decodeWebP({ data: bytes });
    default:
      return undefined;
  }
}

/** The picture's sampled copy, or null when it is not a PNG, JPEG or WebP this can read, or has over `maxPixels`. */
export function samplePicture(bytes: Uint8Array, contentType: string, opts: SampleOptions): Sampled | null {
  let image: MemoryImage | undefined;
  try {
    image = decode(bytes, contentType, opts.maxPixels);
  } catch {
    return null;
  }
  if (!image || image.width < 1 || image.height < 1 || image.width * image.height > opts.maxPixels) return null;
  const k = Math.min(1, opts.maxSide / Math.max(image.width, image.height));
  const width = Math.max(1, Math.round(image.width * k));
  const height = Math.max(1, Math.round(image.height * k));
  const matte = opts.matte;
  const data = new Uint8Array(width * height * (matte === undefined ? 4 : 3));
  const hasAlpha = image.numChannels === 2 || image.numChannels === 4;
  let pixel: ReturnType<MemoryImage["getPixel"]> | undefined;
  let o = 0;
  for (let y = 0; y < height; y++) {
    const sy = Math.min(image.height - 1, Math.floor((y + 0.5) / k));
    for (let x = 0; x < width; x++) {
      pixel = image.getPixel(Math.min(image.width - 1, Math.floor((x + 0.5) / k)), sy, pixel);
      const a = hasAlpha ? pixel.aNormalized : 1;
      if (matte === undefined) {
        data[o++] = Math.round(pixel.rNormalized * 255);
        data[o++] = Math.round(pixel.gNormalized * 255);
        data[o++] = Math.round(pixel.bNormalized * 255);
        data[o++] = Math.round(a * 255);
      } else {
        data[o++] = Math.round((pixel.rNormalized * a + matte * (1 - a)) * 255);
        data[o++] = Math.round((pixel.gNormalized * a + matte * (1 - a)) * 255);
        data[o++] = Math.round((pixel.bNormalized * a + matte * (1 - a)) * 255);
      }
    }
  }
  return { width, height, data };
}
