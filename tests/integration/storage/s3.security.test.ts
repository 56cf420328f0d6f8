/**
 * Result files in S3 keep only image and video content types (docs/decisions/100-s3-result-content-types.md). Local storage
 * serves by the key's extension (`.bin` → application/octet-stream, nosniff, sandbox CSP), but a bucket serves the
 * stored type: a result stored as the provider's `text/html` or `image/svg+xml` would run script on the bucket's
 * origin (often a sibling of the site, `media.example.com`). Anything else is stored as application/octet-stream.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { storeResults } from "~/domain/generations/results.server";
import { parseConfig } from "~/lib/config.server";
import { createS3Storage } from "~/storage/s3.server";
import { SAMPLE_PNG } from "../../fakes/common";
import { type S3Fake, startS3Fake } from "../../fakes/s3";

let s3: S3Fake;
let upstream: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  s3 = await startS3Fake();
  // A provider CDN whose answer claims to be a web page.
  upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) =>
      new URL(req.url).pathname === "/page"
        ? new Response("<script>alert(document.domain)</script>", {
            headers: { "content-type": "text/html; charset=utf-8" },
          })
        : new Response('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', {
            headers: { "content-type": "image/svg+xml" },
          }),
  });
});
afterAll(async () => {
  await s3.stop();
  await upstream.stop(true);
});

const storage = () => createS3Storage(parseConfig({ S3_BUCKET: s3.env.S3_BUCKET! }), s3.env);

test("a result downloaded as text/html or image/svg+xml is served from the bucket as application/octet-stream", async () => {
  for (const path of ["/page", "/image.svg"]) {
    const [url] = await storeResults(
      storage(),
      `gen_r5${path.length}`,
      [{ kind: "url", url: `http://127.0.0.1:${upstream.port}${path}` }],
      new AbortController().signal,
      { allowPrivate: true },
    );
    const res = await fetch(url!);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
  }
});

test("image and video types are kept", async () => {
  for (const [type, key] of [
    ["image/png", "gen_r5k/0.png"],
    ["image/webp", "gen_r5k/1.webp"],
    ["video/mp4", "gen_r5k/2.mp4"],
  ] as const) {
    const res = await fetch(await storage().put(key, SAMPLE_PNG, type));
    expect(res.headers.get("content-type")).toBe(type);
  }
  // A direct put with a page type (a demo image whose type an SDK reported oddly) is neutralised the same way.
  const res = await fetch(await storage().put("gen_r5k/3.png", SAMPLE_PNG, "text/html"));
  expect(res.headers.get("content-type")).toBe("application/octet-stream");
});
