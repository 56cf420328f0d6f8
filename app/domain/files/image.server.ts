/**
 * Judging an input picture by its bytes (docs/api.md "Files", docs/decisions/123-input-files.md): PNG, JPEG or
 * WebP, whatever the name or declared type says. The dimensions are read from the header first (image-size), so a
 * decompression bomb (a 100,000 × 100,000 header over a few bytes) is refused before anything else is looked at;
 * then the container is walked to its end marker, so a truncated or malformed file is refused too. Nothing is
 * decoded. What is stored is the walk's output, by an allow-list (docs/decisions/141-metadata-allow-list.md): the
 * segments and chunks that draw the picture (pixels, palette, transparency, tables) and its colour space (an ICC
 * profile, PNG's sRGB/gAMA/cHRM/cICP, JPEG's Adobe transform) are kept; every other one (Exif, XMP, IPTC, C2PA/JUMBF,
 * comments, text, dates, thumbnails, maker segments, whatever a later standard adds) and every byte after the end
 * marker are left out, which also drops what a polyglot appends after the picture. A JPEG's Exif Orientation alone
 * is kept, in a minimal Exif segment of its own, and the width and height reported are the picture as shown
 * (docs/decisions/128-jpeg-orientation-kept.md).
 */
import { imageSize } from "image-size";
import { checkPngData, PngDataRefused } from "~/lib/png-data.server";

export type ImageType = "image/png" | "image/jpeg" | "image/webp";

export interface ImageLimits {
  /** Pixels (width × height) at most. */
  maxPixels: number;
  /** Width and height at most. */
  maxSide: number;
}

export const DEFAULT_IMAGE_LIMITS: ImageLimits = { maxPixels: 40_000_000, maxSide: 8192 };

export interface InspectedImage {
  contentType: ImageType;
  /** As shown: a JPEG whose Exif orientation turns it a quarter turn has its stored sides swapped. */
  width: number;
  height: number;
  /** The JPEG's Exif orientation kept in the stored bytes (2–8), or 1 (none, or upright). */
  orientation: number;
  /** The bytes to store: the picture without its metadata and trailing bytes. */
  bytes: Uint8Array;
}

/** Why a file is refused, in words for the envelope (`invalid file: <reason>`). */
export class ImageRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "ImageRefused";
  }
}

const EXT: Record<ImageType, string> = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp" };
export const extensionOf = (t: ImageType) => EXT[t];

/** The type the first bytes say, or null. */
export function sniffImageType(b: Uint8Array): ImageType | null {
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    return b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a ? "image/png" : null;
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WEBP") return "image/webp";
  return null;
}

/** Judges and cleans a picture; throws ImageRefused with the reason. */
export function inspectImage(bytes: Uint8Array, limits: ImageLimits = DEFAULT_IMAGE_LIMITS): InspectedImage {
  const type = sniffImageType(bytes);
  if (!type) throw new ImageRefused("not a PNG, JPEG or WebP image");
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch {
    throw new ImageRefused("malformed or truncated image header");
  }
  const width = size.width ?? 0;
  const height = size.height ?? 0;
  if (width < 1 || height < 1) throw new ImageRefused("malformed image header (no dimensions)");
  if (width > limits.maxSide || height > limits.maxSide)
    throw new ImageRefused(`image is ${width}×${height}: a side may be at most ${limits.maxSide} pixels`);
  if (width * height > limits.maxPixels)
    throw new ImageRefused(
      `image is ${width}×${height}: at most ${Math.round(limits.maxPixels / 1_000_000)} megapixels`,
    );
  if (type === "image/jpeg") {
    const { bytes: cleaned, orientation } = walkJpeg(bytes);
    const turned = QUARTER_TURNS.has(orientation);
    return {
      contentType: type,
      width: turned ? height : width,
      height: turned ? width : height,
      orientation,
      bytes: cleaned,
    };
  }
  const cleaned = type === "image/png" ? walkPng(bytes) : walkWebp(bytes);
  return { contentType: type, width, height, orientation: 1, bytes: cleaned };
}

