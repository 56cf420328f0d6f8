/**
 * Real result files for the simulator: a PNG for images and an H.264 MP4 for
 * videos, both showing the prompt's words on a gradient whose colours come
 * from a hash of the prompt (two prompts give two visibly different results) — or on the task's input picture
 * (a `Backdrop`, picture.server.ts) —
 * a "SIMULATED · <model>" badge, and the shape the chosen options ask for
 * (aspect ratio; for videos the duration too, with a progress bar and clock).
 *
 * No native add-ons or wasm (the "Seven plus" pixel font of js-pixel-fonts as
 * JSON, node:zlib for deflate, our own H.264 bitstream in h264.server.ts and
 * mp4-muxer for the container), so it also runs inside a `bun build --compile`
 * executable. Every function is synchronous.
 *
 * Pixel budget: a simulated picture has about as many pixels as a 384×384 one
 * whatever its shape (rendering is most of a simulated task's cost, and the
 * jobs benchmark must stay ≥ 300 tasks/s); the caption states the size the
 * real model would deliver.
 */
import { deflateSync } from "node:zlib";
import sevenPlus from "js-pixel-fonts/data/seven-plus.json";
import { ArrayBufferTarget, Muxer } from "mp4-muxer";
import { avcDecoderConfig, createH264Stream, H264_CODEC } from "./h264.server";

interface Glyph {
  offset: number;
  pixels: number[][];
}
const FONT = sevenPlus as unknown as { lineHeight: number; glyphs: Record<string, Glyph> };
// Two glyphs the font lacks, for "SIMULATED · model" and "1024 × 1024".
FONT.glyphs["·"] = { offset: 3, pixels: [[1]] };
FONT.glyphs["×"] = {
  offset: 2,
  pixels: [
    [1, 0, 1],
    [0, 1, 0],
    [1, 0, 1],
  ],
};
const LINE_H = FONT.lineHeight + 3;

/** Pixels of a simulated image or video frame, whatever its aspect ratio (384 × 384). */
export const PIXEL_BUDGET = 384 * 384;
export const VIDEO_FPS = 8;

/** Palette layout: 0..GRADIENT-1 gradient, then text, shadow (badges), accent (progress), track. */
export const GRADIENT = 64;
const TEXT = GRADIENT;
const SHADOW = GRADIENT + 1;
const ACCENT = GRADIENT + 2;
const TRACK = GRADIENT + 3;

/** FNV-1a, 32 bits: a stable hash for colours (not for security). */
export function hashPrompt(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function hsl(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)];
}

export type Palette = [number, number, number][];

/** A 68-colour palette: a two-hue gradient picked by the hash, white text, dark shadow, an accent. */
export function paletteFor(hash: number): Palette {
  const h1 = hash % 360;
  const h2 = (h1 + 60 + ((hash >>> 9) % 180)) % 360;
  const out: [number, number, number][] = [];
  for (let i = 0; i < GRADIENT; i++) {
    const t = i / (GRADIENT - 1);
    const h = h1 + (((h2 - h1 + 540) % 360) - 180) * t;
    out.push(hsl((h + 360) % 360, 0.65, 0.32 + 0.22 * t));
  }
  out.push([255, 255, 255], [20, 20, 28], hsl((h1 + 180) % 360, 0.9, 0.6), [60, 60, 72]);
  return out;
}

/** Words wrapped into lines of at most `cols` characters (long words are cut). */
export function wrap(text: string, cols: number, maxLines: number): string[] {
  const words = text.replace(/\s+/g, " ").trim().split(" ").filter(Boolean);
  const lines: string[] = [];
  let line = "";
  for (let w of words) {
    while (w.length > cols) {
      if (line) lines.push(line), (line = "");
      lines.push(w.slice(0, cols));
      w = w.slice(cols);
    }
    if (!line) line = w;
    else if (line.length + 1 + w.length <= cols) line += ` ${w}`;
    else lines.push(line), (line = w);
  }
  if (line) lines.push(line);
  if (lines.length > maxLines) {
    const kept = lines.slice(0, maxLines);
    kept[maxLines - 1] = `${kept[maxLines - 1]!.slice(0, Math.max(0, cols - 3))}...`;
    return kept;
  }
  return lines;
}

