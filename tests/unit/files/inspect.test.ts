/**
 * Judging an upload by its bytes (app/domain/files/image.server.ts): the type the bytes say, the size limits at,
 * just under and just over each bound, every malformed or truncated container refused with its reason, trailing
 * bytes dropped, and judgeImage's PNG data bound on top of the walk.
 */
import { describe, expect, test } from "bun:test";
import {
  DEFAULT_IMAGE_LIMITS,
  extensionOf,
  ImageRefused,
  inspectImage,
  judgeImage,
  sniffImageType,
} from "~/domain/files/image.server";
import { concat, jpeg, png, pngBomb, pngChunk, pngSized, webp, webpChunk, webpExtended } from "../../support/images";

const reason = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ImageRefused);
    return (error as ImageRefused).reason;
  }
  return "accepted";
};
const TRUNCATED = "truncated or malformed image";
const le32 = (n: number) => new Uint8Array([n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255]);

describe("sniffImageType", () => {
  test("each signature, and one byte off it", () => {
    expect(sniffImageType(png(1, 1))).toBe("image/png");
    expect(sniffImageType(jpeg(1, 1))).toBe("image/jpeg");
    expect(sniffImageType(webp(1, 1))).toBe("image/webp");
    const broken = (b: Uint8Array, at: number) => {
      const c = b.slice();
      c[at] = c[at]! ^ 1;
      return sniffImageType(c);
    };
    for (let at = 0; at < 8; at++) expect(broken(png(1, 1), at)).toBeNull();
    for (let at = 0; at < 3; at++) expect(broken(jpeg(1, 1), at)).toBeNull();
    for (const at of [0, 1, 2, 3, 8, 9, 10, 11]) expect(broken(webp(1, 1), at)).toBeNull();
    // The RIFF size is not part of the signature.
    expect(broken(webp(1, 1), 5)).toBe("image/webp");
  });

  test("too short for its signature: nothing", () => {
    expect(sniffImageType(png(1, 1).subarray(0, 7))).toBeNull();
    expect(sniffImageType(png(1, 1).subarray(0, 8))).toBe("image/png");
    expect(sniffImageType(new Uint8Array([0xff, 0xd8]))).toBeNull();
    expect(sniffImageType(new Uint8Array([0xff, 0xd8, 0xff]))).toBe("image/jpeg");
    expect(sniffImageType(webp(1, 1).subarray(0, 11))).toBeNull();
    expect(sniffImageType(webp(1, 1).subarray(0, 12))).toBe("image/webp");
    expect(sniffImageType(new Uint8Array(0))).toBeNull();
  });

  test("extensions", () => {
    expect([extensionOf("image/png"), extensionOf("image/jpeg"), extensionOf("image/webp")]).toEqual([
      "png",
      "jpg",
      "webp",
    ]);
  });
});

