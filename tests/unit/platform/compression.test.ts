/** Which responses are compressed per request, and that a streamed one still streams (app/server/compression.server.ts). */
import { describe, expect, test } from "bun:test";
import { brotliDecompressSync, createBrotliDecompress } from "node:zlib";
import { compressResponse, MIN_COMPRESS_BYTES } from "~/server/compression.server";

const page = "<!DOCTYPE html><html><body>" + "<p>a tile with a prompt</p>".repeat(200) + "</body></html>";
const req = (acceptEncoding = "gzip, deflate, br", method = "GET") =>
  new Request("http://atelier.test/studio", { method, headers: { "accept-encoding": acceptEncoding } });
const html = (body: BodyInit | null = page, init: ResponseInit = {}) =>
  new Response(body, { ...init, headers: { "content-type": "text/html; charset=utf-8", ...init.headers } });

describe("what is compressed", () => {
  test("a page: brotli, Vary, no Content-Length; the same text once decoded", async () => {
    const r = await compressResponse(req(), html());
    expect(r.headers.get("content-encoding")).toBe("br");
    expect(r.headers.get("vary")).toBe("Accept-Encoding");
    expect(r.headers.get("content-length")).toBeNull();
    expect(brotliDecompressSync(Buffer.from(await r.arrayBuffer())).toString()).toBe(page);
  });

  test("Vary is added to what the response already varies on, once", async () => {
    const r = await compressResponse(req(), html(page, { headers: { vary: "Cookie" } }));
    expect(r.headers.get("vary")).toBe("Cookie, Accept-Encoding");
    const again = await compressResponse(req(), html(page, { headers: { vary: "accept-encoding" } }));
    expect(again.headers.get("vary")).toBe("accept-encoding");
  });

  test("left as they are: tiny bodies, HEAD, SSE, ranges, encoded, no-transform, no-buffering, images, 204/304", async () => {
    const tiny = await compressResponse(req(), Response.json({ code: 0, message: "ok", data: { credits: 3 } }));
    expect(tiny.headers.get("content-encoding")).toBeNull();
    expect(tiny.headers.get("vary")).toBe("Accept-Encoding");
    expect(await tiny.json()).toEqual({ code: 0, message: "ok", data: { credits: 3 } });
    expect(MIN_COMPRESS_BYTES).toBeGreaterThan(JSON.stringify({ code: 0, message: "ok", data: { credits: 3 } }).length);

    const untouched: [Request, Response][] = [
      [req("br", "HEAD"), html(null)],
      [req(), new Response(page, { headers: { "content-type": "text/event-stream" } })],
      [req(), html(page, { status: 206, headers: { "content-range": "bytes 0-9/100" } })],
      [req(), html(page, { headers: { "accept-ranges": "bytes" } })],
      [req(), html(page, { headers: { "content-encoding": "gzip" } })],
      [req(), html(page, { headers: { "cache-control": "private, no-transform" } })],
      [req(), html(page, { headers: { "x-accel-buffering": "no" } })],
      [req(), new Response(page, { headers: { "content-type": "image/png" } })],
      [req(), html(null, { status: 204 })],
      [req(), html(null, { status: 304 })],
      [req("identity"), html()],
      [req("br;q=0, gzip;q=0"), html()],
    ];
    for (const [request, response] of untouched) expect(await compressResponse(request, response)).toBe(response);
  });

  test("q=0 refuses brotli: gzip", async () => {
    expect((await compressResponse(req("br;q=0, gzip"), html())).headers.get("content-encoding")).toBe("gzip");
  });
});

test("a streamed page still streams: the shell arrives decoded before the rest is written", async () => {
  const shell = `<!DOCTYPE html><html><head><title>Studio</title></head><body>${"<div>shell</div>".repeat(100)}`;
  let finish!: () => void;
  const rest = new Promise<void>((resolve) => (finish = resolve));
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(new TextEncoder().encode(shell));
      await rest; // the suspended part is written only when the test says so
      controller.enqueue(new TextEncoder().encode("<p>results</p></body></html>"));
      controller.close();
    },
  });
  const r = await compressResponse(req("br"), html(body));
  expect(r.headers.get("content-encoding")).toBe("br");
  const decoder = createBrotliDecompress();
  let text = "";
  decoder.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const reader = r.body!.getReader();
  while (text.length < shell.length) {
    const { done, value } = await reader.read();
    expect(done).toBe(false);
    await new Promise<void>((resolve) => decoder.write(value, () => resolve()));
  }
  expect(text).toBe(shell);
  finish();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    await new Promise<void>((resolve) => decoder.write(value, () => resolve()));
  }
  expect(text).toBe(`${shell}<p>results</p></body></html>`);
});
