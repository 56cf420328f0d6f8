/**
 * Upload metadata by allow-list (app/domain/files/image.server.ts, docs/decisions/141-metadata-allow-list.md): of a
 * JPEG, PNG or WebP only what draws the picture, its colour space (ICC) and a JPEG's orientation are kept; every
 * other segment or chunk goes, the ones a deny-list missed (APP3 "Exif", APP11 C2PA, APP12, caBX, exIf, zxIf)
 * first among them, and WebP's VP8X flags say only what is still there.
 */
import { describe, expect, test } from "bun:test";
import { inspectImage, keptJpegSegment, PNG_KEEP, WEBP_KEEP } from "~/domain/files/image.server";
import {
  jpeg,
  jpegSegment,
  jpegSegments,
  png,
  pngChunk,
  pngChunkTypes,
  webpChunk,
  webpChunkTypes,
  webpExtended,
} from "../../support/images";

const SECRET = "owner@example.com 51.5007N";
const text = (s: string) => new TextEncoder().encode(s);
const stored = (bytes: Uint8Array) => inspectImage(bytes).bytes;
const holdsSecret = (bytes: Uint8Array) => Buffer.from(bytes).includes(SECRET);

describe("JPEG", () => {
  test("only the ICC profile, Adobe's transform, tables, frame and scan are kept", () => {
    const dropped = [
      jpegSegment(0xe1, `http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>${SECRET}</x:xmpmeta>`),
      jpegSegment(0xe2, `MPF\0${SECRET}`),
      jpegSegment(0xe3, `Exif\0\0${SECRET}`),
      jpegSegment(0xeb, `JP\0\0\0\0\0\0jumbc2pa ${SECRET}`),
      jpegSegment(0xec, `Ducky${SECRET}`),
      jpegSegment(0xed, `Photoshop 3.0\0${SECRET}`),
      jpegSegment(0xef, SECRET),
      jpegSegment(0xe0, `JFXX\0${SECRET}`),
      jpegSegment(0xe0, `JFIF\0\x01\x02\0\0\x01\0\x01\x01\x01${SECRET}`), // a JFIF thumbnail
      jpegSegment(0xe4, SECRET),
      jpegSegment(0xfe, SECRET),
    ];
    const kept = [
      jpegSegment(0xe2, `ICC_PROFILE\0\x01\x01profile`),
      jpegSegment(0xee, `Adobe\0\x64\0\0\0\0\x01${SECRET}`),
    ];
    const bytes = jpeg(16, 8, { segments: [...dropped, ...kept, jpegSegment(0xdd, new Uint8Array([0, 4]))] });
    expect(holdsSecret(bytes)).toBe(true);
    const out = stored(bytes);
    expect(jpegSegments(out)).toEqual(["E2 ICC_PROFILE", "EE Adobe", "DD", "DB", "C0", "C4", "DA"]);
    expect(holdsSecret(out)).toBe(false);
    // Adobe's segment is its 12 bytes, whatever rode after them.
    const adobe = Buffer.from(out).indexOf("Adobe");
    expect([...out.subarray(adobe - 4, adobe + 12)]).toEqual([
      0xff,
      0xee,
      0,
      14,
      ...new TextEncoder().encode("Adobe\0\x64\0\0\0\0\x01"),
    ]);
  });

  test("an APPn is kept only when its data begins with the whole identifier (and Adobe's is whole)", () => {
    const seg = (marker: number, data: string) => jpeg(8, 8, { segments: [jpegSegment(marker, data)] });
    const apps = (bytes: Uint8Array) => jpegSegments(stored(bytes)).filter((s) => s.startsWith("E"));
    expect(apps(seg(0xe0, "JFIF\0"))).toEqual([]);
    expect(apps(seg(0xe2, "ICC_PROFILE\0"))).toEqual(["E2 ICC_PROFILE"]);
    expect(apps(seg(0xe2, "ICC_PROFILE"))).toEqual([]);
    expect(apps(seg(0xe2, "ICC_PROFILX\0"))).toEqual([]);
    expect(apps(seg(0xee, "Adobe\0\x64\0\0\0\0\x01"))).toEqual(["EE Adobe"]);
    expect(apps(seg(0xee, "Adobe\0\x64\0\0\0\0"))).toEqual([]);
    expect(apps(seg(0xee, "Adob\0\0\x64\0\0\0\0\x01"))).toEqual([]);
    // The right identifier under another marker is not kept.
    expect(apps(seg(0xe3, "ICC_PROFILE\0"))).toEqual([]);
    expect(apps(seg(0xe1, "Adobe\0\x64\0\0\0\0\x01"))).toEqual([]);
  });

  test("every marker outside the list is dropped, every table on it kept", () => {
    const data = new TextEncoder().encode("Adobe\0\x64\0\0\0\0\x01ICC_PROFILE\0");
    for (let marker = 0xc0; marker <= 0xfe; marker++) {
      const b = new Uint8Array([0xff, marker, 0, data.length + 2, ...data]);
      const frame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
      // The data begins with "Adobe": of the APPn, only APP14 keeps it.
      const expected = frame || [0xc4, 0xcc, 0xda, 0xdb, 0xdc, 0xdd, 0xee].includes(marker);
      expect({ marker: marker.toString(16), kept: keptJpegSegment(marker, b, 0, b.length) !== null }).toEqual({
        marker: marker.toString(16),
        kept: expected,
      });
    }
    const icc = new Uint8Array([0xff, 0xe2, 0, 14, ...new TextEncoder().encode("ICC_PROFILE\0")]);
    expect(keptJpegSegment(0xe2, icc, 0, icc.length)).toEqual(icc);
    expect(keptJpegSegment(0xe2, icc, 0, icc.length - 1)).toBeNull();
  });
});

