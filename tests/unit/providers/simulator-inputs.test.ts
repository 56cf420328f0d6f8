/**
 * The simulator shows the input was used (docs/design.md §2): an image-to-image result is the input picture
 * recoloured under the prompt — its colours come from the input, where they are, and differ from a text-only
 * render — whichever of PNG, JPEG or WebP it was; an image-to-video clip moves over the input and ends on
 * `image_end`.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decode as decodePng } from "fast-png";
import { encodeJpg, encodePng, MemoryImage } from "image-in-browser";
import { findOffering } from "~/domain/catalog";
import { decodeSource, movingBackdrop, type Source } from "~/providers/simulator/picture.server";
import { hashPrompt, paletteFor } from "~/providers/simulator/render.server";
import { renderAssets, simulatedShape } from "~/providers/simulator/simulator.server";
import type { GenerationRequest, InputImage } from "~/providers/types";

const W = 96;
const H = 64;
/** A picture red on its left half and blue on its right (or one colour throughout). */
function picture(left: [number, number, number], right = left): MemoryImage {
  const img = new MemoryImage({ width: W, height: H, numChannels: 3 });
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) img.setPixelRgb(x, y, ...(x < W / 2 ? left : right));
  return img;
}
const RED: [number, number, number] = [230, 30, 20];
const BLUE: [number, number, number] = [20, 30, 230];
const GREEN: [number, number, number] = [20, 220, 40];

const FORMATS: [string, string, Uint8Array][] = [
  ["PNG", "image/png", encodePng({ image: picture(RED, BLUE) })],
  ["JPEG", "image/jpeg", encodeJpg({ image: picture(RED, BLUE), quality: 90 })],
  // Made once with cwebp from the same picture (no WebP encoder in pure JS).
  ["WebP", "image/webp", new Uint8Array(readFileSync(join(import.meta.dir, "../../fakes/assets/red-blue.webp")))],
];

const input = (bytes: Uint8Array, contentType: string): InputImage => ({
  url: "https://atelier.test/files/file_x?sig=1",
  contentType,
  width: W,
  height: H,
  bytes: async () => bytes,
});
const request = (aiType: "image" | "video", provider: string, model: string, options: Record<string, unknown>) =>
  ({
    genId: "gen_sim",
    aiType,
    provider,
    model,
    upstreamModel: model,
    specs: findOffering(aiType, provider, model)?.options ?? {},
    label: findOffering(aiType, provider, model)?.label,
    prompt: "x",
    options,
  }) as GenerationRequest;

async function png(req: GenerationRequest) {
  const [asset] = await renderAssets(req);
  if (asset?.kind !== "bytes" || asset.contentType !== "image/png") throw new Error("a PNG expected");
  return { bytes: asset.bytes, image: decodePng(asset.bytes) };
}

/** The mean colour of a region given in fractions of the picture (indexed PNG: through its palette). */
function mean(image: ReturnType<typeof decodePng>, x0: number, x1: number, y0: number, y1: number) {
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = Math.floor(y0 * image.height); y < y1 * image.height; y++)
    for (let x = Math.floor(x0 * image.width); x < x1 * image.width; x++) {
      const c = image.palette![(image.data as Uint8Array)[y * image.width + x]!]!;
      for (let i = 0; i < 3; i++) sum[i]! += c[i]!;
      n++;
    }
  return sum.map((v) => v / n);
}

