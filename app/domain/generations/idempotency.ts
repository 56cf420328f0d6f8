/** Idempotency-Key on generate (docs/design.md §10): the header and the request fingerprint. */
import { createHash } from "node:crypto";
import { AppError } from "~/lib/errors";

export const IDEMPOTENCY_HEADER = "idempotency-key";
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The header's value, or undefined when absent; 1–255 visible ASCII characters (a UUID is typical). */
export function parseIdempotencyKey(value: string | null): string | undefined {
  if (value === null) return undefined;
  if (value.length === 0 || value.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(value)) {
    throw new AppError("INVALID_PARAMS", {
      reason: `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters`,
    });
  }
  return value;
}

/** JSON with object keys sorted at every level: the same request in any key order hashes the same. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

export const requestHash = (body: unknown) => createHash("sha256").update(canonicalJson(body)).digest("hex");