/** Width in font pixels of a line (variable-width glyphs, one pixel apart). */
function lineWidth(line: string): number {
  let w = 0;
  for (const ch of line) w += (FONT.glyphs[ch] ?? FONT.glyphs["?"]!).pixels[0]!.length + 1;
  return Math.max(0, w - 1);
}

function drawText(idx: Uint8Array, width: number, height: number, line: string, x0: number, y0: number, scale: number) {
  let x = x0;
  for (const ch of line) {
    const g = FONT.glyphs[ch] ?? FONT.glyphs["?"]!;
    const gw = g.pixels[0]!.length;
    for (let r = 0; r < g.pixels.length; r++) {
      const row = g.pixels[r]!;
      for (let c = 0; c < gw; c++) {
        if (!row[c]) continue;
        const px = x + c * scale;
        const py = y0 + (r + g.offset) * scale;
        for (let dy = 0; dy < scale; dy++) {
          const y = py + dy;
          if (y < 0 || y + 1 >= height) continue;
          for (let dx = 0; dx < scale; dx++) {
            const xx = px + dx;
            if (xx < 0 || xx + 1 >= width) continue;
            idx[(y + 1) * width + xx + 1] = SHADOW;
            idx[y * width + xx] = TEXT;
          }
        }
      }
    }
    x += (gw + 1) * scale;
  }
}

/** Fills an indexed frame with a diagonal gradient shifted by `phase`. */
function paintGradient(idx: Uint8Array, width: number, height: number, phase: number) {
  // The colour depends on x + y only: one lookup row, copied per scanline.
  const span = width + height;
  const lut = new Uint8Array(span);
  for (let d = 0; d < span; d++) {
    let t = ((d + phase) % span) / span;
    t = t < 0.5 ? t * 2 : (1 - t) * 2;
    lut[d] = Math.min(GRADIENT - 1, (t * GRADIENT) | 0);
  }
  for (let y = 0; y < height; y++) idx.set(lut.subarray(y, y + width), y * width);
}

/** Draws the prompt's lines centred. */
function paintLines(idx: Uint8Array, width: number, height: number, lines: string[], scale: number) {
  const blockH = lines.length * LINE_H * scale;
  let y = Math.max(scale * 2, (height - blockH) >> 1);
  for (const line of lines) {
    const w = lineWidth(line) * scale;
    drawText(idx, width, height, line, Math.max(scale, (width - w) >> 1), y, scale);
    y += LINE_H * scale;
  }
}

function fillRect(
  idx: Uint8Array,
  width: number,
  height: number,
  x0: number,
  y0: number,
  w: number,
  h: number,
  colour: number,
) {
  const x1 = Math.min(width, x0 + w);
  for (let y = Math.max(0, y0); y < Math.min(height, y0 + h); y++)
    idx.fill(colour, y * width + Math.max(0, x0), y * width + x1);
}

/** A label on a dark pill; `right` anchors it to the right edge. Returns its height. */
function badge(
  idx: Uint8Array,
  width: number,
  height: number,
  text: string,
  x: number,
  y: number,
  scale: number,
  right = false,
) {
  const pad = 2 * scale;
  const w = lineWidth(text) * scale + 2 * pad;
  const h = FONT.lineHeight * scale + 2 * pad;
  const left = right ? width - x - w : x;
  fillRect(idx, width, height, left, y, w, h, SHADOW);
  drawText(idx, width, height, text, left + pad, y + pad, scale);
  return h;
}

/** Width and height with the aspect ratio `rw:rh` and about `area` pixels, each a multiple of `multiple`. */
export function fitArea(rw: number, rh: number, area: number, multiple = 1): { width: number; height: number } {
  const w = Math.sqrt((area * rw) / rh);
  const round = (v: number) => Math.max(multiple, Math.round(v / multiple) * multiple);
  return { width: round(w), height: round((w * rh) / rw) };
}

/** How a simulated result looks: its shape (aspect ratio), the badge and the caption. */
export interface Look {
  /** The aspect ratio, e.g. [16, 9]. */
  ratio: readonly [number, number];
  /** Badge text, e.g. "SIMULATED · FLUX.1 [schnell]". */
  mark: string;
  /** What the real model would deliver, e.g. "1792 × 1024" or "16:9". */
  caption: string;
}

