/** Request bodies read with a size cap, declared (Content-Length) or chunked. */

/** The body's exact bytes, or null when it is (or declares to be) larger than `max` bytes. */
export async function readBodyCapped(request: Request, max: number): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > max) return null;
  // A declared length bounds the body (the HTTP parser reads exactly that many bytes): read it whole, natively,
  // without a stream reader per request, and without touching `request.body`, whose getter builds a stream
  // (docs/performance.md). Chunked bodies are counted chunk by chunk below.
  if (declared > 0) return await request.bytes();
  const body = request.body;
  if (!body) return new Uint8Array(0);
  return readStreamCapped(body, max);
}

/**
 * Bun's own ceiling on a request body (Bun.serve `maxRequestBodySize`, app/server/http.server.ts). A chunked body is
 * received ahead of the reader, so a fast sender can pass that ceiling before the route's own cap is counted: the
 * read then fails with this error (and Bun has answered 413 on the connection). It is the same "too large".
 */
const TRANSPORT_CEILING = /maxRequestBodySize/;

/**
 * A body stream's bytes, read chunk by chunk; null (and the stream cancelled) once it passes `max` bytes, or once
 * the server's transport ceiling refuses it. Other read errors (the client went away) are thrown.
 */
export async function readStreamCapped(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    let step: Awaited<ReturnType<typeof reader.read>>;
    try {
      step = await reader.read();
    } catch (error) {
      if (error instanceof Error && TRANSPORT_CEILING.test(error.message)) return null;
      throw error;
    }
    const { done, value } = step;
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