describe("PNG", () => {
  const chunk = (type: string) => pngChunk(type, text(`${type === "tRNS" ? "\0\0\0\0\0\0" : SECRET}`));
  test("critical chunks, transparency and the colour space are kept; text, Exif, C2PA, dates, animation go", () => {
    const kept = ["iCCP", "sRGB", "gAMA", "cHRM", "cICP", "tRNS"];
    const dropped = ["tEXt", "zTXt", "iTXt", "eXIf", "exIf", "zxIf", "caBX", "tIME", "pHYs", "bKGD", "sPLT"];
    const animation = ["acTL", "fcTL"];
    const bytes = png(8, 8, { chunks: [...dropped, ...kept, ...animation, "prVW", "vpAg"].map(chunk) });
    const out = stored(bytes);
    expect(pngChunkTypes(out)).toEqual(["IHDR", ...kept, "IDAT", "IEND"]);
    // A SECRET inside iCCP etc. stays (those chunks are kept whole); none of the dropped ones' copies does.
    expect(Buffer.from(out).toString("latin1").split(SECRET).length - 1).toBe(kept.length - 1);
    expect([...PNG_KEEP].sort()).toEqual(["IDAT", "IEND", "IHDR", "PLTE", ...kept].sort());
  });
});

describe("WebP", () => {
  test("ICCP and the image are kept, EXIF, XMP and unknown chunks go, and their VP8X flags are cleared", () => {
    const bytes = webpExtended(8, 8, {
      flags: 0x20 | 0x10 | 0x08 | 0x04,
      chunks: [
        webpChunk("ICCP", "profile"),
        webpChunk("EXIF", `MM\0*${SECRET}`),
        webpChunk("XMP ", `<x:xmpmeta>${SECRET}</x:xmpmeta>`),
        webpChunk("C2PA", SECRET),
        webpChunk("ALPH", new Uint8Array([0])),
      ],
    });
    const out = stored(bytes);
    expect(webpChunkTypes(out)).toEqual({ types: ["VP8X", "ICCP", "ALPH", "VP8L"], flags: 0x30 });
    expect(holdsSecret(out)).toBe(false);
    // The RIFF size is the stored file's.
    expect(new DataView(out.buffer, out.byteOffset).getUint32(4, true)).toBe(out.byteLength - 8);
  });

  test("an ICC flag without an ICCP chunk is cleared; the animation flag stays", () => {
    const out = stored(webpExtended(8, 8, { flags: 0x20 | 0x02 | 0x08, chunks: [webpChunk("EXIF", SECRET)] }));
    expect(webpChunkTypes(out)).toEqual({ types: ["VP8X", "VP8L"], flags: 0x02 });
    expect([...WEBP_KEEP].sort()).toEqual(["ALPH", "ANIM", "ANMF", "ICCP", "VP8 ", "VP8L", "VP8X"]);
  });
});
