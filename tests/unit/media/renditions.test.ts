/**
 * Result renditions (docs/media.md): the widths a picture gets, the files' names beside the original, the recorded
 * JSON, the `<img>` sources built from it (originals while a rendition is missing), the sharp encode (sizes at,
 * under and over each width, the decode bound) and the derivative end to end on the worker thread with local storage.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { openDatabase } from "#db/client";
import { generations } from "#db/schema";
import { MAX_RENDITION_PIXELS, makeRenditions } from "~/domain/media/make-renditions.server";
import { createRenditionPool, stopRenditionPool } from "~/domain/media/rendition-pool.server";
import {
  parseRenditions,
  pictureSources,
  renditionPath,
  renditionWidths,
  thumbnailUrl,
} from "~/domain/media/renditions";
import type { ResultTask } from "~/domain/results/pipeline.server";
import { RENDITION_MIN_BYTES, renditionsStep } from "~/domain/results/renditions-step.server";
import { loadSharp } from "~/lib/sharp.server";
import { localStorageFor } from "~/storage/local.server";
import { createUser } from "../../support/fixtures";
import { noisyPng, png } from "../../support/images";

const noisy = (w: number, h: number) => noisyPng(w, h);

const dirs: string[] = [];
afterAll(() => {
  stopRenditionPool();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("renditionWidths", () => {
  test("never wider than the picture, one at its own width under the widest, none for an empty picture", () => {
    expect(renditionWidths(2048)).toEqual([256, 384, 512, 1024]);
    expect(renditionWidths(1025)).toEqual([256, 384, 512, 1024]);
    expect(renditionWidths(1024)).toEqual([256, 384, 512, 1024]);
    expect(renditionWidths(1023)).toEqual([256, 384, 512, 1023]);
    expect(renditionWidths(512)).toEqual([256, 384, 512]);
    expect(renditionWidths(385)).toEqual([256, 384, 385]);
    expect(renditionWidths(384)).toEqual([256, 384]);
    expect(renditionWidths(383)).toEqual([256, 383]);
    expect(renditionWidths(256)).toEqual([256]);
    expect(renditionWidths(255)).toEqual([255]);
    expect(renditionWidths(0)).toEqual([]);
  });
});

describe("renditionPath", () => {
  test("replaces the extension of a key or URL, keeps folders with dots and a query", () => {
    expect(renditionPath("gen_1/0-abc.png", 256)).toBe("gen_1/0-abc.w256.webp");
    expect(renditionPath("https://cdn.example/b/gen_1/0-abc.jpeg", 512)).toBe(
      "https://cdn.example/b/gen_1/0-abc.w512.webp",
    );
    expect(renditionPath("https://a.example/v1.2/gen/0-x", 256)).toBe("https://a.example/v1.2/gen/0-x.w256.webp");
    expect(renditionPath("https://a.example/gen/0-x.png?sig=1.2", 256)).toBe(
      "https://a.example/gen/0-x.w256.webp?sig=1.2",
    );
  });
});

describe("parseRenditions and pictureSources", () => {
  const url = "https://a.example/media/g/0-n.png";
  test("recorded entries come back by index; bad JSON and bad entries read as none", () => {
    expect(parseRenditions(null)).toEqual([]);
    expect(parseRenditions("{")).toEqual([]);
    expect(parseRenditions('{"width":1}')).toEqual([]);
    expect(
      parseRenditions('[null,{"width":1024,"height":768,"widths":[256,512]},{"width":"x","height":1,"widths":[]}]'),
    ).toEqual([null, { width: 1024, height: 768, widths: [256, 512] }, null]);
    expect(parseRenditions('[{"width":10,"height":10,"widths":[0]}]')).toEqual([null]);
  });
  test("with renditions: every width in srcset, the widest as src, the picture's own size; never the original", () => {
    const s = pictureSources(url, { width: 2048, height: 1536, widths: [1024, 256, 512] }, { width: 1, height: 1 });
    expect(s.srcSet).toBe(
      "https://a.example/media/g/0-n.w256.webp 256w, https://a.example/media/g/0-n.w512.webp 512w, https://a.example/media/g/0-n.w1024.webp 1024w",
    );
    expect(s.src).toBe("https://a.example/media/g/0-n.w1024.webp");
    expect([s.width, s.height]).toEqual([2048, 1536]);
    expect(s.srcSet).not.toContain("0-n.png");
  });
  test("without renditions (not made yet, or none): the original, at the size the task asked for", () => {
    for (const info of [undefined, null, { width: 10, height: 10, widths: [] }]) {
      const s = pictureSources(url, info, { width: 1792, height: 1024 });
      expect(s).toEqual({ src: url, srcSet: `${url} 1792w`, width: 1792, height: 1024 });
    }
  });
  test("thumbnailUrl: the smallest rendition, else the original", () => {
    expect(thumbnailUrl(url, { width: 1024, height: 1024, widths: [512, 256, 1024] })).toBe(
      "https://a.example/media/g/0-n.w256.webp",
    );
    expect(thumbnailUrl(url, null)).toBe(url);
  });
});

describe("makeRenditions (sharp)", () => {
  test("a 1024×768 noisy PNG of ~2.4 MB: WebP at 256, 384, 512 and 1024, each far smaller, aspect kept", async () => {
    const { sharp } = await loadSharp();
    const bytes = noisy(1024, 768);
    expect(bytes.byteLength).toBeGreaterThan(2_300_000);
    const r = await makeRenditions(sharp!, bytes);
    expect([r.width, r.height]).toEqual([1024, 768]);
    expect(r.files.map((f) => [f.width, f.height])).toEqual([
      [256, 192],
      [384, 288],
      [512, 384],
      [1024, 768],
    ]);
    for (const f of r.files) {
      expect(new TextDecoder().decode(f.bytes.slice(8, 12))).toBe("WEBP");
      const meta = await sharp!(f.bytes).metadata();
      expect([meta.format, meta.width]).toEqual(["webp", f.width]);
    }
    expect(r.files[1]!.bytes.byteLength).toBeLessThan(80 * 1024);
  });
  test("a picture narrower than 256 gets one rendition at its own width (never enlarged)", async () => {
    const { sharp } = await loadSharp();
    const r = await makeRenditions(sharp!, noisy(200, 100));
    expect(r.files.map((f) => [f.width, f.height])).toEqual([[200, 100]]);
  });
  test("decoding is bounded: a header declaring more than MAX_RENDITION_PIXELS is refused, at the limit it is not", async () => {
    const { sharp } = await loadSharp();
    const side = Math.sqrt(MAX_RENDITION_PIXELS);
    // One encoded row over a huge declared size: refused before any pixel is read.
    await expect(makeRenditions(sharp!, png(side + 1, side, { rows: 1 }))).rejects.toThrow(/pixel limit/i);
    const meta = await sharp!(png(side, side, { rows: 1 }), { limitInputPixels: MAX_RENDITION_PIXELS }).metadata();
    expect(meta.width).toBe(side);
  });
  test("bytes that are not a picture are refused", async () => {
    const { sharp } = await loadSharp();
    await expect(makeRenditions(sharp!, new TextEncoder().encode("<html>not a picture</html>"))).rejects.toThrow();
  });
});

describe("the rendition pool", () => {
  test("makes them on a worker thread, not the server's", async () => {
    const pool = createRenditionPool();
    try {
      const r = await pool.make(noisy(300, 300));
      expect(r?.threadId).toBeGreaterThan(0);
      expect(r?.files.map((f) => f.width)).toEqual([256, 300]);
    } finally {
      pool.stop();
    }
  });
  test("a broken picture, a full queue and a stuck worker answer null, with the reason", async () => {
    const errors: string[] = [];
    const pool = createRenditionPool({ maxQueue: 1, onError: (m) => errors.push(m) });
    try {
      expect(await pool.make(new Uint8Array([1, 2, 3]))).toBeNull();
      expect(errors.at(-1)).toContain("Error");
      const first = pool.make(noisy(300, 300));
      const second = pool.make(noisy(300, 300)); // waits: the queue holds one
      expect(await pool.make(noisy(300, 300))).toBeNull();
      expect(errors.at(-1)).toBe("the rendition queue is full");
      expect((await first)?.files.length).toBe(2);
      expect((await second)?.files.length).toBe(2);
    } finally {
      pool.stop();
    }
    const stuck = createRenditionPool({ timeoutMs: 1, onError: (m) => errors.push(m) });
    try {
      expect(await stuck.make(noisy(1024, 1024))).toBeNull();
      expect(errors.at(-1)).toBe("the rendition worker took over 1 ms");
    } finally {
      stuck.stop();
    }
  });
});

describe("the renditions derivative", () => {
  test("stores each rendition beside the original, records it by index, and skips videos and small pictures", async () => {
    const db = openDatabase(":memory:");
    const dir = mkdtempSync(join(tmpdir(), "renditions-"));
    dirs.push(dir);
    const storage = localStorageFor(dir, "http://127.0.0.1:1");
    const userId = await createUser(db);
    const genId = randomUUID();
    await db.run(
      db.insert(generations).values({
        id: genId,
        userId,
        aiType: "image",
        provider: "replicate",
        model: "m",
        prompt: "p",
        status: "completed",
        creditsCost: 1,
        deadlineAt: 1,
        createdAt: new Date(0),
      }),
    );
    const task = { id: genId } as ResultTask;
    const step = renditionsStep({ db, storage });
    const signal = new AbortController().signal;
    const picture = noisy(600, 400);
    await storage.put(`${genId}/1-n.png`, picture, "image/png");
    await step.run(
      { index: 1, bytes: picture, contentType: "image/png", notes: {}, key: `${genId}/1-n.png`, url: "" },
      task,
      signal,
    );
    await step.run(
      { index: 0, bytes: new Uint8Array(10), contentType: "video/mp4", notes: {}, key: `${genId}/0-n.mp4`, url: "" },
      task,
      signal,
    );
    const small = noisyPng(100, 100);
    expect(small.byteLength).toBeLessThanOrEqual(RENDITION_MIN_BYTES);
    await step.run(
      { index: 2, bytes: small, contentType: "image/png", notes: {}, key: `${genId}/2-n.png`, url: "" },
      task,
      signal,
    );
    const row = await db.one(db.select().from(generations).where(eq(generations.id, genId)));
    expect(parseRenditions(row!.renditions)).toEqual([null, { width: 600, height: 400, widths: [256, 384, 512, 600] }]);
    expect(readdirSync(join(dir, genId)).sort()).toEqual([
      "1-n.png",
      "1-n.w256.webp",
      "1-n.w384.webp",
      "1-n.w512.webp",
      "1-n.w600.webp",
    ]);
    // Removed with the original: the task's prefix holds them all.
    await storage.deletePrefix(`${genId}/`);
    expect(existsSync(join(dir, genId))).toBe(false);
    await db.close();
  });
});
