/**
 * Serves stored result files: GET/HEAD, content type by extension, long-lived
 * caching (a result never changes once written), ETag / If-None-Match, and
 * single HTTP Range requests so videos can seek (RFC 9110 §14).
 */

import { stat } from "node:fs/promises";
import parseRange from "range-parser";
import { resolveKey } from "./local.server";

export const CONTENT_TYPES: Record<string, string> = {
  png: "image/png",
  gif: "image/gif",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
};

const MEDIA_TYPES = new Set(Object.values(CONTENT_TYPES));

/**
 * The type a stored result is served with: one of the image and video types above, else
 * `application/octet-stream` — never what an upstream's header said (`text/html`, `image/svg+xml`), which a
 * bucket would serve inline on its own origin. Local files get theirs from the key's extension.
 */
export function storedMediaType(type: string): string {
  const t = type.split(";")[0]!.trim().toLowerCase();
  return MEDIA_TYPES.has(t) ? t : "application/octet-stream";
}

export const contentTypeFor = (key: string) =>
  CONTENT_TYPES[key.slice(key.lastIndexOf(".") + 1).toLowerCase()] ?? "application/octet-stream";

const notFound = () =>
  new Response("not found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });

export async function serveMedia(request: Request, root: string, key: string): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response("method not allowed", { status: 405, headers: { Allow: "GET, HEAD" } });
  }
  const path = resolveKey(root, key);
  if (!path) return notFound();
  let size: number;
  let mtime: Date;
  try {
    const s = await stat(path);
    if (!s.isFile()) return notFound();
    size = s.size;
    mtime = s.mtime;
  } catch {
    return notFound();
  }
  const etag = `"${size.toString(16)}-${Math.floor(mtime.getTime()).toString(16)}"`;
  const headers: Record<string, string> = {
    "Content-Type": contentTypeFor(key),
    "Cache-Control": "public, max-age=31536000, immutable",
    "Accept-Ranges": "bytes",
    ETag: etag,
    "Last-Modified": mtime.toUTCString(),
    "X-Content-Type-Options": "nosniff",
  };
  const head = request.method === "HEAD";
  const inm = request.headers.get("if-none-match");
  if (inm?.split(",").some((t) => t.trim() === etag || t.trim() === "*")) {
    return new Response(null, { status: 304, headers });
  }
  const file = Bun.file(path);
  const rangeHeader = request.headers.get("range");
  const ifRange = request.headers.get("if-range");
  if (rangeHeader && (!ifRange || ifRange === etag)) {
    const ranges = parseRange(size, rangeHeader, { combine: true });
    if (ranges === -1) {
      return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${size}` } });
    }
    // -2 (malformed) is ignored as RFC 9110 allows; several ranges: the first is served.
    if (ranges !== -2 && ranges.type === "bytes" && ranges.length >= 1) {
      const { start, end } = ranges[0]!;
      return new Response(head ? null : file.slice(start, end + 1), {
        status: 206,
        headers: {
          ...headers,
          "Content-Range": `bytes ${start}-${end}/${size}`,
          "Content-Length": String(end - start + 1),
        },
      });
    }
  }
  return new Response(head ? null : file, { status: 200, headers: { ...headers, "Content-Length": String(size) } });
}