const DEFAULT_LOOK: Look = { ratio: [1, 1], mark: "SIMULATED", caption: "" };

/**
 * A picture under the prompt instead of the gradient (an input picture, app/providers/simulator/picture.server.ts):
 * its palette, built on the prompt's (whose text colours, slots GRADIENT to GRADIENT + 3, it keeps), and a painter
 * that fills a frame with palette indices; `t` runs from 0 to 1 over a video.
 */
export interface Backdrop {
  palette(base: Palette): Palette;
  paint(idx: Uint8Array, width: number, height: number, t: number): void;
}

/**
 * The picture common to images and video frames: gradient, prompt, badge top left, caption bottom right —
 * top right for videos (`video`), where a player's controls cover the bottom.
 */
function paintPicture(
  prompt: string,
  width: number,
  height: number,
  look: Look,
  bottomReserve: number,
  video = false,
  backdrop?: Backdrop,
) {
  const hash = hashPrompt(prompt);
  const scale = Math.max(2, Math.round(Math.sqrt(width * height) / 128));
  const cols = Math.max(4, Math.floor((width - 2 * scale * 6) / (6 * scale)));
  const maxLines = Math.max(1, Math.floor((height - bottomReserve - 16 * scale * 2) / (LINE_H * scale)));
  const lines = wrap(printable(prompt), cols, Math.min(8, maxLines));
  const idx = new Uint8Array(width * height);
  if (backdrop) backdrop.paint(idx, width, height, 0);
  else paintGradient(idx, width, height, hash % (width + height));
  const mark = printable(look.mark);
  // Badges one step smaller than the prompt, and smaller still when the mark would not fit (a 9:21 image).
  let small = Math.max(2, scale - 1);
  while (small > 1 && lineWidth(mark) * small + 10 * small > width) small--;
  const margin = 3 * small;
  const rowH = FONT.lineHeight * small + 7 * small; // a badge and the gap below it
  const caption = printable(look.caption);
  // On a narrow picture the top-right caption goes one row down rather than over the mark.
  const pillW = (t: string) => lineWidth(t) * small + 4 * small;
  const captionRow = video && pillW(mark) + pillW(caption) + 3 * margin > width ? 1 : 0;
  /** The prompt and the badges, drawn over a frame (again over each new backdrop of a moving video). */
  const overlay = (frame: Uint8Array) => {
    paintLines(frame, width, height, lines, scale);
    badge(frame, width, height, mark, margin, margin, small);
    if (!look.caption) return;
    const h = FONT.lineHeight * small + 4 * small;
    const y = video ? margin + captionRow * rowH : height - bottomReserve - h - margin;
    badge(frame, width, height, caption, margin, y, small, true);
  };
  overlay(idx);
  /** Where a video's clock goes: the row under the caption. */
  const clockY = margin + (captionRow + 1) * rowH;
  const base = paletteFor(hash);
  return { idx, palette: backdrop ? backdrop.palette(base) : base, small, clockY, overlay };
}
/** Characters the font can draw; the rest become `?`. */
const printable = (s: string) => s.replace(/[^\x20-\x7e·×]/g, "?");

/** A PNG (indexed colour) of the prompt on its own gradient (or on `backdrop`), in the look's aspect ratio. */
export function renderImagePng(
  prompt: string,
  look: Look = DEFAULT_LOOK,
  area = PIXEL_BUDGET,
  backdrop?: Backdrop,
): Uint8Array {
  const { width, height } = fitArea(look.ratio[0], look.ratio[1], area);
  const { idx, palette } = paintPicture(prompt, width, height, look, 0, false, backdrop);
  return encodeIndexedPng(width, height, idx, palette);
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array, start: number, end: number): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * An 8-bit indexed-colour PNG (PNG spec §11: IHDR, PLTE, IDAT, IEND). The
 * container is a few lines; compression is the runtime's native zlib, which is
 * ~20× faster here than the pure-JS deflate of fast-png (docs/decisions/021-simulator-files.md).
 */
