/**
 * Makes a picture's renditions with sharp (app/lib/sharp.server.ts): WebP at the widths of renditionWidths(), from
 * one decode of the original. Decoding is bounded (`limitInputPixels`): a picture declaring more pixels than
 * MAX_RENDITION_PIXELS is refused before its pixels are read. sharp does the work on libuv's thread pool, so the
 * server's own thread only waits for it (docs/decisions/150-renditions-with-sharp.md).
 */
import type { Sharp } from "~/lib/sharp.server";
import { renditionWidths } from "./renditions";

/** 64 MP: over an 8K square (the largest result a provider sends today is 4K), under what a worker should hold. */
export const MAX_RENDITION_PIXELS = 64 * 1024 * 1024;
/** WebP quality of the renditions: visually the same picture at a gallery's size, a few tens of KB each. */
export const RENDITION_QUALITY = 64;

export interface Rendition {
  width: number;
  height: number;
  bytes: Uint8Array;
}

export interface Renditions {
  /** The original's size, as decoded (EXIF orientation applied). */
  width: number;
  height: number;
  files: Rendition[];
}

export async function makeRenditions(sharp: Sharp, bytes: Uint8Array, signal?: AbortSignal): Promise<Renditions> {
  const source = sharp(bytes, { limitInputPixels: MAX_RENDITION_PIXELS, failOn: "error" }).autoOrient();
  const meta = await source.metadata();
  if (!meta.width || !meta.height) throw new Error("the picture has no size");
  const upright = (meta.orientation ?? 1) >= 5;
  const width = upright ? meta.height : meta.width;
  const height = upright ? meta.width : meta.height;
  const files: Rendition[] = [];
  for (const w of renditionWidths(width)) {
    signal?.throwIfAborted();
    const { data, info } = await source
      .clone()
      .resize({ width: w, withoutEnlargement: true })
      .webp({ quality: RENDITION_QUALITY, effort: 2 })
      .toBuffer({ resolveWithObject: true });
    files.push({ width: info.width, height: info.height, bytes: new Uint8Array(data) });
  }
  return { width, height, files };
}