describe("size limits", () => {
  test("the defaults: 8,192 a side and 40 megapixels, each at the bound kept and one over refused", () => {
    expect(DEFAULT_IMAGE_LIMITS).toEqual({ maxPixels: 40_000_000, maxSide: 8192 });
    expect(reason(() => inspectImage(png(8192, 1, { rows: 1 })))).toBe("accepted");
    expect(reason(() => inspectImage(png(8193, 1, { rows: 1 })))).toBe(
      "image is 8193×1: a side may be at most 8192 pixels",
    );
    expect(reason(() => inspectImage(png(1, 8193, { rows: 1 })))).toBe(
      "image is 1×8193: a side may be at most 8192 pixels",
    );
    expect(reason(() => inspectImage(png(8000, 5000, { rows: 1, level: 1 })))).toBe("accepted");
    expect(reason(() => inspectImage(png(8000, 5001, { rows: 1, level: 1 })))).toBe(
      "image is 8000×5001: at most 40 megapixels",
    );
  });

  test("limits given: sides and pixels at, under and over", () => {
    const limits = { maxPixels: 50, maxSide: 10 };
    expect(inspectImage(png(10, 5), limits)).toMatchObject({ width: 10, height: 5, orientation: 1 });
    expect(reason(() => inspectImage(png(9, 5), limits))).toBe("accepted");
    expect(reason(() => inspectImage(png(11, 4), limits))).toBe("image is 11×4: a side may be at most 10 pixels");
    expect(reason(() => inspectImage(png(4, 11), limits))).toBe("image is 4×11: a side may be at most 10 pixels");
    expect(reason(() => inspectImage(png(10, 5), { maxPixels: 49, maxSide: 10 }))).toBe(
      "image is 10×5: at most 0 megapixels",
    );
    expect(reason(() => inspectImage(png(10, 5), { maxPixels: 3_600_000, maxSide: 10 }))).toBe("accepted");
    expect(reason(() => inspectImage(png(10, 10, { rows: 1 }), { maxPixels: 99, maxSide: 100 }))).toBe(
      "image is 10×10: at most 0 megapixels",
    );
    expect(reason(() => inspectImage(jpeg(11, 2), limits))).toBe("image is 11×2: a side may be at most 10 pixels");
    expect(reason(() => inspectImage(webp(2, 11), limits))).toBe("image is 2×11: a side may be at most 10 pixels");
  });

  test("not an image, an unreadable header, no dimensions", () => {
    expect(reason(() => inspectImage(new TextEncoder().encode("<svg/>")))).toBe("not a PNG, JPEG or WebP image");
    expect(reason(() => inspectImage(png(1, 1).subarray(0, 12)))).toBe("malformed or truncated image header");
    expect(reason(() => inspectImage(png(0, 5)))).toBe("malformed image header (no dimensions)");
    expect(reason(() => inspectImage(jpeg(0, 5)))).toBe("malformed image header (no dimensions)");
  });
});

describe("PNG walk", () => {
  const sig = png(4, 4).subarray(0, 8);
  const ihdr = png(4, 4).subarray(8, 33);
  const idat = (b: Uint8Array) => {
    const at = Buffer.from(b).indexOf("IDAT") - 4;
    return b.subarray(at, b.byteLength - 12);
  };
  const iend = pngChunk("IEND", new Uint8Array(0));

  test("stops at IEND: what follows is not stored", () => {
    const whole = png(4, 4);
    const out = inspectImage(concat(whole, new TextEncoder().encode("<script>x</script>"))).bytes;
    expect(out).toEqual(whole);
  });

  test("a checksum off by one bit in any chunk is refused", () => {
    const whole = png(4, 4);
    for (const at of [32, whole.byteLength - 13, whole.byteLength - 1]) {
      const bad = whole.slice();
      bad[at] = bad[at]! ^ 1;
      expect(reason(() => inspectImage(bad))).toBe("malformed PNG: a chunk's checksum does not match");
    }
  });

  test("no image data, or a chunk running past the end, is refused", () => {
    expect(reason(() => inspectImage(concat(sig, ihdr, iend)))).toBe("malformed PNG: no image data");
    const whole = png(4, 4);
    expect(reason(() => inspectImage(whole.subarray(0, whole.byteLength - 1)))).toBe(TRUNCATED);
    expect(reason(() => inspectImage(whole.subarray(0, whole.byteLength - 12)))).toBe(TRUNCATED);
    // The next chunk's header needs all of its 12 bytes: 11 are not enough.
    expect(reason(() => inspectImage(concat(sig, ihdr, idat(whole), iend.subarray(0, 11))))).toBe(TRUNCATED);
    const huge = concat(
      sig,
      ihdr,
      new Uint8Array([0x80, 0, 0, 0]),
      new TextEncoder().encode("IDAT"),
      new Uint8Array(8),
    );
    expect(reason(() => inspectImage(huge))).toBe(TRUNCATED);
    const past = concat(sig, ihdr, new Uint8Array([0, 0, 0, 9]), new TextEncoder().encode("IDAT"), new Uint8Array(8));
    expect(reason(() => inspectImage(past))).toBe(TRUNCATED);
    // A chunk that ends exactly at the file's end (IEND) is whole.
    expect(reason(() => inspectImage(concat(sig, ihdr, idat(whole), iend)))).toBe("accepted");
  });

  test("an IHDR of another length is refused", () => {
    const long = pngChunk("IHDR", concat(ihdr.subarray(8, 21), new Uint8Array(1)));
    expect(reason(() => inspectImage(concat(sig, long, idat(png(4, 4)), iend)))).toBe(
      "malformed PNG: no IHDR chunk first",
    );
  });
});

