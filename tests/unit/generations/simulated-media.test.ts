/**
 * Simulated results (docs/decisions/049-simulated-videos-h264.md): the shape the options ask for, a visible
 * "SIMULATED · <model>" mark, and videos as real H.264 MP4 files. Whether a
 * real decoder plays them is checked in Chromium (tests/e2e/simulated-media.e2e.ts).
 */
import { describe, expect, test } from "bun:test";
import { decode as decodePng } from "fast-png";
import { findOffering } from "~/domain/catalog";
import { createH264Stream } from "~/providers/simulator/h264.server";
import { fitArea, renderImagePng, renderVideoMp4, VIDEO_FPS } from "~/providers/simulator/render.server";
import { RECENT_RENDERS, renderAssets, simulatedShape } from "~/providers/simulator/simulator.server";
import type { GenerationRequest } from "~/providers/types";

const req = (aiType: "image" | "video", provider: string, model: string, options: Record<string, unknown> = {}) =>
  ({
    aiType,
    provider,
    model,
    options,
    specs: findOffering(aiType, provider, model)?.options ?? {},
    label: findOffering(aiType, provider, model)?.label,
    prompt: "a lighthouse at dusk",
  }) as unknown as GenerationRequest;

describe("simulatedShape: the real model's shape for the chosen options (catalog defaults otherwise)", () => {
  const cases: [
    string,
    GenerationRequest,
    { ratio: [number, number]; caption: string; mark: string; seconds: number },
  ][] = [
    [
      "flux default",
      req("image", "replicate", "black-forest-labs/flux-schnell"),
      { ratio: [1, 1], caption: "1:1", mark: "SIMULATED · FLUX.1 [schnell]", seconds: 0 },
    ],
    [
      "flux 21:9",
      req("image", "replicate", "black-forest-labs/flux-schnell", { aspect_ratio: "21:9" }),
      { ratio: [21, 9], caption: "21:9", mark: "SIMULATED · FLUX.1 [schnell]", seconds: 0 },
    ],
    [
      "dall-e default",
      req("image", "openai", "dall-e-3"),
      { ratio: [1024, 1024], caption: "1024 × 1024", mark: "SIMULATED · DALL·E 3", seconds: 0 },
    ],
    [
      "dall-e wide",
      req("image", "openai", "dall-e-3", { size: "1792x1024" }),
      { ratio: [1792, 1024], caption: "1792 × 1024", mark: "SIMULATED · DALL·E 3", seconds: 0 },
    ],
    [
      "kling image default 16:9",
      req("image", "kling", "kling-v1"),
      { ratio: [16, 9], caption: "16:9", mark: "SIMULATED · Kling v1 image", seconds: 0 },
    ],
    [
      "kling video 9:16 10 s",
      req("video", "kling", "kling-v1-6", { aspect_ratio: "9:16", duration: 10 }),
      { ratio: [9, 16], caption: "9:16 · 10 s", mark: "SIMULATED · Kling v1.6 video", seconds: 10 },
    ],
    [
      "runway default",
      req("video", "runway", "gen4.5"),
      { ratio: [1280, 720], caption: "1280 × 720 · 5 s", mark: "SIMULATED · Runway Gen-4.5", seconds: 5 },
    ],
    [
      "runway portrait 3 s",
      req("video", "runway", "gen4.5", { ratio: "720:1280", duration: 3 }),
      { ratio: [720, 1280], caption: "720 × 1280 · 3 s", mark: "SIMULATED · Runway Gen-4.5", seconds: 3 },
    ],
    [
      "undeclared option ignored",
      req("video", "runway", "gen4.5", { aspect_ratio: "1:1", duration: 99 }),
      { ratio: [1280, 720], caption: "1280 × 720 · 5 s", mark: "SIMULATED · Runway Gen-4.5", seconds: 5 },
    ],
  ];
  for (const [label, r, expected] of cases) {
    test(label, () => {
      const { look, seconds } = simulatedShape(r);
      expect({ ratio: look.ratio, caption: look.caption, mark: look.mark, seconds }).toEqual(expected);
    });
  }
});

