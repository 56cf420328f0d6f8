/**
 * The task's input pictures in the simulator (docs/design.md §2): an image-to-image result is the input picture,
 * recoloured toward the prompt's hue, under the prompt and the badge; an image-to-video result moves over it (a
 * slow zoom and pan) and, given `image_end`, dissolves into that picture by the last frame.
 *
 * Pictures are decoded and kept as a small RGB copy (app/lib/picture-sample.server.ts), and drawn in 252 colours — a
 * 6 × 7 × 6 colour cube with ordered dithering — beside the renderer's four text colours, because the PNG and
 * H.264 writers draw indexed frames.
 */
import { samplePicture } from "~/lib/picture-sample.server";
import { type Backdrop, GRADIENT, type Palette } from "./render.server";

/**
 * Pictures with more pixels than this are not decoded (pure-JS decoding holds the process for about 0.3 s a
 * megapixel): the result then shows the prompt alone, as without a picture.
 */
export const DECODE_MAX_PIXELS = 8_000_000;
/** The longest side of the copy frames are drawn from (a frame is about 384 pixels a side). */
const SOURCE_MAX_SIDE = 768;
/** How much of the prompt's hue goes into every colour (the result is visibly not the input). */
const TINT = 0.3;

const LEVELS: readonly [number, number, number] = [6, 7, 6];
const CUBE = LEVELS[0] * LEVELS[1] * LEVELS[2];
/** 4 × 4 Bayer matrix, as thresholds in [0, 1). */
const BAYER = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5].map((v) => (v + 0.5) / 16);

/** A decoded picture: RGB bytes, row by row. */
export interface Source {
  width: number;
  height: number;
  rgb: Uint8Array;
}

/** What a frame shows: `zoom` ≥ 1 around the point (`cx`, `cy`) in 0..1, and how far (`mix`, 0..1) toward `end`. */
export interface View {
  zoom: number;
  cx: number;
  cy: number;
  mix: number;
}

/**
 * The picture as a Source at most SOURCE_MAX_SIDE a side, transparency laid over mid grey; null when it is not a
 * PNG, JPEG or WebP this can read, or is larger than DECODE_MAX_PIXELS.
 */
export function decodeSource(bytes: Uint8Array, contentType: string): Source | null {
  const copy = samplePicture(bytes, contentType, {
    maxSide: SOURCE_MAX_SIDE,
    maxPixels: DECODE_MAX_PIXELS,
    matte: 0.5,
  });
  return copy && { width: copy.width, height: copy.height, rgb: copy.data };
}

/** The palette slot of cube colour `c`: the cube fills every slot but the text colours (GRADIENT to GRADIENT + 3). */
const slot = (c: number) => (c < GRADIENT ? c : c + 4);

/** The cube's colours moved TINT of the way toward the prompt's hue (the middle of its gradient). */
function tintedPalette(base: Palette): Palette {
  const tint = base[GRADIENT >> 1]!;
  const out: Palette = base.slice(0, GRADIENT + 4).map((c) => [...c] as [number, number, number]);
  for (let c = 0; c < CUBE; c++) {
    const b = c % LEVELS[2];
    const g = Math.floor(c / LEVELS[2]) % LEVELS[1];
    const r = Math.floor(c / (LEVELS[2] * LEVELS[1]));
    const level = (v: number, n: number) => (v * 255) / (n - 1);
    const rgb = [level(r, LEVELS[0]), level(g, LEVELS[1]), level(b, LEVELS[2])];
    out[slot(c)] = rgb.map((v, i) => Math.round(v * (1 - TINT) + tint[i]! * TINT)) as [number, number, number];
  }
  return out;
}

/** For each output column (or row), the source column (row) it shows: the source covers the frame, zoomed. */
function axis(out: number, src: number, scale: number, centre: number): Int32Array {
  const visible = out / scale;
  const c = Math.min(Math.max(centre * src, visible / 2), src - visible / 2);
  const map = new Int32Array(out);
  for (let i = 0; i < out; i++) map[i] = Math.min(src - 1, Math.max(0, Math.floor(c + (i + 0.5 - out / 2) / scale)));
  return map;
}

/** Fills `idx` with the view of `start` (dissolving into `end`), dithered into the tinted cube. */
export function paintSource(
  idx: Uint8Array,
  width: number,
  height: number,
  start: Source,
  end: Source | null,
  view: View,
): void {
  const maps = [start, end].map((s) => {
    if (!s) return null;
    const scale = Math.max(width / s.width, height / s.height) * Math.max(1, view.zoom);
    return { s, xs: axis(width, s.width, scale, view.cx), ys: axis(height, s.height, scale, view.cy) };
  });
  const a = maps[0]!;
  const b = maps[1];
  const mix = b ? Math.min(1, Math.max(0, view.mix)) : 0;
  const n0 = LEVELS[0] - 1;
  const n1 = LEVELS[1] - 1;
  const n2 = LEVELS[2] - 1;
  for (let y = 0; y < height; y++) {
    const rowA = a.ys[y]! * a.s.width;
    const rowB = b ? b.ys[y]! * b.s.width : 0;
    for (let x = 0; x < width; x++) {
      const i = (rowA + a.xs[x]!) * 3;
      let r = a.s.rgb[i]!;
      let g = a.s.rgb[i + 1]!;
      let bl = a.s.rgb[i + 2]!;
      if (b && mix > 0) {
        const j = (rowB + b.xs[x]!) * 3;
        r += (b.s.rgb[j]! - r) * mix;
        g += (b.s.rgb[j + 1]! - g) * mix;
        bl += (b.s.rgb[j + 2]! - bl) * mix;
      }
      const t = BAYER[((y & 3) << 2) | (x & 3)]!;
      const qr = Math.min(n0, Math.floor((r * n0) / 255 + t));
      const qg = Math.min(n1, Math.floor((g * n1) / 255 + t));
      const qb = Math.min(n2, Math.floor((bl * n2) / 255 + t));
      idx[y * width + x] = slot((qr * LEVELS[1] + qg) * LEVELS[2] + qb);
    }
  }
}

/** A still picture: the whole of `start`, covering the frame. */
export function stillBackdrop(start: Source): Backdrop {
  return {
    palette: tintedPalette,
    paint: (idx, width, height) => paintSource(idx, width, height, start, null, { zoom: 1, cx: 0.5, cy: 0.5, mix: 0 }),
  };
}

/** A clip over `start`: zooming in by a fifth while drifting left to right, and dissolving into `end` if given. */
export function movingBackdrop(start: Source, end: Source | null): Backdrop {
  return {
    palette: tintedPalette,
    paint: (idx, width, height, t) =>
      paintSource(idx, width, height, start, end, { zoom: 1 + 0.2 * t, cx: 0.35 + 0.3 * t, cy: 0.5, mix: t }),
  };
}
