/** Storing a task's results: downloaded (URL assets) and written to the result storage under unguessable names. */
import { randomBytes } from "node:crypto";
import { log } from "~/lib/log.server";
import { downloadAsset, MAX_ASSETS_PER_TASK } from "~/providers/http.server";
import { ProviderError, type ProviderVerdict, type ResultAsset } from "~/providers/types";
import type { ResultStorage } from "~/storage/types";

const EXT: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
  "video/mp4": "mp4",
  "video/webm": "webm",
  "video/quicktime": "mov",
};

/** Writing a result file failed (disk full, read-only or missing media folder, bucket refused): not the provider's fault. */
export class StorageError extends Error {
  constructor(
    readonly key: string,
    readonly cause: unknown,
  ) {
    super(`storing ${key} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "StorageError";
  }
}

/** One downloaded result, before the pipeline's steps (app/domain/results/). */
export interface FetchedResult {
  index: number;
  bytes: Uint8Array;
  contentType: string;
  verdict?: ProviderVerdict;
}

/**
 * Downloads (URL assets) the results, at most MAX_ASSETS_PER_TASK (the rest are dropped with a warning), in order.
 */
export async function fetchResults(
  genId: string,
  assets: ResultAsset[],
  signal: AbortSignal,
  download: { allowPrivate?: boolean; maxBytes?: number } = {},
): Promise<FetchedResult[]> {
  if (assets.length === 0)
    throw new ProviderError("bad_response", "the provider returned no results", { retryable: false });
  if (assets.length > MAX_ASSETS_PER_TASK) {
    log.warn("provider returned more results than a task keeps", {
      gen_id: genId,
      returned: assets.length,
      kept: MAX_ASSETS_PER_TASK,
    });
  }
  const fetched: FetchedResult[] = [];
  for (const [index, asset] of assets.slice(0, MAX_ASSETS_PER_TASK).entries()) {
    const { bytes, contentType } = await downloadAsset(asset, signal, download);
    fetched.push({ index, bytes, contentType, verdict: asset.verdict });
  }
  return fetched;
}

/**
 * Stores the files as `<gen_id>/<n>-<random>.<ext>`; returns their keys and public URLs in order.
 */
export async function storeFiles(
  storage: ResultStorage,
  genId: string,
  files: readonly { bytes: Uint8Array; contentType: string }[],
): Promise<{ key: string; url: string }[]> {
  // Unguessable names: a file written for a task that then does not complete (canceled meanwhile) is never
  // reachable, since its URL is only handed out in the result_urls of a completed, charged task.
  const nonce = randomBytes(12).toString("base64url");
  const stored: { key: string; url: string }[] = [];
  for (const [i, file] of files.entries()) {
    const ext = EXT[file.contentType] ?? "bin";
    const key = `${genId}/${i}-${nonce}.${ext}`;
    try {
      stored.push({ key, url: await storage.put(key, file.bytes, file.contentType) });
    } catch (error) {
      throw new StorageError(key, error);
    }
  }
  return stored;
}

/** Downloads and stores the results without the pipeline's steps; returns their public URLs in order. */
export async function storeResults(
  storage: ResultStorage,
  genId: string,
  assets: ResultAsset[],
  signal: AbortSignal,
  download: { allowPrivate?: boolean; maxBytes?: number } = {},
): Promise<string[]> {
  const fetched = await fetchResults(genId, assets, signal, download);
  return (await storeFiles(storage, genId, fetched)).map((s) => s.url);
}
