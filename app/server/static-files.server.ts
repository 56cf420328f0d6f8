/**
 * The client build as the server answers it: every file keyed by URL path (no traversal possible), with the
 * brotli and gzip copies `bun run build` wrote beside it (scripts/compress-assets.ts) chosen by the request's
 * Accept-Encoding. Hashed files under /assets/ never change under their name: cached for a year, immutable.
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

export interface StaticFile {
  blob: Blob;
  immutable: boolean;
  /** Pre-compressed copies, by content coding. */
  encoded?: { br?: Blob; gzip?: Blob };
}

const CODINGS = [
  ["br", ".br"],
  ["gzip", ".gz"],
] as const;

export function staticFilesFrom(dir: string): Map<string, StaticFile> {
  const found = new Map<string, Blob>();
  const walk = (d: string) => {
    let entries: string[];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const name of entries) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else found.set(`/${relative(dir, full).split(sep).join("/")}`, Bun.file(full));
    }
  };
  walk(dir);
  const files = new Map<string, StaticFile>();
  for (const [url, blob] of found) {
    const file: StaticFile = { blob, immutable: url.startsWith("/assets/") };
    for (const [coding, suffix] of CODINGS) {
      const copy = found.get(url + suffix);
      if (copy) file.encoded = { ...file.encoded, [coding]: copy };
    }
    files.set(url, file);
  }
  return files;
}

/**
 * The codings a request accepts, as RFC 9110 §12.5.3 reads Accept-Encoding: a coding named with q=0 is refused,
 * `*` stands for any coding not named.
 */
export function acceptedCodings(header: string | null): Set<"br" | "gzip"> {
  const out = new Set<"br" | "gzip">();
  if (!header) return out;
  const q = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name.trim(), Number.isFinite(value) ? value : 0);
  }
  for (const coding of ["br", "gzip"] as const) {
    const named = q.get(coding) ?? (coding === "gzip" ? q.get("x-gzip") : undefined);
    const value = named ?? q.get("*") ?? 0;
    if (value > 0) out.add(coding);
  }
  return out;
}

export function staticResponse(request: Request, file: StaticFile): Response {
  const headers: Record<string, string> = {
    "Content-Type": file.blob.type || "application/octet-stream",
    "Cache-Control": file.immutable ? "public, max-age=31536000, immutable" : "public, max-age=3600",
  };
  let body = file.blob;
  if (file.encoded) {
    // Caches keep one copy per coding.
    headers.Vary = "Accept-Encoding";
    const accepted = acceptedCodings(request.headers.get("accept-encoding"));
    const coding = CODINGS.map(([c]) => c).find((c) => accepted.has(c) && file.encoded?.[c]);
    if (coding) {
      body = file.encoded[coding]!;
      headers["Content-Encoding"] = coding;
    }
  }
  headers["Content-Length"] = String(body.size);
  return new Response(request.method === "HEAD" ? null : body, { headers });
}
