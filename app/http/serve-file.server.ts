/**
 * Serving an input file (docs/decisions/123-input-files.md): GET/HEAD, to its owner (session or X-API-Key) or to a
 * signed, unexpired link whose owner is not suspended; anyone else learns nothing ("file not found"). The answer carries the stored image type
 * (PNG, JPEG or WebP: never HTML or SVG), `nosniff`, and a CSP that sandboxes the response, so bytes that also read
 * as HTML never run as a page of this origin.
 */
import { eq } from "drizzle-orm";
import { files } from "#db/schema";
import { verifyFileLink } from "~/domain/files/links.server";
import { findUserById } from "~/domain/users/users.server";
import { errorResponse } from "~/http/api.server";
import { resolveCaller } from "~/http/identity.server";
import type { Services } from "~/http/services.server";
import { AppError } from "~/lib/errors";
import type { FileStore } from "~/storage/files.server";

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp"]);

export const FILE_RESPONSE_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; sandbox",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Referrer-Policy": "no-referrer",
} as const;

export async function serveFile(
  deps: { services: Services; store: FileStore },
  request: Request,
  fileId: string | undefined,
): Promise<Response> {
  try {
    if (request.method !== "GET" && request.method !== "HEAD") {
      const e = new AppError("METHOD_NOT_ALLOWED");
      e.headers = { Allow: "GET, HEAD" };
      throw e;
    }
    const { services } = deps;
    if (!fileId || fileId.length > 200) throw new AppError("FILE_NOT_FOUND");
    const row = await services.db.one(services.db.select().from(files).where(eq(files.id, fileId)));
    const params = new URL(request.url).searchParams;
    let allowed = false;
    if (params.has("sig")) {
      // A signed link stands alone: a bad or expired one is refused even when the caller owns the file.
      if (
        !verifyFileLink(
          services.config.authSecret,
          fileId,
          params.get("expires"),
          params.get("sig"),
          services.clock.now(),
        )
      )
        throw new AppError("FILE_LINK_INVALID");
      // A link signed before its owner was suspended stops with the owner's keys and sessions, not an hour later.
      if (row && (await findUserById(services.db, row.userId))?.suspendedAt) throw new AppError("ACCOUNT_SUSPENDED");
      allowed = row !== undefined;
    } else if (row) {
      const caller = await resolveCaller(request, services);
      allowed = caller?.user.id === row.userId;
    }
    if (!row || !allowed) throw new AppError("FILE_NOT_FOUND");
    const bytes = await deps.store.get(row.storageKey);
    if (!bytes) throw new AppError("FILE_NOT_FOUND");
    const type = IMAGE_TYPES.has(row.contentType) ? row.contentType : "application/octet-stream";
    return new Response(request.method === "HEAD" ? null : bytes, {
      headers: {
        ...FILE_RESPONSE_HEADERS,
        "Content-Type": type,
        "Content-Length": String(bytes.byteLength),
        "Content-Disposition": `inline; filename="${row.id}"`,
        "Cache-Control": "private, max-age=3600",
      },
    });
  } catch (error) {
    return errorResponse(error, request);
  }
}