describe("JPEG walk", () => {
  const whole = jpeg(8, 8);
  const eoi = whole.byteLength - 2;
  const afterFrame = Buffer.from(whole).indexOf(Buffer.from([0xff, 0xc0])) + 13;

  test("stops at EOI: what follows is not stored; fill bytes and restart markers are walked", () => {
    const clean = inspectImage(whole).bytes;
    expect([...clean.subarray(-2)]).toEqual([0xff, 0xd9]);
    expect(inspectImage(concat(whole, new TextEncoder().encode("<html>"))).bytes).toEqual(clean);
    // After the frame header (image-size reads up to it, the walk goes on).
    const filled = concat(whole.subarray(0, afterFrame), new Uint8Array([0xff, 0xff]), whole.subarray(afterFrame));
    expect(reason(() => inspectImage(filled))).toBe("accepted");
    const scanAt = Buffer.from(whole).indexOf(Buffer.from([0xff, 0xda]));
    const scanEnd = scanAt + 2 + 8;
    const restarts = concat(
      whole.subarray(0, scanEnd),
      new Uint8Array([0x11, 0xff, 0xd0, 0x22, 0xff, 0xff, 0xd7, 0x33, 0xff, 0x00]),
      whole.subarray(eoi),
    );
    const out = inspectImage(restarts).bytes;
    expect(out.subarray(out.byteLength - (restarts.byteLength - scanAt))).toEqual(restarts.subarray(scanAt));
  });

  test("malformed: no marker, no scan, a scan before the frame, a segment past the end, data without an end", () => {
    expect(
      reason(() =>
        inspectImage(concat(whole.subarray(0, afterFrame), new Uint8Array([0x00]), whole.subarray(afterFrame))),
      ),
    ).toBe("malformed JPEG: expected a marker");
    const scanAt = Buffer.from(whole).indexOf(Buffer.from([0xff, 0xda]));
    const noScan = concat(whole.subarray(0, scanAt), new Uint8Array([0xff, 0xd9]));
    expect(reason(() => inspectImage(noScan))).toBe("malformed JPEG: no image data");
    const sofAt = Buffer.from(whole).indexOf(Buffer.from([0xff, 0xc0]));
    // The scan's header alone before the frame's (image-size, reading up to the frame, steps over it).
    const scanFirst = concat(
      whole.subarray(0, sofAt),
      whole.subarray(scanAt, scanAt + 10),
      whole.subarray(sofAt, scanAt),
      new Uint8Array([0xff, 0xd9]),
    );
    expect(reason(() => inspectImage(scanFirst))).toBe("malformed JPEG: a scan before the frame header");
    expect(reason(() => inspectImage(whole.subarray(0, eoi)))).toBe(TRUNCATED);
    expect(reason(() => inspectImage(whole.subarray(0, eoi + 1)))).toBe(TRUNCATED);
    // A segment length under 2 (after the frame, where the walk alone reads it).
    const shortLength = concat(
      whole.subarray(0, afterFrame),
      new Uint8Array([0xff, 0xe0, 0, 1]),
      whole.subarray(afterFrame),
    );
    expect(reason(() => inspectImage(shortLength))).toBe(TRUNCATED);
  });
});

