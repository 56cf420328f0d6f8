/**
 * File URLs (docs/decisions/123-input-files.md). `url` of a file is `<PUBLIC_URL>/files/<file_id>`: it opens for the
 * file's owner (session or X-API-Key). A signed link adds `?expires=<unix seconds>&sig=<HMAC>` and opens for anyone
 * until it expires — what a provider is given to fetch an input. The HMAC-SHA256 key is derived from the server
 * secret (BETTER_AUTH_SECRET), so every node checks every node's links and no link outlives a secret rotation.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { linkBase } from "~/domain/generations/links";

/** How long a signed link given to a provider works. */
export const SIGNED_LINK_SECONDS = 3600;

const keys = new Map<string, Buffer>();
function linkKey(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = createHmac("sha256", secret).update("atelier file links v1").digest();
    keys.set(secret, key);
  }
  return key;
}

const signature = (secret: string, fileId: string, expires: number) =>
  createHmac("sha256", linkKey(secret)).update(`${fileId}.${expires}`).digest();

/** The owner's URL of a file. */
export const fileUrl = (fileId: string) => `${linkBase()}/files/${encodeURIComponent(fileId)}`;

/** A link that opens the file for anyone until `nowMs + seconds`. */
export function signedFileUrl(secret: string, fileId: string, nowMs: number, seconds = SIGNED_LINK_SECONDS): string {
  if (!secret) throw new Error("signed file links need the server secret (BETTER_AUTH_SECRET)");
  const expires = Math.floor(nowMs / 1000) + seconds;
  return `${fileUrl(fileId)}?expires=${expires}&sig=${signature(secret, fileId, expires).toString("base64url")}`;
}

/** Whether `expires` and `sig` (from the URL) sign this file and have not expired. */
export function verifyFileLink(
  secret: string,
  fileId: string,
  expires: string | null,
  sig: string | null,
  nowMs: number,
): boolean {
  if (!secret || !expires || !sig || !/^\d{1,12}$/.test(expires)) return false;
  const at = Number(expires);
  if (at * 1000 <= nowMs) return false;
  const given = Buffer.from(sig, "base64url");
  const expected = signature(secret, fileId, at);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * A task's `inputs` as clients see them (query, history, webhook payloads): option name → the owner's URL of the file.
 * Null when the task has none (the field is then left out, as before inputs existed).
 */
export function inputsView(stored: string | null | undefined): Record<string, string> | null {
  if (!stored) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const out: Record<string, string> = {};
  for (const [name, id] of Object.entries(parsed)) if (typeof id === "string") out[name] = fileUrl(id);
  return Object.keys(out).length ? out : null;
}
