/**
 * `POST /v1/images/edits` (docs/openai-compat.md "Edits"): OpenAI's multipart form (`image`, optional `mask`,
 * `prompt`, `model`, `n`, `size`, `response_format`) with an Atelier key. The key needs `generate` and `files` (ROUTE_SCOPES). The
 * upload limit is taken before the body is read (as `POST /api/files` does), the fields are checked before anything
 * is stored, then the pictures become the user's files and the tasks start from them (edit-images.server.ts).
 */
import { editImages, takeUploadUnit } from "~/domain/openai-compat/edit-images.server";
import { OpenAiRefusal, parseEditsRequest } from "~/domain/openai-compat/images";
import { fileBytes, readMultipartForm } from "~/lib/upload.server";
import { serveImages } from "./images.server";

export const EDITS_ROUTE = "/v1/images/edits";

const FORM = "send multipart/form-data with the picture as image (and optionally mask), prompt, model";

/** The single file of a field (OpenAI's SDKs name an array `image[]`); null when absent. */
function onePicture(form: FormData, name: string): File | null {
  const parts = [...form.getAll(name), ...form.getAll(`${name}[]`)];
  if (parts.length === 0) return null;
  const file = parts[0];
  if (parts.length > 1 || typeof file === "string" || !file)
    throw new OpenAiRefusal(400, `Invalid value for '${name}': send one picture file.`, name, "invalid_value");
  return file;
}

export const handleImagesEdits = (request: Request) =>
  serveImages(request, EDITS_ROUTE, async (services, caller) => {
    const { config } = services;
    await takeUploadUnit(services, caller.user.id);
    const form = await readMultipartForm(request, { maxFileBytes: config.FILE_MAX_BYTES, files: 2, reason: FORM });
    const image = onePicture(form, "image");
    if (!image) throw new OpenAiRefusal(400, "Missing required parameter: 'image'.", "image", null);
    const mask = onePicture(form, "mask");
    const fields: Record<string, string> = {};
    for (const [name, value] of form.entries()) if (typeof value === "string") fields[name] = value;
    const parsed = parseEditsRequest(fields, mask !== null);
    const imageBytes = await fileBytes(image, config.FILE_MAX_BYTES);
    const maskBytes = mask && (await fileBytes(mask, config.FILE_MAX_BYTES));
    return {
      n: parsed.n,
      responseFormat: parsed.responseFormat,
      run: (deps, base) => editImages(deps, { ...base, request: parsed, image: imageBytes, mask: maskBytes }),
    };
  });