export function encodeIndexedPng(
  width: number,
  height: number,
  idx: Uint8Array,
  palette: [number, number, number][],
): Uint8Array {
  const raw = new Uint8Array((width + 1) * height);
  for (let y = 0; y < height; y++) raw.set(idx.subarray(y * width, (y + 1) * width), y * (width + 1) + 1); // filter 0
  const idat = deflateSync(raw, { level: 2 });
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, width);
  dv.setUint32(4, height);
  ihdr.set([8, 3, 0, 0, 0], 8); // depth 8, colour type 3 (indexed), deflate, adaptive filter, no interlace
  const plte = new Uint8Array(palette.length * 3);
  palette.forEach((c, i) => plte.set(c, i * 3));
  const chunks: [string, Uint8Array][] = [
    ["IHDR", ihdr],
    ["PLTE", plte],
    ["IDAT", idat],
    ["IEND", new Uint8Array(0)],
  ];
  const size = 8 + chunks.reduce((a, [, d]) => a + 12 + d.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 0);
  let o = 8;
  for (const [type, data] of chunks) {
    view.setUint32(o, data.length);
    for (let i = 0; i < 4; i++) out[o + 4 + i] = type.charCodeAt(i);
    out.set(data, o + 8);
    view.setUint32(o + 8 + data.length, crc32(out, o + 4, o + 8 + data.length));
    o += 12 + data.length;
  }
  return out;
}

const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;

/** Pixels of a frame that moves (a backdrop): every changed macroblock is stored whole, so fewer than a still one. */
export const MOVING_PIXEL_BUDGET = 256 * 256;
/** A moving backdrop is drawn anew every this many frames (4 a second): the frames between only move the clock. */
export const MOTION_STEP = 2;

/**
 * An MP4 (H.264) of `seconds` at VIDEO_FPS: the picture stays, a progress bar
 * along the bottom fills and a clock (top right) counts, so only a few macroblocks change
 * per frame (P_Skip for the rest) and the file stays small. With a `backdrop` the picture under the prompt moves
 * (drawn anew every MOTION_STEP frames, `t` from 0 at the first frame to 1 at the last).
 */
export function renderVideoMp4(prompt: string, look: Look, seconds: number, backdrop?: Backdrop): Uint8Array {
  const area = backdrop ? MOVING_PIXEL_BUDGET : PIXEL_BUDGET;
  const { width, height } = fitArea(look.ratio[0], look.ratio[1], area, 16);
  const barH = Math.max(4, Math.round(height / 48));
  const base = paintPicture(prompt, width, height, look, barH, true, backdrop);
  const { idx: picture, palette, small, clockY, overlay } = base;
  const stream = createH264Stream(width, height, palette);
  const target = new ArrayBufferTarget();
  const muxer = new Muxer({
    target,
    video: { codec: "avc", width, height, frameRate: VIDEO_FPS },
    fastStart: "in-memory",
  });
  const frames = Math.max(1, Math.round(seconds * VIDEO_FPS));
  const frame = new Uint8Array(width * height);
  const total = clock(seconds);
  const frameUs = Math.round(1_000_000 / VIDEO_FPS);
  for (let f = 0; f < frames; f++) {
    if (backdrop && f > 0 && f % MOTION_STEP === 0) {
      backdrop.paint(picture, width, height, frames > 1 ? f / (frames - 1) : 0);
      overlay(picture);
    }
    frame.set(picture);
    fillRect(frame, width, height, 0, height - barH, width, barH, TRACK);
    fillRect(frame, width, height, 0, height - barH, Math.round(((f + 1) / frames) * width), barH, ACCENT);
    // The clock under the caption, top right (a player's controls cover the bottom).
    badge(frame, width, height, `${clock(f / VIDEO_FPS)} / ${total}`, 3 * small, clockY, small, true);
    const { data, key } = stream.encode(frame);
    const meta =
      f === 0
        ? {
            decoderConfig: {
              codec: H264_CODEC,
              codedWidth: width,
              codedHeight: height,
              description: avcDecoderConfig(stream.sps, stream.pps),
            },
          }
        : undefined;
    muxer.addVideoChunkRaw(data, key ? "key" : "delta", f * frameUs, frameUs, meta);
  }
  muxer.finalize();
  return new Uint8Array(target.buffer);
}
