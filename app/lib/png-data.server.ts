/**
 * A PNG's compressed pixel data checked against its header before anything decodes it
 * (docs/decisions/140-bounded-png-inflate.md): the header (IHDR) says exactly how many bytes the data inflates to
 * (each row's filter byte plus its pixels, per Adam7 pass when interlaced), so a decompression bomb — a small
 * picture whose IDAT inflates to gigabytes — is caught by inflating with that many bytes as the limit and refusing
 * the first byte past it. Nothing past the bound is ever produced: the streaming check runs on zlib's thread pool
 * and keeps no output (memory stays one chunk), the synchronous one is capped by zlib's `maxOutputLength`.
 */
import { createInflate, inflateSync } from "node:zlib";

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
}

/** Channels per colour type, and the bit depths the PNG standard allows for it. */
const COLOR_TYPES: Record<number, { channels: number; depths: readonly number[] }> = {
  0: { channels: 1, depths: [1, 2, 4, 8, 16] },
  2: { channels: 3, depths: [8, 16] },
  3: { channels: 1, depths: [1, 2, 4, 8] },
  4: { channels: 2, depths: [8, 16] },
  6: { channels: 4, depths: [8, 16] },
};

/** Adam7's passes: first column and row, then the step between columns and between rows. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** Why a PNG's data is refused; the message is the envelope's reason. */
export class PngDataRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "PngDataRefused";
  }
}

const be32 = (b: Uint8Array, at: number) =>
  ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
const typeAt = (b: Uint8Array, at: number) => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);

/** Bytes of one pass of `width` × `height` pixels of `bits` each, a filter byte before every row. */
const passBytes = (width: number, height: number, bits: number) =>
  width === 0 || height === 0 ? 0 : height * (1 + Math.ceil((width * bits) / 8));

/** The exact number of bytes a PNG with this header inflates to. */
export function inflatedSize(h: PngHeader): number {
  const bits = COLOR_TYPES[h.colorType]!.channels * h.bitDepth;
  if (!h.interlaced) return passBytes(h.width, h.height, bits);
  let total = 0;
  for (const [x0, y0, dx, dy] of ADAM7)
    total += passBytes(Math.ceil(Math.max(0, h.width - x0) / dx), Math.ceil(Math.max(0, h.height - y0) / dy), bits);
  return total;
}

export interface PngData {
  header: PngHeader;
  /** The IDAT chunks' data, in order: one zlib stream. */
  compressed: Uint8Array;
  /** What the header says `compressed` inflates to. */
  expected: number;
  /** An APNG (acTL): its other frames (fdAT) are not bounded here. */
  animated: boolean;
}

/**
 * The header and compressed data of a PNG whose chunks are already known to be well formed (lengths within the
 * file); throws PngDataRefused for a header the standard does not allow.
 */
export function pngData(b: Uint8Array): PngData {
  if (b.length < 33 || typeAt(b, 12) !== "IHDR") throw new PngDataRefused("malformed PNG: no IHDR chunk first");
  const header: PngHeader = {
    width: be32(b, 16),
    height: be32(b, 20),
    bitDepth: b[24]!,
    colorType: b[25]!,
    interlaced: b[28] === 1,
  };
  const type = COLOR_TYPES[header.colorType];
  if (!type || !type.depths.includes(header.bitDepth) || b[26] !== 0 || b[27] !== 0 || b[28]! > 1)
    throw new PngDataRefused("malformed PNG: the header's colour type, bit depth or methods are not PNG's");
  const parts: Uint8Array[] = [];
  let size = 0;
  let animated = false;
  for (let at = 8; at + 12 <= b.length; ) {
    const length = be32(b, at);
    const chunk = typeAt(b, at + 4);
    if (chunk === "IDAT") {
      parts.push(b.subarray(at + 8, at + 8 + length));
      size += length;
    } else if (chunk === "acTL") animated = true;
    else if (chunk === "IEND") break;
    at += 12 + length;
  }
  const compressed = parts.length === 1 ? parts[0]! : new Uint8Array(size);
  if (parts.length !== 1) {
    let at = 0;
    for (const p of parts) {
      compressed.set(p, at);
      at += p.byteLength;
    }
  }
  return { header, compressed, expected: inflatedSize(header), animated };
}

const sides = (h: PngHeader) => `${h.width}×${h.height}`;
const overflow = (h: PngHeader) =>
  `PNG image data inflates to more than its ${sides(h)} header declares (a decompression bomb)`;
const shortData = (h: PngHeader) => `malformed PNG: image data is shorter than its ${sides(h)} header declares`;
const CORRUPT = "malformed PNG: image data does not inflate";

/**
 * Inflates the PNG's data with its header's size as the limit, off the main thread, keeping no output; throws
 * PngDataRefused when it inflates past that size (or short of it, or not at all), or takes over `timeoutMs`.
 */
export async function checkPngData(b: Uint8Array, opts: { timeoutMs: number }): Promise<PngData> {
  const data = pngData(b);
  const { header, expected } = data;
  await new Promise<void>((resolve, reject) => {
    const z = createInflate({ chunkSize: 64 * 1024 });
    let produced = 0;
    let settled = false;
    const settle = (error?: PngDataRefused) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        z.destroy();
        reject(error);
      } else resolve();
    };
    const timer = setTimeout(
      () => settle(new PngDataRefused(`PNG image data took over ${opts.timeoutMs} ms to read`)),
      opts.timeoutMs,
    );
    z.on("data", (chunk: Buffer) => {
      produced += chunk.byteLength;
      if (produced > expected) settle(new PngDataRefused(overflow(header)));
    });
    z.on("end", () => settle(produced < expected ? new PngDataRefused(shortData(header)) : undefined));
    z.on("error", () => settle(new PngDataRefused(CORRUPT)));
    z.end(data.compressed);
  });
  return data;
}

/**
 * The same bound, synchronously, for code that is about to decode the picture anyway (and runs where that is
 * allowed to take time): at most the header's size is ever inflated.
 */
export function checkPngDataSync(b: Uint8Array): PngData {
  const data = pngData(b);
  let out: Buffer;
  try {
    out = inflateSync(data.compressed, { maxOutputLength: Math.max(1, data.expected) });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw new PngDataRefused(overflow(data.header));
    throw new PngDataRefused(CORRUPT);
  }
  if (out.byteLength < data.expected) throw new PngDataRefused(shortData(data.header));
  return data;
}