describe("renderAssets remembers its last renders: the tasks of a repeated request are not rendered again", () => {
  const bytesOf = async (r: GenerationRequest) => {
    const [asset] = await renderAssets(r);
    if (asset?.kind !== "bytes") throw new Error("bytes expected");
    return asset.bytes;
  };
  test("the same request gives back the same render; another prompt, model or option is rendered anew", async () => {
    const fox = {
      ...req("image", "replicate", "black-forest-labs/flux-schnell"),
      prompt: "render cache: a fox",
    } as GenerationRequest;
    const first = await bytesOf(fox);
    expect(await bytesOf({ ...fox })).toBe(first);
    expect(Buffer.from(first).equals(Buffer.from(renderImagePng(fox.prompt, simulatedShape(fox).look)))).toBe(true);
    for (const other of [
      { ...fox, prompt: "render cache: a hare" },
      { ...fox, options: { aspect_ratio: "16:9" } },
      { ...req("image", "kling", "kling-v1"), prompt: fox.prompt },
    ] as GenerationRequest[]) {
      const b = await bytesOf(other);
      expect(b).not.toBe(first);
      expect(Buffer.from(b).equals(Buffer.from(first))).toBe(false);
    }
  });
  test(`only the last ${RECENT_RENDERS} are kept: an older one is rendered again, with the same bytes`, async () => {
    const r = (i: number) =>
      ({ ...req("image", "openai", "dall-e-3"), prompt: `render cache eviction ${i}` }) as GenerationRequest;
    const first = await bytesOf(r(0));
    expect(await bytesOf(r(0))).toBe(first);
    for (let i = 1; i <= RECENT_RENDERS; i++) await bytesOf(r(i));
    const again = await bytesOf(r(0));
    expect(again).not.toBe(first);
    expect(Buffer.from(again).equals(Buffer.from(first))).toBe(true);
  });
});

describe("images", () => {
  test("fitArea keeps the ratio within ~1 % at about 384² pixels", () => {
    expect(fitArea(16, 9, 384 * 384)).toEqual({ width: 512, height: 288 });
    expect(fitArea(9, 16, 384 * 384, 16)).toEqual({ width: 288, height: 512 });
    expect(fitArea(1, 1, 384 * 384, 16)).toEqual({ width: 384, height: 384 });
    for (const [w, h] of [
      [21, 9],
      [9, 21],
      [4, 5],
      [1792, 1024],
    ] as const) {
      const f = fitArea(w, h, 384 * 384);
      expect(Math.abs(f.width / f.height - w / h) / (w / h)).toBeLessThan(0.01);
      expect(Math.abs(f.width * f.height - 384 * 384) / (384 * 384)).toBeLessThan(0.01);
    }
  });

  test("a simulated 16:9 image is a 512×288 PNG with the dark SIMULATED badge in its top-left corner", async () => {
    const [asset] = await renderAssets({ ...req("image", "kling", "kling-v1"), prompt: "koi" });
    if (asset?.kind !== "bytes") throw new Error("bytes expected");
    expect(asset.contentType).toBe("image/png");
    const png = decodePng(asset.bytes);
    expect([png.width, png.height]).toEqual([512, 288]);
    const px = (x: number, y: number) => (png.data as Uint8Array)[y * png.width + x];
    // Palette 65 is the badge's dark fill, 64 its white text: both in the corner, neither in the opposite one.
    const corner = new Set<number>();
    for (let y = 4; y < 30; y++) for (let x = 4; x < 200; x++) corner.add(px(x, y)!);
    expect(corner.has(65) && corner.has(64)).toBe(true);
    const far = new Set<number>();
    for (let y = 100; y < 140; y++) for (let x = 440; x < 500; x++) far.add(px(x, y)!);
    expect(far.has(65)).toBe(false);
  });

  test("different marks draw different badges", () => {
    const a = renderImagePng("same", { ratio: [1, 1], mark: "SIMULATED · A", caption: "" });
    const b = renderImagePng("same", { ratio: [1, 1], mark: "SIMULATED · Bbbbbbbbbbb", caption: "" });
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });
});

/** MP4 boxes: [type, payload start, end] for each child of [start, end). */
function boxes(b: Uint8Array, start = 0, end = b.length) {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: { type: string; start: number; end: number }[] = [];
  for (let o = start; o + 8 <= end; ) {
    const size = dv.getUint32(o);
    out.push({ type: new TextDecoder().decode(b.subarray(o + 4, o + 8)), start: o + 8, end: o + size });
    if (size < 8) break;
    o += size;
  }
  return out;
}
function find(b: Uint8Array, path: string[], skip: Record<string, number> = { stsd: 8, avc1: 78 }) {
  let range = { start: 0, end: b.length };
  for (const t of path) {
    const box = boxes(b, range.start, range.end).find((x) => x.type === t);
    if (!box) throw new Error(`no ${t} box`);
    range = { start: box.start + (skip[t] ?? 0), end: box.end };
  }
  return range;
}

