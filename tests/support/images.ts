/**
 * Pictures built byte by byte for the input-file tests: structurally valid PNG, JPEG and WebP of any declared size
 * (Atelier judges containers and headers, it never decodes), with the extras an attacker would add — metadata,
 * trailing bytes, a lying header.
 */
import { createDeflate, deflateSync } from "node:zlib";
import { ExifData, encodeJpg, IfdAsciiValue, IfdRationalValue, MemoryImage, Rational } from "image-in-browser";

const be32 = (n: number) => new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
const le32 = (n: number) => new Uint8Array([n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255]);
const text = (s: string) => new TextEncoder().encode(s);

export function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const body = concat(text(type), data);
  return concat(be32(data.byteLength), body, be32(Bun.hash.crc32(body) >>> 0));
}

/**
 * An RGB PNG. `pixels`: the rows actually encoded (default: all of them, so keep w × h small; a bomb declares a huge
 * size over one row). `chunks`: extra chunks before the data; `level`: deflate level (0 for fast big files).
 */
export function png(
  w: number,
  h: number,
  o: { chunks?: Uint8Array[]; rows?: number; level?: number; fill?: (i: number) => number } = {},
): Uint8Array<ArrayBuffer> {
  const ihdr = concat(be32(w), be32(h), new Uint8Array([8, 2, 0, 0, 0]));
  const rows = o.rows ?? h;
  const raw = new Uint8Array(rows * (1 + w * 3));
  if (o.fill) for (let i = 0; i < raw.length; i++) raw[i] = o.fill(i);
  for (let r = 0; r < rows; r++) raw[r * (1 + w * 3)] = 0;
  return concat(
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    ...(o.chunks ?? []),
    pngChunk("IDAT", deflateSync(raw, { level: o.level ?? 6 })),
    pngChunk("IEND", new Uint8Array(0)),
  );
}

const PNG_SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const ihdr = (w: number, h: number, depth: number, colour: number, interlace: number) =>
  pngChunk("IHDR", concat(be32(w), be32(h), new Uint8Array([depth, colour, 0, 0, interlace])));

/**
 * A PNG of any colour type, bit depth and interlacing whose IDAT inflates to exactly `inflated` bytes (zeros: filter
 * "none", black or the first palette entry). Give the size its header declares for a valid picture, one more or one
 * less for the boundaries.
 */
export function pngSized(
  w: number,
  h: number,
  inflated: number,
  o: { depth?: number; colour?: number; interlace?: number; chunks?: Uint8Array[] } = {},
): Uint8Array<ArrayBuffer> {
  const colour = o.colour ?? 2;
  return concat(
    PNG_SIGNATURE,
    ihdr(w, h, o.depth ?? 8, colour, o.interlace ?? 0),
    ...(colour === 3 ? [pngChunk("PLTE", new Uint8Array([0, 0, 0, 255, 255, 255]))] : []),
    ...(o.chunks ?? []),
    pngChunk("IDAT", deflateSync(new Uint8Array(inflated), { level: 9 })),
    pngChunk("IEND", new Uint8Array(0)),
  );
}

/**
 * A decompression bomb: a `w` × `h` RGB PNG (a few KB of pixels) whose IDAT inflates to `inflated` bytes of zeros —
 * about a thousandth of that on disk. Deflated in 1 MiB steps, so the test process never holds the inflated size.
 */
export async function pngBomb(w: number, h: number, inflated: number): Promise<Uint8Array<ArrayBuffer>> {
  const deflate = createDeflate({ level: 9 });
  const out: Uint8Array[] = [];
  deflate.on("data", (c: Buffer) => out.push(new Uint8Array(c)));
  const ended = new Promise((resolve, reject) => {
    deflate.on("end", resolve);
    deflate.on("error", reject);
  });
  const step = new Uint8Array(1024 * 1024);
  for (let left = inflated; left > 0; left -= step.byteLength) {
    const part = left >= step.byteLength ? step : step.subarray(0, left);
    if (!deflate.write(part)) await new Promise((r) => deflate.once("drain", r));
  }
  deflate.end();
  await ended;
  return concat(
    PNG_SIGNATURE,
    ihdr(w, h, 8, 2, 0),
    pngChunk("IDAT", concat(...out)),
    pngChunk("IEND", new Uint8Array(0)),
  );
}

