/**
 * A PNG's pixel data against its header (app/lib/png-data.server.ts): the size every header declares (colour types,
 * bit depths, Adam7), and the bound at, just under and just over it, streamed and synchronous; a bomb refused
 * without being inflated, off the main thread.
 */
import { describe, expect, test } from "bun:test";
import { inflateSync } from "node:zlib";
import { encodePng, Format, MemoryImage } from "image-in-browser";
import { checkPngData, checkPngDataSync, inflatedSize, PngDataRefused, pngData } from "~/lib/png-data.server";
import { concat, pngBomb, pngChunk, pngSized } from "../../support/images";

const refusal = async (p: Promise<unknown> | (() => unknown)) => {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (error) {
    expect(error).toBeInstanceOf(PngDataRefused);
    return (error as PngDataRefused).reason;
  }
  return "accepted";
};
const both = async (bytes: Uint8Array) => {
  const streamed = await refusal(checkPngData(bytes, { timeoutMs: 5_000 }));
  const sync = await refusal(() => checkPngDataSync(bytes));
  expect(sync).toBe(streamed);
  return streamed;
};

describe("the size a header declares", () => {
  test("equals what a real encoder's data inflates to, for every channel count and 8 and 16 bits", () => {
    for (const numChannels of [1, 2, 3, 4] as const)
      for (const format of [Format.uint8, Format.uint16])
        for (const [w, h] of [
          [1, 1],
          [7, 3],
          [33, 17],
        ] as const) {
          const bytes = new Uint8Array(
            encodePng({ image: new MemoryImage({ width: w, height: h, numChannels, format }) }),
          );
          const data = pngData(bytes);
          expect({ numChannels, format, w, h, size: inflatedSize(data.header) }).toEqual({
            numChannels,
            format,
            w,
            h,
            size: inflateSync(data.compressed).byteLength,
          });
        }
  });

  test("sub-byte depths round each row up; Adam7 counts each non-empty pass's rows and filter bytes", () => {
    const h = (width: number, height: number, bitDepth: number, colorType: number, interlaced = false) =>
      inflatedSize({ width, height, bitDepth, colorType, interlaced });
    expect(h(9, 2, 1, 0)).toBe(2 * (1 + 2)); // 9 bits a row: 2 bytes
    expect(h(8, 2, 1, 0)).toBe(2 * (1 + 1));
    expect(h(3, 1, 4, 3)).toBe(1 + 2);
    expect(h(10, 10, 16, 6)).toBe(10 * (1 + 80));
    // 3 × 3 grey, interlaced: passes of 1×1, none, none, 1×1, 2×1, 1×2 and 3×1 pixels.
    expect(h(3, 3, 8, 0, true)).toBe(2 + 2 + 3 + 2 * 2 + 4);
    expect(h(1, 1, 8, 2, true)).toBe(1 + 3);
    // 8 × 8 interlaced holds the 64 pixels plus 15 filter bytes (1 + 1 + 1 + 2 + 2 + 4 + 4 rows).
    expect(h(8, 8, 8, 0, true)).toBe(64 + 15);
  });

  test("a header the standard does not allow is refused", async () => {
    for (const [depth, colour] of [
      [16, 3],
      [4, 2],
      [2, 6],
      [3, 0],
      [8, 5],
    ])
      expect(await both(pngSized(4, 4, 64, { depth, colour }))).toContain("colour type, bit depth or methods");
    expect(await both(pngSized(4, 4, 4 * 13, { interlace: 2 }))).toContain("colour type, bit depth or methods");
    expect(await both(new Uint8Array(40))).toContain("no IHDR");
  });
});