describe("videos: real H.264 in MP4", () => {
  const mp4 = renderVideoMp4(
    "waves on a black sand beach",
    { ratio: [16, 9], mark: "SIMULATED · Kling v1 video", caption: "16:9 · 5 s" },
    5,
  );
  const dv = new DataView(mp4.buffer, mp4.byteOffset, mp4.byteLength);
  const stbl = ["moov", "trak", "mdia", "minf", "stbl"];

  test("ftyp first, moov before mdat (fast start)", () => {
    expect(boxes(mp4).map((x) => x.type)).toEqual(["ftyp", "moov", "mdat"]);
  });

  test("avc1 sample entry with an avcC of Constrained Baseline level 3.0, 512×288", () => {
    const avc1 = find(mp4, [...stbl, "stsd"]);
    const entry = boxes(mp4, avc1.start, avc1.end)[0]!;
    expect(entry.type).toBe("avc1");
    expect([dv.getUint16(entry.start + 24), dv.getUint16(entry.start + 26)]).toEqual([512, 288]);
    const avcC = find(mp4, [...stbl, "stsd", "avc1", "avcC"]);
    expect([...mp4.subarray(avcC.start, avcC.start + 4)]).toEqual([1, 66, 0xc0, 30]);
  });

  test("the duration asked for: 5 s at 8 fps = 40 samples, one key frame, small delta frames", () => {
    const mdhd = find(mp4, ["moov", "trak", "mdia", "mdhd"]);
    const timescale = dv.getUint32(mdhd.start + 12);
    const duration = dv.getUint32(mdhd.start + 16);
    expect(duration / timescale).toBeCloseTo(5, 2);
    const stsz = find(mp4, [...stbl, "stsz"]);
    const count = dv.getUint32(stsz.start + 8);
    expect(count).toBe(5 * VIDEO_FPS);
    const sizes = Array.from({ length: count }, (_, i) => dv.getUint32(stsz.start + 12 + 4 * i));
    // The IDR frame stores every macroblock (576 × 384 bytes of samples); the others only what changed.
    expect(sizes[0]!).toBeGreaterThan(576 * 384);
    expect(Math.max(...sizes.slice(1))).toBeLessThan(20_000);
    const stss = find(mp4, [...stbl, "stss"]);
    expect(dv.getUint32(stss.start + 4)).toBe(1);
    expect(dv.getUint32(stss.start + 8)).toBe(1);
    expect(mp4.byteLength).toBeLessThan(400_000);
  });
});

describe("H.264 stream", () => {
  const palette = [
    [0, 0, 0],
    [255, 255, 255],
  ] as const;

  test("sizes must be macroblock multiples", () => {
    expect(() => createH264Stream(100, 64, palette)).toThrow("multiples of 16");
  });

  test("an unchanged frame is one P slice of skips; a changed macroblock is stored again", () => {
    const s = createH264Stream(64, 32, palette); // 4 × 2 macroblocks
    const frame = new Uint8Array(64 * 32);
    const first = s.encode(frame);
    expect(first.key).toBe(true);
    const same = s.encode(frame);
    expect(same.key).toBe(false);
    expect(same.data.byteLength).toBeLessThan(16);
    frame[0] = 1;
    const changed = s.encode(frame);
    expect(changed.data.byteLength).toBeGreaterThan(384);
    expect(changed.data.byteLength).toBeLessThan(2 * 384);
  });

  test("no start code can appear inside a NAL unit (emulation prevention), black frames included", () => {
    const s = createH264Stream(32, 32, palette);
    for (const f of [s.encode(new Uint8Array(32 * 32)), s.encode(new Uint8Array(32 * 32).fill(1))]) {
      const nalBody = f.data.subarray(4);
      for (let i = 0; i + 2 < nalBody.length; i++) {
        const startCode = nalBody[i] === 0 && nalBody[i + 1] === 0 && nalBody[i + 2]! <= 2;
        expect(startCode).toBe(false);
      }
    }
  });
});