const seg = (marker: number, data: Uint8Array) =>
  concat(new Uint8Array([0xff, marker, ((data.byteLength + 2) >> 8) & 255, (data.byteLength + 2) & 255]), data);

/** Where the GPS text sits in `jpeg({ exif: true })`: it must not survive an upload. */
export const EXIF_MARK = "GPSLatitude=51.5007;GPSLongitude=-0.1246;Make=PhoneCo";

/** A JPEG segment: marker, length, data (a string is written as Latin-1 text). */
export const jpegSegment = (marker: number, data: Uint8Array | string) =>
  seg(marker, typeof data === "string" ? text(data) : data);

/**
 * A baseline JPEG's structure: JFIF, optional Exif APP1, `segments` (extra ones after JFIF), tables, frame header
 * (w × h), one scan, EOI.
 */
export function jpeg(
  w: number,
  h: number,
  o: { exif?: boolean; segments?: Uint8Array[] } = {},
): Uint8Array<ArrayBuffer> {
  return concat(
    new Uint8Array([0xff, 0xd8]),
    seg(0xe0, concat(text("JFIF\0"), new Uint8Array([1, 1, 0, 0, 1, 0, 1, 0, 0]))),
    ...(o.exif ? [seg(0xe1, concat(text("Exif\0\0"), text(EXIF_MARK)))] : []),
    ...(o.segments ?? []),
    seg(0xdb, concat(new Uint8Array([0]), new Uint8Array(64).fill(1))),
    seg(0xc0, new Uint8Array([8, h >> 8, h & 255, w >> 8, w & 255, 1, 1, 0x11, 0])),
    seg(0xc4, concat(new Uint8Array([0]), new Uint8Array(16).fill(0), new Uint8Array(0))),
    seg(0xda, new Uint8Array([1, 1, 0, 0, 63, 0])),
    new Uint8Array([0x12, 0x34, 0xff, 0x00, 0x56, 0x78]),
    new Uint8Array([0xff, 0xd9]),
  );
}

/** A lossless WebP's container and VP8L header for w × h. */
export function webp(w: number, h: number): Uint8Array<ArrayBuffer> {
  const bits = ((w - 1) | ((h - 1) << 14)) >>> 0;
  const vp8l = concat(new Uint8Array([0x2f]), le32(bits), new Uint8Array([0, 0, 0]));
  const chunk = concat(text("VP8L"), le32(vp8l.byteLength), vp8l);
  return concat(text("RIFF"), le32(4 + chunk.byteLength), text("WEBP"), chunk);
}

/** A WebP chunk: FourCC, little-endian size, data, a pad byte when the size is odd. */
export function webpChunk(type: string, data: Uint8Array | string): Uint8Array {
  const body = typeof data === "string" ? text(data) : data;
  return concat(text(type), le32(body.byteLength), body, body.byteLength & 1 ? new Uint8Array(1) : new Uint8Array(0));
}

/**
 * An extended WebP: a VP8X header with `flags` (0x20 ICC, 0x10 alpha, 0x08 EXIF, 0x04 XMP, 0x02 animation), then
 * `chunks`, then a lossless w × h image.
 */
export function webpExtended(
  w: number,
  h: number,
  o: { flags?: number; chunks?: Uint8Array[] } = {},
): Uint8Array<ArrayBuffer> {
  const bits = ((w - 1) | ((h - 1) << 14)) >>> 0;
  const vp8l = webpChunk("VP8L", concat(new Uint8Array([0x2f]), le32(bits), new Uint8Array([0, 0, 0])));
  const side = (n: number) => new Uint8Array([n & 255, (n >> 8) & 255, (n >> 16) & 255]);
  const vp8x = webpChunk("VP8X", concat(new Uint8Array([o.flags ?? 0, 0, 0, 0]), side(w - 1), side(h - 1)));
  const body = concat(vp8x, ...(o.chunks ?? []), vp8l);
  return concat(text("RIFF"), le32(4 + body.byteLength), text("WEBP"), body);
}

