/**
 * Where result files live (docs/design.md §4): local disk under DATA_DIR/media served
 * at /media/…, or an S3-compatible bucket when S3_BUCKET is set. Chosen once
 * from configuration.
 */
export interface ResultStorage {
  readonly kind: "local" | "s3";
  /** Stores the bytes under `key` (e.g. `<gen_id>/0-<random>.png`) and returns the absolute public URL. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<string>;
  /** The bytes behind a URL `put` returned, when this storage can read them itself (null: not one of its URLs). */
  read?(url: string): Promise<Uint8Array | null>;
  /** Removes everything stored under a key prefix (best effort). */
  deletePrefix?(prefix: string): Promise<void>;
}
