/** Provenance's row of the endpoint table (docs/provenance.md). */
import { z } from "zod";
import { VERIFY_LIMIT } from "~/domain/provenance/verify.server";
import { COMMON, type EndpointDef } from "./def.server";

export const PROVENANCE_ENDPOINTS = {
  "/api/provenance/verify": {
    method: "POST",
    tag: "Files",
    summary: "Read a file's Content Credentials",
    description: `Public. \`multipart/form-data\` with one field \`file\` (PNG, JPEG, WebP or MP4, at most FILE_MAX_BYTES): what its C2PA manifest says and whether it validates — \`valid\` false when any byte it binds was changed. \`trusted\` is false for a signer no trust list knows (the self-signed development signer). Nothing is stored; ${VERIFY_LIMIT} files a minute per address.`,
    auth: "none",
    source: "docs/provenance.md",
    multipart: true,
    docBody: z.strictObject({ file: z.string().describe("the file's bytes (binary)") }),
    response: z.strictObject({
      format: z.string(),
      has_manifest: z.boolean(),
      valid: z.boolean(),
      trusted: z.boolean(),
      digital_source_type: z.string().nullable(),
      model: z.string().nullable(),
      action: z.string().nullable(),
      generator: z.string().nullable(),
      signer: z.string().nullable(),
      signed_at: z.string().nullable(),
      ingredients: z.int(),
      failures: z.array(z.string()),
    }),
    errors: ["FILE_REFUSED", "FILE_TOO_LARGE", "FILE_PARAMS", "RATE_LIMITED", ...COMMON],
  },
} as const satisfies Record<string, EndpointDef>;