describe("WebP walk", () => {
  test("the RIFF size bounds the walk: what follows is dropped and the size rewritten", () => {
    const whole = webp(8, 8);
    expect(inspectImage(concat(whole, new TextEncoder().encode("tail"))).bytes).toEqual(whole);
    const padded = webpExtended(8, 8, { chunks: [webpChunk("ICCP", "abc")] });
    const out = inspectImage(padded).bytes;
    expect(out).toEqual(padded);
    expect(new DataView(out.buffer, out.byteOffset).getUint32(4, true)).toBe(out.byteLength - 8);
  });

  test("lossy (VP8) and animated (ANMF) data count as image data, as lossless (VP8L) does", () => {
    const riff = (body: Uint8Array) =>
      concat(new TextEncoder().encode("RIFF"), le32(4 + body.byteLength), new TextEncoder().encode("WEBP"), body);
    const lossy = riff(webpChunk("VP8 ", new Uint8Array([0, 0, 0, 0x9d, 0x01, 0x2a, 8, 0, 6, 0])));
    expect(inspectImage(lossy)).toMatchObject({ contentType: "image/webp", width: 8, height: 6 });
    const vp8x = webpExtended(8, 8, { flags: 0x02 }).subarray(12, 30);
    const animated = riff(concat(vp8x, webpChunk("ANIM", new Uint8Array(6)), webpChunk("ANMF", new Uint8Array(16))));
    expect(inspectImage(animated)).toMatchObject({ contentType: "image/webp", width: 8, height: 8 });
    const noFrames = riff(concat(vp8x, webpChunk("ANIM", new Uint8Array(6))));
    expect(reason(() => inspectImage(noFrames))).toBe("malformed WebP: no image data");
  });

  test("malformed: a size past the file, too small, a chunk past the container, no image data", () => {
    const whole = webp(8, 8);
    const withSize = (n: number) => concat(whole.subarray(0, 4), le32(n), whole.subarray(8));
    expect(reason(() => inspectImage(withSize(whole.byteLength - 8 + 1)))).toBe(TRUNCATED);
    expect(reason(() => inspectImage(withSize(whole.byteLength - 8)))).toBe("accepted");
    expect(reason(() => inspectImage(withSize(11)))).toBe(TRUNCATED);
    const vp8x = webpExtended(8, 8).subarray(12, 30);
    const only = (body: Uint8Array) =>
      concat(new TextEncoder().encode("RIFF"), le32(4 + body.byteLength), new TextEncoder().encode("WEBP"), body);
    expect(reason(() => inspectImage(only(vp8x)))).toBe("malformed WebP: no image data");
    expect(reason(() => inspectImage(only(concat(vp8x, new Uint8Array(4)))))).toBe(TRUNCATED);
    const tooBig = concat(new TextEncoder().encode("ICCP"), le32(100), new Uint8Array(4));
    expect(reason(() => inspectImage(only(concat(vp8x, tooBig, whole.subarray(12)))))).toBe(TRUNCATED);
  });
});

describe("judgeImage", () => {
  test("a PNG's data is bound to its header: at the size accepted, one byte over or a bomb refused", async () => {
    const judged = async (b: Uint8Array) => {
      try {
        return (await judgeImage(b)).contentType;
      } catch (error) {
        expect(error).toBeInstanceOf(ImageRefused);
        return (error as ImageRefused).reason;
      }
    };
    expect(await judged(pngSized(16, 16, 16 * 49))).toBe("image/png");
    expect(await judged(pngSized(16, 16, 16 * 49 + 1))).toBe(
      "PNG image data inflates to more than its 16×16 header declares (a decompression bomb)",
    );
    expect(await judged(await pngBomb(64, 64, 64 * 1024 * 1024))).toBe(
      "PNG image data inflates to more than its 64×64 header declares (a decompression bomb)",
    );
    // The walk's refusals come first; JPEG and WebP have no zlib data to bound.
    expect(await judged(png(9000, 1, { rows: 1 }))).toBe("image is 9000×1: a side may be at most 8192 pixels");
    expect(await judged(jpeg(8, 8))).toBe("image/jpeg");
    expect(await judged(webp(8, 8))).toBe("image/webp");
  });
});
