/** Picks the result storage once from configuration (DESIGN §4). */
import type { Config } from "~/lib/config.server";
import { localStorageFor } from "./local.server";
import type { ResultStorage } from "./types";

export function createStorage(config: Config): ResultStorage {
  // S3: when config.S3_BUCKET is set, return the S3-compatible storage here (issue 5).
  return localStorageFor(config.mediaDir, config.publicUrl);
}