/** How long a PNG's data may take to inflate at upload (a 40 MP one takes about 0.3 s on a busy core). */
export const PNG_DATA_TIMEOUT_MS = 5_000;

/**
 * inspectImage, then a PNG's pixel data inflated against its header's size (app/lib/png-data.server.ts) off the
 * main thread: a decompression bomb is refused here, before it is stored.
 */
export async function judgeImage(
  bytes: Uint8Array,
  limits: ImageLimits = DEFAULT_IMAGE_LIMITS,
): Promise<InspectedImage> {
  const image = inspectImage(bytes, limits);
  if (image.contentType === "image/png") {
    try {
      await checkPngData(image.bytes, { timeoutMs: PNG_DATA_TIMEOUT_MS });
    } catch (error) {
      if (error instanceof PngDataRefused) throw new ImageRefused(error.reason);
      throw error;
    }
  }
  return image;
}

function ascii(b: Uint8Array, at: number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += String.fromCharCode(b[at + i] ?? 0);
  return s;
}

const be32 = (b: Uint8Array, at: number) =>
  ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
const le32 = (b: Uint8Array, at: number) =>
  (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.byteLength;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

const TRUNCATED = "truncated or malformed image";

/**
 * The PNG chunks kept: the critical ones, transparency, and the colour space. Animation (acTL, fcTL, fdAT) goes too:
 * the picture kept is the still one every viewer shows without it.
 */
export const PNG_KEEP: ReadonlySet<string> = new Set([
  "IHDR",
  "PLTE",
  "tRNS",
  "IDAT",
  "IEND",
  "iCCP",
  "sRGB",
  "gAMA",
  "cHRM",
  "cICP",
]);

/** PNG: signature, chunks (length, type, data, CRC-32 checked) up to IEND; IHDR first, at least one IDAT. */
function walkPng(b: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [b.subarray(0, 8)];
  let at = 8;
  let first = true;
  let sawData = false;
  for (;;) {
    if (at + 12 > b.length) throw new ImageRefused(TRUNCATED);
    const length = be32(b, at);
    const type = ascii(b, at + 4, 4);
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > b.length) throw new ImageRefused(TRUNCATED);
    if (first && (type !== "IHDR" || length !== 13)) throw new ImageRefused("malformed PNG: no IHDR chunk first");
    first = false;
    if (Bun.hash.crc32(b.subarray(at + 4, end - 4)) >>> 0 !== be32(b, end - 4))
      throw new ImageRefused("malformed PNG: a chunk's checksum does not match");
    if (type === "IDAT") sawData = true;
    if (PNG_KEEP.has(type)) parts.push(b.subarray(at, end));
    at = end;
    if (type === "IEND") break;
  }
  if (!sawData) throw new ImageRefused("malformed PNG: no image data");
  return concat(parts);
}

const APP1 = 0xe1;
/** JPEG tables and headers that draw the picture: DHT, DAC, DQT, DNL, DRI (frames and scans are kept as well). */
const JPEG_TABLES = new Set([0xc4, 0xcc, 0xdb, 0xdc, 0xdd]);
const ICC_PROFILE = "ICC_PROFILE\0";
/** Adobe's APP14: "Adobe", version, two flag words and the colour transform a CMYK or YCCK picture is drawn with. */
const ADOBE = "Adobe";
const ADOBE_BYTES = 12;

/**
 * What is kept of a JPEG segment (its marker at `start`, its data from `start + 4` to `end`): the whole segment for
 * frames, scans and tables and an ICC profile's APP2; Adobe's APP14 cut to its 12 bytes (nothing can ride after
 * them); null for every other segment — JFIF's APP0 too (its density and thumbnail are not needed to draw the
 * picture).
 */