describe("image to image: the input, recoloured, under the prompt", () => {
  for (const [name, type, bytes] of FORMATS) {
    test(`${name}: red where the input is red, blue where it is blue, tinted, and not the text-only render`, async () => {
      const edit = request("image", "replicate", "black-forest-labs/flux-kontext-pro", { image: "file_x" });
      const out = await png({ ...edit, inputs: { image: input(bytes, type) } });
      // The model's default aspect is match_input_image: the result has the input's shape (3:2).
      expect(out.image.width / out.image.height).toBeCloseTo(W / H, 1);
      const left = mean(out.image, 0.05, 0.25, 0.35, 0.65);
      const right = mean(out.image, 0.75, 0.95, 0.35, 0.65);
      expect(left[0]! - left[2]!).toBeGreaterThan(80);
      expect(right[2]! - right[0]!).toBeGreaterThan(80);
      // Recoloured: the prompt's hue is mixed in, so the input's red is not copied as it was.
      const redError = Math.max(...left.map((v, i) => Math.abs(v - RED[i]!)));
      expect(redError).toBeGreaterThan(15);
      const textOnly = await png(request("image", "replicate", "black-forest-labs/flux-kontext-pro", {}));
      expect(Buffer.from(out.bytes).equals(Buffer.from(textOnly.bytes))).toBe(false);
    });
  }

  test("an unreadable picture renders the prompt alone, as without one", async () => {
    const edit = request("image", "openai", "gpt-image-1", { image: "file_x" });
    const broken = await png({
      ...edit,
      inputs: { image: input(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), "image/png") },
    });
    const none = await png(request("image", "openai", "gpt-image-1", {}));
    expect(Buffer.from(broken.bytes).equals(Buffer.from(none.bytes))).toBe(true);
  });
});

test("a result with a picture takes the picture's shape unless the task chose one", () => {
  const shape = (options: Record<string, unknown>) =>
    simulatedShape(request("video", "runway", "gen4_turbo", { image: "file_x", ...options }), { width: W, height: H })
      .look;
  expect(shape({})).toMatchObject({ ratio: [W, H], caption: `${W} × ${H} · 5 s` });
  expect(shape({ ratio: "720:1280" })).toMatchObject({ ratio: [720, 1280], caption: "720 × 1280 · 5 s" });
});

describe("image to video: a clip over the input, ending on image_end", () => {
  const source = (img: MemoryImage): Source => decodeSource(encodePng({ image: img }), "image/png")!;
  /** The mean colour of a frame the backdrop paints at `t`, through the palette it gives. */
  function frameMean(t: number, end: Source | null) {
    const backdrop = movingBackdrop(source(picture(RED, BLUE)), end);
    const palette = backdrop.palette(paletteFor(hashPrompt("x")));
    const idx = new Uint8Array(64 * 48);
    backdrop.paint(idx, 64, 48, t);
    const sum = [0, 0, 0];
    for (const i of idx) for (let c = 0; c < 3; c++) sum[c]! += palette[i]![c]!;
    return { idx, rgb: sum.map((v) => v / idx.length) };
  }

  test("the first frame shows the input; the view moves; the last frame is image_end", () => {
    const end = source(picture(GREEN));
    const first = frameMean(0, end);
    const middle = frameMean(0.5, end);
    const last = frameMean(1, end);
    expect(first.rgb[0]! + first.rgb[2]!).toBeGreaterThan(2 * first.rgb[1]!);
    expect(last.rgb[1]!).toBeGreaterThan(last.rgb[0]! + 80);
    expect(Buffer.from(first.idx).equals(Buffer.from(middle.idx))).toBe(false);
    // Without image_end the clip stays on the input while it zooms and pans.
    const alone = frameMean(1, null);
    expect(alone.rgb[1]!).toBeLessThan(alone.rgb[0]! + alone.rgb[2]!);
  });

  test("the MP4 of a Kling image-to-video task moves (large delta frames) and differs from the text-only clip", async () => {
    const animate = request("video", "kling", "kling-v1", { image: "file_x", image_end: "file_y", duration: 5 });
    const [asset] = await renderAssets({
      ...animate,
      inputs: {
        image: input(FORMATS[0]![2], "image/png"),
        image_end: input(encodePng({ image: picture(GREEN) }), "image/png"),
      },
    });
    const [still] = await renderAssets(request("video", "kling", "kling-v1", { duration: 5 }));
    if (asset?.kind !== "bytes" || still?.kind !== "bytes") throw new Error("bytes expected");
    expect(asset.contentType).toBe("video/mp4");
    // A still clip changes only its clock and bar; a moving one redraws most of the picture 4 times a second.
    expect(asset.bytes.byteLength).toBeGreaterThan(3 * still.bytes.byteLength);
    expect(asset.bytes.byteLength).toBeLessThan(4_000_000);
  });
});