/** A JPEG's segments as `marker` (hex) and the identifier its data begins with (up to 12 printable characters). */
export function jpegSegments(b: Uint8Array): string[] {
  const out: string[] = [];
  let at = 2;
  while (at + 4 <= b.length && b[at] === 0xff) {
    const marker = b[at + 1]!;
    if (marker === 0xd9) break;
    const length = (b[at + 2]! << 8) | b[at + 3]!;
    const id = String.fromCharCode(...b.subarray(at + 4, at + 4 + Math.min(12, length - 2))).replace(/[^ -~].*$/s, "");
    out.push(`${marker.toString(16).toUpperCase()}${id ? ` ${id}` : ""}`);
    at += 2 + length;
    if (marker === 0xda) break; // the scan's data follows
  }
  return out;
}

/** A PNG's chunk types in order. */
export function pngChunkTypes(b: Uint8Array): string[] {
  const out: string[] = [];
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let at = 8; at + 12 <= b.length; at += 12 + view.getUint32(at))
    out.push(String.fromCharCode(...b.subarray(at + 4, at + 8)));
  return out;
}

/** A WebP's chunk types in order, and its VP8X flags (or null without VP8X). */
export function webpChunkTypes(b: Uint8Array): { types: string[]; flags: number | null } {
  const types: string[] = [];
  let flags: number | null = null;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let at = 12; at + 8 <= b.length; ) {
    const type = String.fromCharCode(...b.subarray(at, at + 4));
    const size = view.getUint32(at + 4, true);
    if (type === "VP8X") flags = b[at + 8]!;
    types.push(type);
    at += 8 + size + (size & 1);
  }
  return { types, flags };
}

/** The camera and place a `phonePhoto` carries: none of it may survive an upload. */
export const PHONE_MAKE = "PhoneCo";
export const PHONE_MODEL = "Pocket 9 Pro";

/**
 * A JPEG as a phone writes it, encoded for real (image-in-browser): the sensor's pixels stored `w` × `h` — the left
 * half red, the right half blue — with an Exif segment holding `orientation` (6: show it turned 90° clockwise, what a
 * phone held upright records), the camera's make and model, and a GPS directory (51° 30′ N, 0° 7′ W).
 */
export function phonePhoto(w: number, h: number, orientation = 6): Uint8Array<ArrayBuffer> {
  const img = new MemoryImage({ width: w, height: h });
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) img.setPixelRgb(x, y, x < w / 2 ? 255 : 0, 0, x < w / 2 ? 0 : 255);
  const exif = new ExifData();
  exif.imageIfd.orientation = orientation;
  exif.imageIfd.make = PHONE_MAKE;
  exif.imageIfd.model = PHONE_MODEL;
  const dms = (d: number, m: number) =>
    new IfdRationalValue([new Rational(d, 1), new Rational(m, 1), new Rational(0, 1)]);
  exif.gpsIfd.set("GPSLatitudeRef", new IfdAsciiValue("N"));
  exif.gpsIfd.set("GPSLatitude", dms(51, 30));
  exif.gpsIfd.set("GPSLongitudeRef", new IfdAsciiValue("W"));
  exif.gpsIfd.set("GPSLongitude", dms(0, 7));
  img.exifData = exif;
  return new Uint8Array(encodeJpg({ image: img, quality: 90 }));
}

/**
 * A real-size result as a provider sends it: an RGB PNG of noise (xorshift), which deflate cannot shrink, so a 1024²
 * picture weighs about 3 MB like a gpt-image-1 one. `seed` makes each picture different.
 */
export function noisyPng(w: number, h: number, seed = 1): Uint8Array<ArrayBuffer> {
  let x = (seed * 2654435761) >>> 0 || 1;
  return png(w, h, {
    level: 1,
    fill: () => {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      return x & 255;
    },
  });
}