export function keptJpegSegment(marker: number, b: Uint8Array, start: number, end: number): Uint8Array | null {
  if (isSof(marker) || marker === 0xda || JPEG_TABLES.has(marker)) return b.subarray(start, end);
  const data = start + 4;
  if (marker === 0xe2 && data + ICC_PROFILE.length <= end && ascii(b, data, ICC_PROFILE.length) === ICC_PROFILE)
    return b.subarray(start, end);
  if (marker === 0xee && data + ADOBE_BYTES <= end && ascii(b, data, ADOBE.length) === ADOBE)
    return concat([new Uint8Array([0xff, 0xee, 0, ADOBE_BYTES + 2]), b.subarray(data, data + ADOBE_BYTES)]);
  return null;
}

/** Exif orientations shown a quarter turn from the stored pixels (5–8: transposed, 90°, transverse, 270°). */
const QUARTER_TURNS = new Set([5, 6, 7, 8]);

/**
 * The Orientation tag (0x0112, one SHORT) of an Exif APP1 segment's first image directory; 1 when the segment is
 * not Exif, has no such tag, or anything about it is out of bounds or not as the Exif standard writes it.
 * `seg` is the segment's data, after its marker and length.
 */
export function exifOrientation(seg: Uint8Array): number {
  if (seg.length < 14 || ascii(seg, 0, 6) !== "Exif\0\0") return 1;
  const t = seg.subarray(6);
  const little = t[0] === 0x49 && t[1] === 0x49;
  if (!little && !(t[0] === 0x4d && t[1] === 0x4d)) return 1;
  const u16 = (at: number) =>
    at + 2 > t.length ? -1 : little ? t[at]! | (t[at + 1]! << 8) : (t[at]! << 8) | t[at + 1]!;
  const u32 = (at: number) => (at + 4 > t.length ? -1 : little ? le32(t, at) : be32(t, at));
  if (u16(2) !== 42) return 1;
  const ifd = u32(4);
  const count = ifd < 8 ? -1 : u16(ifd);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > t.length) return 1;
    if (u16(entry) !== 0x0112) continue;
    const value = u16(entry + 8);
    return u16(entry + 2) === 3 && u32(entry + 4) === 1 && value >= 1 && value <= 8 ? value : 1;
  }
  return 1;
}

/**
 * An Exif APP1 segment with nothing but the Orientation tag: a big-endian TIFF header, one image directory of one
 * entry, no next directory. What a viewer needs to show a phone photo upright, and nothing that locates anyone.
 */
export function orientationSegment(orientation: number): Uint8Array {
  const data = [
    ...[0x45, 0x78, 0x69, 0x66, 0, 0], // "Exif\0\0"
    ...[0x4d, 0x4d, 0, 42, 0, 0, 0, 8], // "MM", 42, first directory at 8
    ...[0, 1], // one entry
    ...[0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0], // Orientation, SHORT, 1 value
    ...[0, 0, 0, 0], // no next directory
  ];
  return new Uint8Array([0xff, APP1, 0, data.length + 2, ...data]);
}
/** Start-of-frame markers (C4 DHT, C8 JPG and CC DAC are not frames). */
const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

/**
 * JPEG: SOI, segments with their lengths, entropy-coded scans, up to EOI; a frame header before the first scan.
 * The first Exif segment's orientation, when it is not upright, is put back where that segment was, alone.
 */
