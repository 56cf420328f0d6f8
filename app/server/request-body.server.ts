/**
 * The server's own bound on request bodies (docs/api.md "Files"): the largest body any route reads (an image edit's picture and mask of FILE_MAX_BYTES each, plus framing; at least 8 MiB), answered 413 in
 * the spec's envelope and logged like every request, declared (Content-Length) or chunked.
 *
 * A chunked body is read here as it arrives, before any route looks at it, because Bun receives a body ahead of its
 * reader: a route that authenticates first let a fast sender pass Bun's own `maxRequestBodySize`, which closes the
 * connection under a bare 413 while the client is still sending — the client's socket is reset and the answer lost.
 * Bun's ceiling is set at twice this bound (transportLimit), so this reader always reaches the bound first.
 */
import { readStreamCapped } from "~/lib/body.server";
import { AppError } from "~/lib/errors";

export const bodyBound = (fileMaxBytes: number) => Math.max(8 * 1024 * 1024, 2 * fileMaxBytes + 64 * 1024);
/** Bun.serve's `maxRequestBodySize`: a backstop this module's reader never lets a body reach. */
export const transportLimit = (fileMaxBytes: number) => 2 * bodyBound(fileMaxBytes);

/**
 * The request to hand on — the same one, or for a chunked body a copy holding its bytes with their length declared —
 * or the error to answer (FILE_TOO_LARGE, 413) as soon as the body passes `bound`.
 */
export async function boundRequestBody(
  request: Request,
  bound: number,
  fileMaxBytes: number,
): Promise<Request | AppError> {
  if (request.method === "GET" || request.method === "HEAD") return request;
  const declared = request.headers.get("content-length");
  if (declared !== null)
    return Number(declared) > bound ? new AppError("FILE_TOO_LARGE", { max: fileMaxBytes }) : request;
  if (!request.headers.has("transfer-encoding") || !request.body) return request;
  const bytes = await readStreamCapped(request.body, bound);
  if (bytes === null) return new AppError("FILE_TOO_LARGE", { max: fileMaxBytes });
  const headers = new Headers(request.headers);
  headers.delete("transfer-encoding");
  headers.set("content-length", String(bytes.byteLength));
  return new Request(request.url, {
    method: request.method,
    headers,
    body: bytes as Uint8Array<ArrayBuffer>,
    signal: request.signal,
  });
}
