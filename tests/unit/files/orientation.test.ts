/**
 * A JPEG's Exif orientation (docs/decisions/128-jpeg-orientation-kept.md): the only Exif kept, in a segment of its
 * own; sides reported as shown; an upright photo or an orientation not written as the standard says keeps no Exif
 * at all, and reading it never throws on a short or lying segment.
 */
import { describe, expect, test } from "bun:test";
import { decodeJpgExif } from "image-in-browser";
import { exifOrientation, inspectImage, orientationSegment } from "~/domain/files/image.server";
import { concat, jpeg, PHONE_MAKE, phonePhoto } from "../../support/images";

const text = (s: string) => new TextEncoder().encode(s);

/** An Exif payload: TIFF header in the byte order given, one directory with the entries given (tag, type, count, value). */
function exif(order: "II" | "MM", entries: [number, number, number, number][]): Uint8Array {
  const little = order === "II";
  const b = new Uint8Array(8 + 2 + entries.length * 12 + 4);
  const v = new DataView(b.buffer);
  b.set(text(order));
  v.setUint16(2, 42, little);
  v.setUint32(4, 8, little);
  v.setUint16(8, entries.length, little);
  entries.forEach(([tag, type, count, value], i) => {
    const at = 10 + i * 12;
    v.setUint16(at, tag, little);
    v.setUint16(at + 2, type, little);
    v.setUint32(at + 4, count, little);
    v.setUint16(at + 8, value, little);
  });
  return concat(text("Exif\0\0"), b);
}

/** `jpeg()` with an APP1 segment of `payload` right after SOI. */
const withApp1 = (payload: Uint8Array) => {
  const base = jpeg(30, 10);
  const n = payload.byteLength + 2;
  return concat(base.subarray(0, 2), new Uint8Array([0xff, 0xe1, n >> 8, n & 255]), payload, base.subarray(2));
};

describe("exifOrientation", () => {
  test("reads the tag in either byte order, after other tags", () => {
    expect(exifOrientation(exif("MM", [[0x0112, 3, 1, 6]]))).toBe(6);
    expect(
      exifOrientation(
        exif("II", [
          [0x010f, 2, 1, 0],
          [0x0112, 3, 1, 8],
        ]),
      ),
    ).toBe(8);
  });

  test("anything not as the standard writes it is 1 (nothing kept), never an error", () => {
    const good = exif("MM", [[0x0112, 3, 1, 6]]);
    const cases = [
      exif("MM", [[0x0112, 4, 1, 6]]), // not a SHORT
      exif("MM", [[0x0112, 3, 2, 6]]), // two values
      exif("MM", [[0x0112, 3, 1, 9]]), // no such orientation
      exif("MM", [[0x0112, 3, 1, 0]]),
      exif("MM", [[0x010f, 2, 1, 0]]), // no orientation tag
      good.subarray(0, 20), // cut inside the entry
      good.subarray(0, 10),
      concat(text("Exif\0\0XX"), good.subarray(8)), // not a TIFF byte order
      concat(text("Exif\0\0MM\0\x2b"), good.subarray(10)), // not 42
      text("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>"), // XMP, not Exif
    ];
    for (const c of cases) expect(exifOrientation(c)).toBe(1);
    // A directory offset past the end, and a huge entry count over a short segment.
    const far = new Uint8Array(good);
    new DataView(far.buffer).setUint32(10, 0x7fffffff);
    expect(exifOrientation(far)).toBe(1);
    const many = exif("MM", [[0x010f, 2, 1, 0]]);
    new DataView(many.buffer).setUint16(14, 0xffff);
    expect(exifOrientation(many)).toBe(1);
  });

  test("the segment written back holds the orientation and nothing else", () => {
    const seg = orientationSegment(6);
    expect(exifOrientation(seg.subarray(4))).toBe(6);
    expect(seg.byteLength).toBe(36);
    expect((seg[2]! << 8) | seg[3]!).toBe(34);
  });
});

describe("inspectImage on JPEGs with Exif", () => {
  test("a quarter turn swaps the reported sides; the stored Exif is the orientation alone", () => {
    for (const [orientation, sides] of [
      [6, [10, 30]],
      [8, [10, 30]],
      [5, [10, 30]],
      [3, [30, 10]],
    ] as const) {
      const out = inspectImage(withApp1(exif("II", [[0x0112, 3, 1, orientation]])));
      expect({ orientation, sides: [out.width, out.height] }).toEqual({ orientation, sides: [...sides] });
      expect(out.orientation).toBe(orientation);
      expect(decodeJpgExif({ data: out.bytes })?.imageIfd.orientation).toBe(orientation);
    }
  });

  test("upright or an orientation not as the standard writes it: no Exif segment at all is stored", () => {
    for (const payload of [
      exif("MM", [[0x0112, 3, 1, 1]]),
      exif("MM", [[0x0112, 4, 1, 6]]),
      exif("MM", [[0x0112, 3, 1, 9]]),
    ]) {
      const out = inspectImage(withApp1(payload));
      expect([out.width, out.height, out.orientation]).toEqual([30, 10, 1]);
      expect(Buffer.from(out.bytes).includes("Exif")).toBe(false);
    }
  });

  test("only the first Exif segment counts: a second one cannot add a second orientation", () => {
    const later = exif("MM", [[0x0112, 3, 1, 6]]);
    const first = exif("MM", [[0x0112, 3, 1, 3]]);
    const twice = withApp1(later);
    const n = first.byteLength + 2;
    const both = concat(twice.subarray(0, 2), new Uint8Array([0xff, 0xe1, n >> 8, n & 255]), first, twice.subarray(2));
    const out = inspectImage(both);
    expect(out.orientation).toBe(3);
    expect(Buffer.from(out.bytes).indexOf("Exif")).toBe(Buffer.from(out.bytes).lastIndexOf("Exif"));
  });

  test("a real phone photo: 6 kept, make and GPS gone", () => {
    const out = inspectImage(phonePhoto(24, 12));
    expect([out.width, out.height, out.orientation]).toEqual([12, 24, 6]);
    expect(Buffer.from(out.bytes).includes(PHONE_MAKE)).toBe(false);
    expect(decodeJpgExif({ data: out.bytes })?.gpsIfd.isEmpty ?? true).toBe(true);
  });
});
