/**
 * The shared picture sampler (app/lib/picture-sample.server.ts) that the simulator's input pictures and the
 * results' placeholders both read through: its size, its RGBA and its RGB-over-grey copies, and its refusals.
 */
import { expect, test } from "bun:test";
import { encodeJpg, encodePng, MemoryImage } from "image-in-browser";
import { samplePicture } from "~/lib/picture-sample.server";

/** A `w` × `h` RGBA picture: the left half opaque red, the right half half-transparent blue. */
function picture(w: number, h: number): Uint8Array {
  const image = new MemoryImage({ width: w, height: h, numChannels: 4 });
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      if (x < w / 2) image.setPixelRgba(x, y, 255, 0, 0, 255);
      else image.setPixelRgba(x, y, 0, 0, 255, 128);
    }
  return encodePng({ image });
}

test("RGBA: sampled down to the longest side, keeping the shape and the transparency", () => {
  const copy = samplePicture(picture(200, 100), "image/png", { maxSide: 32, maxPixels: 1e6 })!;
  expect([copy.width, copy.height, copy.data.length]).toEqual([32, 16, 32 * 16 * 4]);
  expect([...copy.data.slice(0, 4)]).toEqual([255, 0, 0, 255]);
  expect([...copy.data.slice(31 * 4, 32 * 4)]).toEqual([0, 0, 255, 128]);
});

test("RGB over a matte: transparency laid over the grey; small pictures keep their size", () => {
  const copy = samplePicture(picture(8, 2), "image/png", { maxSide: 768, maxPixels: 1e6, matte: 0.5 })!;
  expect([copy.width, copy.height, copy.data.length]).toEqual([8, 2, 8 * 2 * 3]);
  expect([...copy.data.slice(0, 3)]).toEqual([255, 0, 0]);
  const a = 128 / 255;
  const over = (v: number) => Math.round((v * a + 0.5 * (1 - a)) * 255);
  expect([...copy.data.slice(7 * 3, 8 * 3)]).toEqual([over(0), over(0), over(1)]);
});

test("too many pixels, an unknown type or unreadable bytes give null", () => {
  expect(samplePicture(picture(100, 100), "image/png", { maxSide: 32, maxPixels: 9_999 })).toBeNull();
  expect(samplePicture(picture(10, 10), "image/gif", { maxSide: 32, maxPixels: 1e6 })).toBeNull();
  expect(
    samplePicture(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1]), "image/png", { maxSide: 32, maxPixels: 1e6 }),
  ).toBeNull();
});

test("a PNG bomb (64×64 whose data inflates to 256 MiB) is not decoded: null at once, memory flat", async () => {
  const { pngBomb, pngSized } = await import("../../support/images");
  const bomb = await pngBomb(64, 64, 256 * 1024 * 1024);
  Bun.gc(true);
  const rss = process.memoryUsage.rss();
  const t0 = performance.now();
  for (const matte of [undefined, 0.5])
    expect(samplePicture(bomb, "image/png", { maxSide: 32, maxPixels: 1e6, matte })).toBeNull();
  expect(performance.now() - t0).toBeLessThan(500);
  expect(process.memoryUsage.rss() - rss).toBeLessThan(32 * 1024 * 1024);
  // The same header with exactly its data decodes; one byte more does not.
  expect(samplePicture(pngSized(64, 64, 64 * 193), "image/png", { maxSide: 32, maxPixels: 1e6 })).not.toBeNull();
  expect(samplePicture(pngSized(64, 64, 64 * 193 + 1), "image/png", { maxSide: 32, maxPixels: 1e6 })).toBeNull();
});

test("a PNG's header is judged before decoding: an animated one or one over maxPixels is not decoded", async () => {
  const { pngChunk, pngSized } = await import("../../support/images");
  const at = pngSized(10, 10, 10 * 31);
  expect(samplePicture(at, "image/png", { maxSide: 32, maxPixels: 100 })).not.toBeNull();
  expect(samplePicture(at, "image/png", { maxSide: 32, maxPixels: 99 })).toBeNull();
  const animated = pngSized(10, 10, 10 * 31, { chunks: [pngChunk("acTL", new Uint8Array(8))] });
  expect(samplePicture(animated, "image/png", { maxSide: 32, maxPixels: 100 })).toBeNull();
});

test("JPEG and WebP are decoded by their own decoders", () => {
  const image = new MemoryImage({ width: 6, height: 4 });
  for (let y = 0; y < 4; y++) for (let x = 0; x < 6; x++) image.setPixelRgb(x, y, 250, 10, 10);
  const jpg = new Uint8Array(encodeJpg({ image, quality: 95 }));
  const copy = samplePicture(jpg, "image/jpeg", { maxSide: 32, maxPixels: 1e6, matte: 0.5 })!;
  expect([copy.width, copy.height]).toEqual([6, 4]);
  expect(copy.data[0]).toBeGreaterThan(200);
  expect(samplePicture(jpg, "image/webp", { maxSide: 32, maxPixels: 1e6 })).toBeNull();
  expect(samplePicture(jpg, "", { maxSide: 32, maxPixels: 1e6 })).toBeNull();
});
