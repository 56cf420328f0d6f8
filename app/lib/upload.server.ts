/**
 * Reading uploaded files from a multipart body (POST /api/files, POST /v1/images/edits): the body is counted while it
 * streams in and refused once it passes the files' limit plus room for the multipart framing, so a huge upload is
 * never held whole. The client's file name and declared type are ignored: the bytes alone are judged
 * (app/domain/files/image.server.ts).
 */
import { readBodyCapped } from "./body.server";
import { AppError } from "./errors";

/** Room for the boundary lines and part headers around the files and fields. */
export const FRAMING_BYTES = 16 * 1024;

const ONE_FILE = "send multipart/form-data with one field named file";

/**
 * The multipart form of a body of at most `maxFileBytes` per file × `files` plus framing. FILE_PARAMS (with
 * `reason`) when it is not multipart or malformed, FILE_TOO_LARGE when it is larger.
 */
export async function readMultipartForm(
  request: Request,
  opts: { maxFileBytes: number; files: number; reason: string },
): Promise<FormData> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type)) throw new AppError("FILE_PARAMS", { reason: opts.reason });
  const body = await readBodyCapped(request, opts.maxFileBytes * opts.files + FRAMING_BYTES);
  if (body === null) throw new AppError("FILE_TOO_LARGE", { max: opts.maxFileBytes });
  try {
    return await new Response(body as Uint8Array<ArrayBuffer>, { headers: { "content-type": type } }).formData();
  } catch {
    throw new AppError("FILE_PARAMS", { reason: "malformed multipart body" });
  }
}

/** A form part's bytes when it is a file of at most `maxBytes` (FILE_TOO_LARGE otherwise). */
export async function fileBytes(file: File, maxBytes: number): Promise<Uint8Array> {
  if (file.size > maxBytes) throw new AppError("FILE_TOO_LARGE", { max: maxBytes });
  return new Uint8Array(await file.arrayBuffer());
}

/** The largest body POST /api/files reads: one file and its framing. */
export const uploadBodyBytes = (maxBytes: number) => maxBytes + FRAMING_BYTES;

export async function readUploadedFile(request: Request, maxBytes: number): Promise<Uint8Array> {
  const form = await readMultipartForm(request, { maxFileBytes: maxBytes, files: 1, reason: ONE_FILE });
  const parts = form.getAll("file");
  const file = parts[0];
  if (parts.length !== 1 || typeof file === "string" || !file) throw new AppError("FILE_PARAMS", { reason: ONE_FILE });
  return fileBytes(file, maxBytes);
}