function walkJpeg(b: Uint8Array): { bytes: Uint8Array; orientation: number } {
  const parts: Uint8Array[] = [b.subarray(0, 2)];
  let at = 2;
  let orientation = 0;
  let sawFrame = false;
  let sawScan = false;
  for (;;) {
    if (at + 2 > b.length) throw new ImageRefused(TRUNCATED);
    if (b[at] !== 0xff) throw new ImageRefused("malformed JPEG: expected a marker");
    let marker = b[at + 1]!;
    // Fill bytes: any number of 0xFF before a marker.
    while (marker === 0xff && at + 2 < b.length) {
      at++;
      marker = b[at + 1]!;
    }
    if (marker === 0xd9) {
      if (!sawScan) throw new ImageRefused("malformed JPEG: no image data");
      parts.push(b.subarray(at, at + 2));
      break;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      parts.push(b.subarray(at, at + 2));
      at += 2;
      continue;
    }
    if (at + 4 > b.length) throw new ImageRefused(TRUNCATED);
    const length = (b[at + 2]! << 8) | b[at + 3]!;
    const end = at + 2 + length;
    if (length < 2 || end > b.length) throw new ImageRefused(TRUNCATED);
    if (isSof(marker)) sawFrame = true;
    const kept = keptJpegSegment(marker, b, at, end);
    if (kept) parts.push(kept);
    else if (marker === APP1 && orientation === 0 && ascii(b, at + 4, 6) === "Exif\0\0") {
      orientation = exifOrientation(b.subarray(at + 4, end));
      if (orientation !== 1) parts.push(orientationSegment(orientation));
    }
    at = end;
    if (marker === 0xda) {
      if (!sawFrame) throw new ImageRefused("malformed JPEG: a scan before the frame header");
      sawScan = true;
      // Entropy-coded data runs to the next marker that is neither a stuffed 0xFF00 nor a restart marker.
      let i = at;
      for (;;) {
        i = b.indexOf(0xff, i);
        if (i < 0 || i + 1 >= b.length) throw new ImageRefused(TRUNCATED);
        const next = b[i + 1]!;
        if (next === 0x00 || (next >= 0xd0 && next <= 0xd7) || next === 0xff) {
          i += next === 0xff ? 1 : 2;
          continue;
        }
        break;
      }
      parts.push(b.subarray(at, i));
      at = i;
    }
  }
  return { bytes: concat(parts), orientation: orientation || 1 };
}

/** WebP chunks kept: the header, image data, alpha, animation and the ICC profile. */
export const WEBP_KEEP: ReadonlySet<string> = new Set(["VP8X", "VP8 ", "VP8L", "ALPH", "ANIM", "ANMF", "ICCP"]);
/** VP8X flags kept: ICC profile (while its chunk is), alpha, animation; EXIF, XMP and the reserved bits are cleared. */
const VP8X_ICC = 0x20;
const VP8X_KEPT = VP8X_ICC | 0x10 | 0x02;

/** WebP: the RIFF container's size is the file's, every chunk fits in it, and it holds image data. */
function walkWebp(b: Uint8Array): Uint8Array {
  const riffEnd = le32(b, 4) + 8;
  if (riffEnd > b.length || riffEnd < 20) throw new ImageRefused(TRUNCATED);
  const parts: Uint8Array[] = [];
  let at = 12;
  let sawData = false;
  let sawIcc = false;
  let vp8x: Uint8Array | null = null;
  while (at < riffEnd) {
    if (at + 8 > riffEnd) throw new ImageRefused(TRUNCATED);
    const type = ascii(b, at, 4);
    const size = le32(b, at + 4);
    const end = at + 8 + size + (size & 1);
    if (end > riffEnd) throw new ImageRefused(TRUNCATED);
    if (type === "VP8 " || type === "VP8L" || type === "ANMF") sawData = true;
    if (WEBP_KEEP.has(type)) {
      const chunk = b.slice(at, end);
      if (type === "VP8X") vp8x = chunk;
      if (type === "ICCP") sawIcc = true;
      parts.push(chunk);
    }
    at = end;
  }
  if (!sawData) throw new ImageRefused("malformed WebP: no image data");
  if (vp8x && vp8x.length > 8) vp8x[8] = vp8x[8]! & (sawIcc ? VP8X_KEPT : VP8X_KEPT & ~VP8X_ICC);
  const body = concat(parts);
  const header = new Uint8Array(12);
  header.set(b.subarray(0, 12));
  new DataView(header.buffer).setUint32(4, body.byteLength + 4, true);
  return concat([header, body]);
}
