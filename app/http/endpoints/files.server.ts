/** The input-file rows of the endpoint table: upload, list, delete (docs/api.md "Files"). */
import { z } from "zod";
import { AUTH_ERRORS, COMMON, type EndpointDef, isoTime } from "./def.server";

export const FileSchema = z.strictObject({
  file_id: z
    .string()
    .regex(/^file_/)
    .describe("what an image option (`image`, `image_end`, `mask`) takes"),
  url: z.url().describe("opens the file for its owner (session or X-API-Key); private to everyone else"),
  content_type: z.enum(["image/png", "image/jpeg", "image/webp"]).describe("judged from the bytes"),
  width: z.int(),
  height: z.int(),
  bytes: z.int().describe("stored size, after location and camera metadata were removed"),
  created_at: isoTime(),
  expires_at: isoTime()
    .nullable()
    .describe(
      "when an unused file is removed (FILE_RETENTION_DAYS); null once a task uses it: it then lives as the task",
    ),
});

const FileIdBody = z.strictObject({ file_id: z.string().min(1).max(200) });

const UPLOAD_ERRORS = ["FILE_REFUSED", "FILE_TOO_LARGE", "FILE_QUOTA", "FILE_PARAMS", "CROSS_SITE"] as const;

export const FILE_ENDPOINTS = {
  "/api/files": {
    method: "POST",
    tag: "Files",
    summary: "Upload an input picture",
    description:
      "`multipart/form-data` with one field `file`: a PNG, JPEG or WebP judged by its bytes (never by its name or declared type), at most FILE_MAX_BYTES (20 MB), 40 megapixels and 8,192 pixels a side (read from the header before anything is decoded). Truncated or malformed files are refused; JPEG Exif/XMP (GPS position, camera), PNG and WebP metadata are removed before storing; a JPEG's Exif orientation alone is kept, and width/height are the picture as shown. Each user's files may take FILE_QUOTA_MB (500 MB); uploads are limited to FILE_UPLOAD_LIMIT a minute. A file no task uses is removed after FILE_RETENTION_DAYS (7); once a task uses it, it lives as long as the task. Every refusal is code 1 with HTTP 4xx and stores nothing. A session request must carry the page's Origin.",
    auth: "user",
    source: "docs/api.md Files",
    multipart: true,
    docBody: z.strictObject({ file: z.string().describe("the picture's bytes (binary)") }),
    response: FileSchema,
    successMessage: "file stored",
    errors: [...AUTH_ERRORS, ...UPLOAD_ERRORS, ...COMMON],
  },
  "/api/files/list": {
    method: "POST",
    tag: "Files",
    summary: "List your files",
    description: "Your input files, newest first, paged like the history (page from 1, page_size up to 100).",
    auth: "user",
    source: "docs/api.md Files",
    body: z.object({ page: z.unknown().optional(), page_size: z.unknown().optional() }),
    docBody: z.strictObject({
      page: z.int().min(1).optional().describe("default 1"),
      page_size: z.int().min(1).optional().describe("default 20, at most 100"),
    }),
    response: z.strictObject({ files: z.array(FileSchema), total: z.int(), page: z.int(), page_size: z.int() }),
    errors: [...AUTH_ERRORS, "FILE_PARAMS", ...COMMON],
    example: { page: 1, page_size: 20 },
  },
  "/api/files/delete": {
    method: "POST",
    tag: "Files",
    summary: "Delete a file",
    description:
      "Removes the file and its bytes. Tasks that used it keep their record; their input link stops working.",
    auth: "user",
    source: "docs/api.md Files",
    body: FileIdBody,
    response: z.strictObject({ file_id: z.string(), deleted: z.literal(true) }),
    successMessage: "file deleted",
    errors: [...AUTH_ERRORS, "FILE_NOT_FOUND", "FILE_PARAMS", ...COMMON],
    example: { file_id: "file_…" },
  },
} as const satisfies Record<string, EndpointDef>;