describe("the bound", () => {
  const cases = [
    { w: 30, h: 20, o: {} },
    { w: 9, h: 5, o: { depth: 1, colour: 0 } },
    { w: 13, h: 11, o: { depth: 2, colour: 3 } },
    { w: 5, h: 7, o: { depth: 16, colour: 6, interlace: 1 } },
    { w: 3, h: 3, o: { colour: 0, interlace: 1 } },
  ];
  test("at the declared size accepted; one byte over or under refused, streamed and synchronous", async () => {
    for (const { w, h, o } of cases) {
      const size = inflatedSize({
        width: w,
        height: h,
        bitDepth: (o as { depth?: number }).depth ?? 8,
        colorType: (o as { colour?: number }).colour ?? 2,
        interlaced: (o as { interlace?: number }).interlace === 1,
      });
      expect(await both(pngSized(w, h, size, o))).toBe("accepted");
      expect(await both(pngSized(w, h, size + 1, o))).toBe(
        `PNG image data inflates to more than its ${w}×${h} header declares (a decompression bomb)`,
      );
      expect(await both(pngSized(w, h, size - 1, o))).toBe(
        `malformed PNG: image data is shorter than its ${w}×${h} header declares`,
      );
    }
  });

  test("data split over several IDAT chunks is one stream; data that does not inflate is refused", async () => {
    const whole = pngSized(30, 20, 20 * 91);
    const data = pngData(whole).compressed;
    const split = concat(
      whole.subarray(0, 33),
      pngChunk("IDAT", data.subarray(0, 5)),
      pngChunk("IDAT", data.subarray(5)),
      pngChunk("IEND", new Uint8Array(0)),
    );
    expect(await both(split)).toBe("accepted");
    const garbage = concat(whole.subarray(0, 33), pngChunk("IDAT", new Uint8Array([1, 2, 3, 4, 5])));
    expect(await both(garbage)).toBe("malformed PNG: image data does not inflate");
  });

  test("a 64×64 bomb of 256 MiB is refused in milliseconds, the server's thread free and its memory flat", async () => {
    const bomb = await pngBomb(64, 64, 256 * 1024 * 1024);
    expect(bomb.byteLength).toBeLessThan(300_000);
    Bun.gc(true);
    const rss = process.memoryUsage.rss();
    const t0 = performance.now();
    expect(await refusal(checkPngData(bomb, { timeoutMs: 5_000 }))).toContain("a decompression bomb");
    expect(await refusal(() => checkPngDataSync(bomb))).toContain("a decompression bomb");
    expect(performance.now() - t0).toBeLessThan(500);
    expect(process.memoryUsage.rss() - rss).toBeLessThan(32 * 1024 * 1024);
  });

  test("a legitimate large picture inflates on zlib's threads: timers on the main thread keep running", async () => {
    const w = 2000;
    const h = 2000;
    const big = pngSized(w, h, h * (1 + w * 3));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const t0 = performance.now();
    expect(await refusal(checkPngData(big, { timeoutMs: 5_000 }))).toBe("accepted");
    const ms = performance.now() - t0;
    clearInterval(timer);
    // A synchronous inflate of 12 MB would let no timer run until it ends.
    expect(ticks).toBeGreaterThan(0);
    expect(ms).toBeLessThan(5_000);
  });

  test("past the time limit the check gives up with a refusal", async () => {
    const big = pngSized(3000, 3000, 3000 * 9001);
    expect(await refusal(checkPngData(big, { timeoutMs: 0 }))).toBe("PNG image data took over 0 ms to read");
  });
});

describe("what pngData reads", () => {
  test("an APNG is marked animated; data after IEND is not counted; a header without pixels declares 0", async () => {
    const still = pngSized(4, 4, 4 * 13);
    expect(pngData(still).animated).toBe(false);
    const animated = pngSized(4, 4, 4 * 13, { chunks: [pngChunk("acTL", new Uint8Array(8))] });
    expect(pngData(animated).animated).toBe(true);
    const idat = pngData(still).compressed;
    const after = concat(still, pngChunk("IDAT", idat));
    expect(pngData(after).compressed).toEqual(idat);
    expect(await both(after)).toBe("accepted");
    expect(inflatedSize({ width: 0, height: 5, bitDepth: 8, colorType: 2, interlaced: false })).toBe(0);
    expect(inflatedSize({ width: 5, height: 0, bitDepth: 8, colorType: 2, interlaced: false })).toBe(0);
  });

  test("a compression or filter method other than 0 is refused; a file shorter than IHDR's end too", async () => {
    const good = pngSized(4, 4, 4 * 13);
    for (const at of [26, 27]) {
      const bad = good.slice();
      bad[at] = 1;
      expect(await both(bad)).toContain("colour type, bit depth or methods");
    }
    expect(() => pngData(good.subarray(0, 32))).toThrow("no IHDR");
    expect(pngData(good.subarray(0, 33)).header.width).toBe(4);
  });
});
