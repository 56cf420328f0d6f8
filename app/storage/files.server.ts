/**
 * Where uploaded input pictures live: beside the results (docs/design.md §4), so every node sees them — on local disk
 * under DATA_DIR/files (outside DATA_DIR/media, which /media serves to anyone holding a link), or in the results'
 * S3 bucket under `files/`. Unlike results they are private: Atelier serves them itself (app/routes/files.ts) to
 * their owner or to a signed link; on S3 a provider is given a presigned URL instead.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { S3Client } from "bun";
import type { Config } from "~/lib/config.server";
import { resolveKey } from "./local.server";

type Env = Record<string, string | undefined>;

export interface FileStore {
  readonly kind: "local" | "s3";
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The bytes, or null when nothing is stored under the key. */
  get(key: string): Promise<Uint8Array<ArrayBuffer> | null>;
  /** Removes the object (no error when it is already gone). */
  delete(key: string): Promise<void>;
  /** A URL anyone may fetch for `seconds` (S3: presigned); null when the store has none (local: use a signed link). */
  presignedUrl(key: string, seconds: number): string | null;
}

export function createFileStore(config: Pick<Config, "S3_BUCKET" | "dataDir">, env: Env = process.env): FileStore {
  if (config.S3_BUCKET) return s3FileStore(config.S3_BUCKET, env);
  return localFileStore(join(config.dataDir, "files"));
}

export function localFileStore(root: string): FileStore {
  const path = (key: string) => {
    const file = resolveKey(root, key);
    if (!file) throw new Error(`unsafe file key: ${key}`);
    return file;
  };
  return {
    kind: "local",
    async put(key, bytes) {
      await Bun.write(path(key), bytes);
    },
    async get(key) {
      const file = Bun.file(path(key));
      return (await file.exists()) ? new Uint8Array(await file.arrayBuffer()) : null;
    },
    async delete(key) {
      await rm(path(key), { force: true });
    },
    presignedUrl: () => null,
  };
}

function s3FileStore(bucket: string, env: Env): FileStore {
  const client = new S3Client({
    bucket,
    accessKeyId: env.S3_ACCESS_KEY_ID ?? env.AWS_ACCESS_KEY_ID,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? env.AWS_SECRET_ACCESS_KEY,
    sessionToken: env.S3_SESSION_TOKEN ?? env.AWS_SESSION_TOKEN,
    endpoint: env.S3_ENDPOINT ?? env.AWS_ENDPOINT,
    region: env.S3_REGION ?? env.AWS_REGION,
  });
  return {
    kind: "s3",
    async put(key, bytes, contentType) {
      await client.write(key, bytes, { type: contentType });
    },
    async get(key) {
      const file = client.file(key);
      try {
        return new Uint8Array(await file.arrayBuffer());
      } catch (error) {
        if ((error as { code?: string })?.code === "NoSuchKey") return null;
        throw error;
      }
    },
    async delete(key) {
      await client.delete(key);
    },
    presignedUrl: (key, seconds) => client.presign(key, { expiresIn: seconds, method: "GET" }),
  };
}
