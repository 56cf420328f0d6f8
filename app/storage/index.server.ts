/** Picks the result storage once from configuration (docs/design.md §4). */
import type { Config } from "~/lib/config.server";
import { localStorageFor } from "./local.server";
import { createS3Storage } from "./s3.server";
import type { ResultStorage } from "./types";

export function createStorage(config: Config): ResultStorage {
  if (config.S3_BUCKET) return createS3Storage(config);
  return localStorageFor(config.mediaDir, config.publicUrl);
}
