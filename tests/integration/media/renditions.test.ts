/**
 * Renditions over real HTTP against the built server (docs/media.md), on local disk and on S3 (s3rver behind the
 * SigV4 proxy), on both engines (ATELIER_TEST_PG=1): a real-size result (1024² noisy PNG, ~3 MB, from the OpenAI
 * fake) gets WebP renditions at 256/384/512/1024 beside the original; the query answer is unchanged (`result_urls` the
 * original, which downloads byte for byte); the studio and task pages serve `srcset`/`width`/`height` from them;
 * media answer 304 to If-None-Match with their ETag; videos answer 206 to a Range request.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { type OpenAIFake, startOpenAIFake } from "../../fakes/openai";
import { type S3Fake, startS3Fake } from "../../fakes/s3";
import { Client, uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { noisyPng } from "../../support/images";
import { startServer, type TestServer } from "../../support/server";
import { until } from "../../support/until";

setDefaultTimeout(90_000);

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const picture = noisyPng(1024, 1024, 1);

let openai: OpenAIFake;
let s3: S3Fake;
beforeAll(async () => {
  openai = startOpenAIFake();
  openai.picture = picture;
  s3 = await startS3Fake();
});
afterAll(async () => {
  await openai?.stop();
  await s3?.stop();
});

async function makeImage(api: Client, cookie: string) {
  const g = await api.post(
    "/api/generator/generate",
    { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "a harbour at noon" },
    { cookie },
  );
  expect(g.body.code).toBe(0);
  const id = g.body.data.gen_id as string;
  const done = await until("the image task finished", async () => {
    const d = (await api.post("/api/generator/query", { gen_id: id }, { cookie })).body.data;
    return d.status === "completed" || d.status === "failed" ? d : undefined;
  });
  expect(done.status).toBe("completed");
  return { id, done };
}

const recorded = (server: TestServer, id: string) =>
  until(
    "the renditions recorded",
    async () => {
      const [row] = await queryServerDb(server.dataDir, "SELECT renditions FROM generations WHERE id = ?", id);
      return row?.renditions
        ? (JSON.parse(String(row.renditions)) as { width: number; widths: number[] }[])
        : undefined;
    },
    60_000,
  );

for (const where of ["local", "s3"] as const) {
  describe(`renditions on ${where} storage`, () => {
    let server: TestServer;
    let api: Client;
    beforeAll(async () => {
      server = await startServer({
        env: {
          OPENAI_API_KEY: openai.apiKey,
          OPENAI_BASE_URL: openai.baseUrl,
          SIGNUP_CREDITS: "100",
          SIMULATOR_DELAY_MS: "0",
          // The stored original is compared with the upstream's bytes: unsigned here (provenance has its own tests).
          C2PA: "false",
          ...(where === "s3" ? s3.env : {}),
        },
      });
      api = new Client(server.url);
    });
    afterAll(() => server?.dispose());

    test("a 1024² PNG gets WebP renditions beside it; the query answer and the original are unchanged", async () => {
      const { cookie } = await api.signUp(uniqueEmail(`renditions-${where}`));
      const { id, done } = await makeImage(api, cookie);
      const [original] = done.result_urls as string[];
      expect(done.result_urls).toHaveLength(1);
      expect(original).toMatch(where === "s3" ? new RegExp(`^${s3.endpoint}/`) : new RegExp(`^${server.url}/media/`));
      expect(original).toMatch(/\/0-[\w-]+\.png$/);

      const [info] = await recorded(server, id);
      expect(info).toEqual({ width: 1024, height: 1024, widths: [256, 384, 512, 1024] } as never);
      // The answer once the renditions exist is the answer before: the originals, nothing added.
      const after = (await api.post("/api/generator/query", { gen_id: id }, { cookie })).body.data;
      expect(after).toEqual(done);

      const res = await fetch(original!);
      expect(res.status).toBe(200);
      expect(sha(new Uint8Array(await res.arrayBuffer()))).toBe(sha(picture));

      let total = 0;
      for (const w of [256, 384, 512, 1024]) {
        const url = original!.replace(/\.png$/, `.w${w}.webp`);
        const r = await fetch(url);
        expect(r.status).toBe(200);
        expect(r.headers.get("content-type")).toBe("image/webp");
        const bytes = new Uint8Array(await r.arrayBuffer());
        expect(new TextDecoder().decode(bytes.slice(8, 12))).toBe("WEBP");
        // A gallery tile's picture (the budget: ≤ 80 KB), even for noise, the worst case for an encoder.
        if (w === 384) expect(bytes.byteLength).toBeLessThan(80 * 1024);
        total += bytes.byteLength;
      }
      expect(total).toBeLessThan(picture.byteLength);
    });

    test("media answer 304 to If-None-Match with their ETag; a changed ETag gets the bytes", async () => {
      const { cookie } = await api.signUp(uniqueEmail(`etag-${where}`));
      const { id, done } = await makeImage(api, cookie);
      await recorded(server, id);
      const original = (done.result_urls as string[])[0]!;
      for (const url of [original, original.replace(/\.png$/, ".w256.webp")]) {
        const first = await fetch(url);
        await first.arrayBuffer();
        const etag = first.headers.get("etag");
        expect(etag).toBeTruthy();
        if (where === "local") {
          expect(first.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
          expect(first.headers.get("content-length")).toBe(String((await (await fetch(url)).arrayBuffer()).byteLength));
        }
        const again = await fetch(url, { headers: { "if-none-match": etag! } });
        expect(again.status).toBe(304);
        expect((await again.arrayBuffer()).byteLength).toBe(0);
        const other = await fetch(url, { headers: { "if-none-match": '"not-it"' } });
        expect(other.status).toBe(200);
      }
    });

    test("the studio's gallery and the task page load renditions (srcset, width, height), the lightbox link the original", async () => {
      const { cookie } = await api.signUp(uniqueEmail(`studio-${where}`));
      const { id, done } = await makeImage(api, cookie);
      const original = (done.result_urls as string[])[0]!;
      // Before the renditions are recorded the page would use the original; once recorded, the renditions.
      await recorded(server, id);
      const studio = await (await fetch(`${server.url}/studio`, { headers: { cookie } })).text();
      const img = studio.match(/<img[^>]*srcSet="[^"]*"[^>]*>/)?.[0] ?? "";
      const w256 = original.replace(/\.png$/, ".w256.webp");
      expect(img).toContain(`${w256} 256w`);
      expect(img).toMatch(/ width="1024"/);
      expect(img).toMatch(/ height="1024"/);
      expect(img).not.toContain(`src="${original}"`);
      const detail = await (await fetch(`${server.url}/studio/${id}`, { headers: { cookie } })).text();
      expect(detail).toContain(`${original.replace(/\.png$/, ".w1024.webp")} 1024w`);
      expect(detail).toContain(`href="${original}"`);
    });
  });
}

describe("video media", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startServer({ env: { SIGNUP_CREDITS: "100", SIMULATOR_DELAY_MS: "0" } });
    api = new Client(server.url);
  });
  afterAll(() => server?.dispose());

  test("a video answers 206 with its Content-Range to a Range request, and gets no renditions", async () => {
    const { cookie } = await api.signUp(uniqueEmail("video-range"));
    const g = await api.post(
      "/api/generator/generate",
      { ai_type: "video", provider: "kling", model: "kling-v1", prompt: "a lighthouse", options: { duration: 5 } },
      { cookie },
    );
    expect(g.body.code).toBe(0);
    const id = g.body.data.gen_id as string;
    const done = await until("the video finished", async () => {
      const d = (await api.post("/api/generator/query", { gen_id: id }, { cookie })).body.data;
      return d.status === "completed" || d.status === "failed" ? d : undefined;
    });
    expect(done.status).toBe("completed");
    const url = (done.result_urls as string[])[0]!;
    const whole = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const part = await fetch(url, { headers: { range: "bytes=0-99" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 0-99/${whole.byteLength}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(whole.subarray(0, 100)))).toBe(true);
    const etag = (await fetch(url, { method: "HEAD" })).headers.get("etag")!;
    expect((await fetch(url, { headers: { "if-none-match": etag } })).status).toBe(304);
    const [row] = await queryServerDb(server.dataDir, "SELECT renditions FROM generations WHERE id = ?", id);
    expect(row?.renditions ?? null).toBeNull();
  });
});
