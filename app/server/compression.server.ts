/**
 * On-the-fly compression of dynamic responses (HTML documents, React Router's `.data` turbo-stream, the JSON API),
 * chosen by the request's Accept-Encoding: brotli at a low quality (cheap enough per request), else gzip. Static
 * files are not here: they are compressed once at build time (static-files.server.ts). Each chunk the app writes
 * is flushed through the compressor at once, so a streamed page still sends its first bytes early. Why this is
 * safe against BREACH: docs/decisions/133-dynamic-response-compression.md.
 */
import { constants, createBrotliCompress, createGzip } from "node:zlib";
import { acceptedCodings } from "./static-files.server";

/** Smaller bodies gain nothing worth the CPU (and may grow). */
export const MIN_COMPRESS_BYTES = 1024;
/** Brotli 4 compresses HTML about as well as gzip 6 at a similar cost; 11 (the build's) is far too slow per request. */
export const BROTLI_QUALITY = 4;

/** Text the app produces. `text/event-stream` is left out on purpose: an SSE stream must reach the client unbuffered. */
const COMPRESSIBLE =
  /^(text\/(html|plain|css|csv|javascript|markdown|x-script|xml)|application\/([a-z0-9.+-]+\+)?(json|xml|javascript)|image\/svg\+xml)\s*(;|$)/i;

function addVary(headers: Headers) {
  const vary = headers.get("vary");
  if (!vary) headers.set("Vary", "Accept-Encoding");
  else if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) headers.set("Vary", `${vary}, Accept-Encoding`);
}

/** Whether this response could be compressed at all (then caches must keep one copy per Accept-Encoding). */
function compressible(request: Request, response: Response): boolean {
  if (request.method === "HEAD" || !response.body) return false;
  if (response.status < 200 || response.status === 204 || response.status === 206 || response.status === 304)
    return false;
  const h = response.headers;
  // Files served by byte ranges (media) keep their bytes: a range names offsets in the identity body.
  if (h.has("content-encoding") || h.has("content-range") || /bytes/i.test(h.get("accept-ranges") ?? "")) return false;
  if (/(^|,)\s*no-transform\s*(,|$)/i.test(h.get("cache-control") ?? "")) return false;
  // A response that asks proxies not to buffer it is a live stream (the demo text): each piece goes out as it is.
  if (h.get("x-accel-buffering")?.toLowerCase() === "no") return false;
  if (!COMPRESSIBLE.test(h.get("content-type") ?? "")) return false;
  const length = h.get("content-length");
  return length === null || Number(length) >= MIN_COMPRESS_BYTES;
}

const TICK = Symbol("tick");
const tick = () => new Promise<typeof TICK>((resolve) => setTimeout(resolve, 0, TICK));

/**
 * The response as the request accepts it: compressed with br or gzip where it may be, unchanged otherwise. A body of
 * unknown length is read while its bytes are already there, up to MIN_COMPRESS_BYTES: one that ends sooner goes out
 * as it is; one still being written (a streamed page) is compressed as it comes, never waited for.
 */
export async function compressResponse(request: Request, response: Response): Promise<Response> {
  if (!compressible(request, response)) return response;
  addVary(response.headers);
  const accepted = acceptedCodings(request.headers.get("accept-encoding"));
  const coding = accepted.has("br") ? "br" : accepted.has("gzip") ? "gzip" : null;
  if (!coding) return response;
  const init = { status: response.status, statusText: response.statusText };
  const reader = response.body!.getReader();
  const head: Uint8Array[] = [];
  let size = 0;
  let next = reader.read();
  while (size < MIN_COMPRESS_BYTES) {
    const read = await Promise.race([next, tick()]);
    if (read === TICK) break;
    if (read.done) return new Response(Buffer.concat(head), { ...init, headers: response.headers });
    head.push(read.value);
    size += read.value.byteLength;
    next = reader.read();
  }
  const headers = new Headers(response.headers);
  headers.set("Content-Encoding", coding);
  headers.delete("Content-Length");
  // A strong validator names these exact bytes: the compressed ones differ (RFC 9110 §8.8.3).
  const etag = headers.get("etag");
  if (etag && !etag.startsWith("W/")) headers.set("ETag", `W/${etag}`);
  return new Response(compressStream(head, next, reader, coding), { ...init, headers });
}

function compressor(coding: "br" | "gzip") {
  return coding === "br"
    ? createBrotliCompress({
        flush: constants.BROTLI_OPERATION_FLUSH,
        params: {
          [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      })
    : createGzip({ flush: constants.Z_SYNC_FLUSH, level: 6 });
}

/**
 * The chunks already read, then the pending read and the rest of the body, through the compressor: every chunk flushed as it comes, so a
 * streamed page's shell is not held back for its later parts. Canceling the result cancels the body.
 */
function compressStream(
  head: Uint8Array[],
  pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  coding: "br" | "gzip",
): ReadableStream<Uint8Array> {
  const z = compressor(coding);
  let open = true;
  const write = async (chunk: Uint8Array) => {
    if (chunk.byteLength > 0 && !z.write(chunk)) await new Promise((resolve) => z.once("drain", resolve));
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      z.on("data", (chunk: Buffer) => {
        if (open) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      });
      z.on("end", () => {
        if (open) controller.close();
        open = false;
      });
      z.on("error", (error) => {
        if (open) controller.error(error);
        open = false;
      });
      void (async () => {
        try {
          await write(Buffer.concat(head));
          for (let read = await pending; !read.done; read = await reader.read()) await write(read.value);
          z.end();
        } catch (error) {
          z.destroy(error as Error);
        }
      })();
    },
    cancel(reason) {
      open = false;
      z.destroy();
      return reader.cancel(reason);
    },
  });
}
