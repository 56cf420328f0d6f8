/**
 * Real result files for the simulator: a PNG for images and an animated GIF
 * for videos, both showing the prompt's words in a pixel font on a gradient
 * whose colours come from a hash of the prompt — so two prompts give two
 * visibly different pictures, and a person can tell which prompt made which.
 *
 * No native add-ons or wasm (gifenc, the "Seven plus" font data of
 * js-pixel-fonts inlined as JSON, node:zlib for deflate), so it also runs
 * inside a `bun build --compile` executable. Both functions are synchronous.
 */
import { deflateSync } from "node:zlib";
import { GIFEncoder } from "gifenc";
import sevenPlus from "js-pixel-fonts/data/seven-plus.json";

interface Glyph {
  offset: number;
  pixels: number[][];
}
const FONT = sevenPlus as unknown as { lineHeight: number; glyphs: Record<string, Glyph> };
const LINE_H = FONT.lineHeight + 3;

export const IMAGE_SIZE = { width: 384, height: 384 } as const;
export const VIDEO_SIZE = { width: 256, height: 144, frames: 12, frameDelayMs: 120 } as const;

/** Palette layout: 0..GRADIENT-1 gradient, then text, shadow, accent. */
const GRADIENT = 64;
const TEXT = GRADIENT;
const SHADOW = GRADIENT + 1;
const ACCENT = GRADIENT + 2;

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

/** A 67-colour palette: a two-hue gradient picked by the hash, white text, dark shadow, an accent. */
function paletteFor(hash: number): [number, number, number][] {
  const h1 = hash % 360;
  const h2 = (h1 + 60 + ((hash >>> 9) % 180)) % 360;
  const out: [number, number, number][] = [];
  for (let i = 0; i < GRADIENT; i++) {
    const t = i / (GRADIENT - 1);
    const h = h1 + (((h2 - h1 + 540) % 360) - 180) * t;
    out.push(hsl((h + 360) % 360, 0.65, 0.32 + 0.22 * t));
  }
  out.push([255, 255, 255], [20, 20, 28], hsl((h1 + 180) % 360, 0.9, 0.6));
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
    else if (line.length + 1 + w.length <= cols) line += " " + w;
    else lines.push(line), (line = w);
  }
  if (line) lines.push(line);
  if (lines.length > maxLines) {
    const kept = lines.slice(0, maxLines);
    kept[maxLines - 1] = kept[maxLines - 1]!.slice(0, Math.max(0, cols - 3)) + "...";
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

/** Fills an indexed frame: diagonal gradient shifted by `phase`, a band, and the prompt's lines centred. */
function paintFrame(
  idx: Uint8Array,
  width: number,
  height: number,
  lines: string[],
  scale: number,
  phase: number,
  accentX: number,
) {
  // The colour depends on x + y only: one lookup row, copied per scanline.
  const span = width + height;
  const lut = new Uint8Array(span);
  for (let d = 0; d < span; d++) {
    let t = ((d + phase) % span) / span;
    t = t < 0.5 ? t * 2 : (1 - t) * 2;
    lut[d] = Math.min(GRADIENT - 1, (t * GRADIENT) | 0);
  }
  for (let y = 0; y < height; y++) idx.set(lut.subarray(y, y + width), y * width);
  // An accent bar whose position is part of the hash: another visible fingerprint.
  const barH = Math.max(2, scale);
  for (let y = height - barH * 3; y < height - barH * 2; y++) {
    for (let x = accentX; x < Math.min(width, accentX + (width >> 2)); x++) idx[y * width + x] = ACCENT;
  }
  const blockH = lines.length * LINE_H * scale;
  let y = Math.max(scale * 2, ((height - blockH) >> 1) - barH);
  for (const line of lines) {
    const w = lineWidth(line) * scale;
    drawText(idx, width, height, line, Math.max(scale, (width - w) >> 1), y, scale);
    y += LINE_H * scale;
  }
}

/** Characters the font can draw; the rest become `?`. */
const printable = (s: string) => s.replace(/[^\x20-\x7e]/g, "?");

/** A PNG (indexed colour) of the prompt drawn on its own gradient. */
export function renderImagePng(prompt: string): Uint8Array {
  const { width, height } = IMAGE_SIZE;
  const hash = hashPrompt(prompt);
  const scale = 3;
  const cols = Math.floor((width - 2 * scale * 4) / (6 * scale));
  const lines = wrap(printable(prompt), cols, 8);
  const idx = new Uint8Array(width * height);
  paintFrame(idx, width, height, lines, scale, hash % (width + height), (hash >>> 5) % ((width * 3) >> 2));
  const palette = paletteFor(hash);
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
 * ~20× faster here than the pure-JS deflate of fast-png (decisions, 2026-11-22).
 */
export function encodeIndexedPng(width: number, height: number, idx: Uint8Array, palette: [number, number, number][]): Uint8Array {
  const raw = new Uint8Array((width + 1) * height);
  for (let y = 0; y < height; y++) raw.set(idx.subarray(y * width, (y + 1) * width), y * (width + 1) + 1); // filter 0
  const idat = deflateSync(raw, { level: 3 });
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

/** A small animated GIF (looping) of the prompt over a moving gradient. */
export function renderVideoGif(prompt: string): Uint8Array {
  const { width, height, frames, frameDelayMs } = VIDEO_SIZE;
  const hash = hashPrompt(prompt);
  const scale = 2;
  const cols = Math.floor((width - 2 * scale * 4) / (6 * scale));
  const lines = wrap(printable(prompt), cols, 5);
  const palette = paletteFor(hash);
  const gif = GIFEncoder();
  const idx = new Uint8Array(width * height);
  const step = Math.floor((width + height) / frames);
  for (let f = 0; f < frames; f++) {
    paintFrame(idx, width, height, lines, scale, (hash + f * step) % (width + height), Math.floor((f / frames) * (width * 0.75)));
    gif.writeFrame(idx, width, height, { palette: f === 0 ? palette : undefined, delay: frameDelayMs, repeat: 0 });
  }
  gif.finish();
  return gif.bytes();
}
