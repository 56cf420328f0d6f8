/**
 * Reading one uploaded file from a multipart body (POST /api/files): the body is counted while it streams in and
 * refused once it passes the file limit plus room for the multipart framing, so a huge upload is never held whole.
 * The client's file name and declared type are ignored: the bytes alone are judged (app/domain/files/image.server.ts).
 */
import { readBodyCapped } from "./body.server";
import { AppError } from "./errors";

/** Room for the boundary lines and part headers around the file. */
const FRAMING_BYTES = 16 * 1024;

export async function readUploadedFile(request: Request, maxBytes: number): Promise<Uint8Array> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type))
    throw new AppError("FILE_PARAMS", { reason: "send multipart/form-data with one field named file" });
  const body = await readBodyCapped(request, maxBytes + FRAMING_BYTES);
  if (body === null) throw new AppError("FILE_TOO_LARGE", { max: maxBytes });
  let form: FormData;
  try {
    form = await new Response(body as Uint8Array<ArrayBuffer>, { headers: { "content-type": type } }).formData();
  } catch {
    throw new AppError("FILE_PARAMS", { reason: "malformed multipart body" });
  }
  const parts = form.getAll("file");
  const file = parts[0];
  if (parts.length !== 1 || typeof file === "string" || !file)
    throw new AppError("FILE_PARAMS", { reason: "send multipart/form-data with one field named file" });
  if (file.size > maxBytes) throw new AppError("FILE_TOO_LARGE", { max: maxBytes });
  return new Uint8Array(await file.arrayBuffer());
}
