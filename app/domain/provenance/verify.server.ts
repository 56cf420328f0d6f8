/**
 * POST /api/provenance/verify and /verify (docs/provenance.md): anyone may ask what a file's Content Credentials say.
 * The file is judged by its bytes (PNG, JPEG, WebP, MP4), read by the C2PA SDK's Reader, never stored; a per-address
 * limit bounds the work (VERIFY_LIMIT a minute).
 */
import { readCredentials } from "~/domain/provenance/c2pa.server";
import { AppError } from "~/lib/errors";

export const VERIFY_LIMIT = 20;

/** The format of a file by its first bytes, or null when it is none Atelier signs. */
export function formatOf(b: Uint8Array): string | null {
  const at = (i: number, s: string) => [...s].every((c, k) => b[i + k] === c.charCodeAt(0));
  if (b.length >= 8 && b[0] === 0x89 && at(1, "PNG")) return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 12 && at(0, "RIFF") && at(8, "WEBP")) return "image/webp";
  if (b.length >= 12 && at(4, "ftyp")) return "video/mp4";
  return null;
}

export async function verifyFile(bytes: Uint8Array) {
  const format = formatOf(bytes);
  if (!format) throw new AppError("FILE_REFUSED", { reason: "not a PNG, JPEG, WebP or MP4 file" });
  const c = await readCredentials(bytes, format);
  return {
    format,
    has_manifest: c.hasManifest,
    valid: c.valid,
    trusted: c.trusted,
    digital_source_type: c.digitalSourceType ?? null,
    model: c.model ?? null,
    action: c.action ?? null,
    generator: c.generator ?? null,
    signer: c.signer?.commonName ?? null,
    signed_at: c.signedAt ?? null,
    ingredients: c.ingredients,
    failures: c.failures.map((f) => f.code),
  };
}
