/**
 * Result storage in an S3-compatible bucket (docs/design.md §4), through Bun's S3
 * client. The bucket is S3_BUCKET; credentials, endpoint and region come from
 * Bun's own variables (S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_ENDPOINT,
 * S3_REGION, S3_SESSION_TOKEN — or their AWS_* twins, which Bun also reads).
 * Result URLs are S3_PUBLIC_URL/<key> when set (a CDN or a public bucket
 * domain), else the object's path-style URL on the endpoint.
 */
import { S3Client } from "bun";
import type { Config } from "~/lib/config.server";
import { storedMediaType } from "./serve.server";
import type { ResultStorage } from "./types";

type Env = Record<string, string | undefined>;

/** Encodes each path segment of a key (keys are `<gen_id>/<n>.<ext>`; never trust that). */
const encodeKey = (key: string) => key.split("/").map(encodeURIComponent).join("/");

export function s3PublicBase(config: Pick<Config, "S3_BUCKET" | "S3_PUBLIC_URL">, env: Env): string {
  if (config.S3_PUBLIC_URL) return config.S3_PUBLIC_URL.replace(/\/+$/, "");
  const bucket = config.S3_BUCKET!;
  const endpoint = (env.S3_ENDPOINT ?? env.AWS_ENDPOINT)?.replace(/\/+$/, "");
  if (endpoint) return `${endpoint}/${encodeURIComponent(bucket)}`;
  const region = env.S3_REGION ?? env.AWS_REGION ?? "us-east-1";
  return `https://${bucket}.s3.${region}.amazonaws.com`;
}

export function createS3Storage(config: Config, env: Env = process.env): ResultStorage {
  const bucket = config.S3_BUCKET;
  if (!bucket) throw new Error("S3_BUCKET is not set");
  const client = new S3Client({
    bucket,
    accessKeyId: env.S3_ACCESS_KEY_ID ?? env.AWS_ACCESS_KEY_ID,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? env.AWS_SECRET_ACCESS_KEY,
    sessionToken: env.S3_SESSION_TOKEN ?? env.AWS_SESSION_TOKEN,
    endpoint: env.S3_ENDPOINT ?? env.AWS_ENDPOINT,
    region: env.S3_REGION ?? env.AWS_REGION,
  });
  const base = s3PublicBase(config, env);

  return {
    kind: "s3",

    async put(key, bytes, contentType) {
      await client.write(key, bytes, { type: storedMediaType(contentType) });
      return `${base}/${encodeKey(key)}`;
    },

    // A result's own bytes by its URL (the studio's Edit and Animate), read with the bucket's credentials.
    async read(url) {
      if (!url.startsWith(`${base}/`)) return null;
      let key: string;
      try {
        key = url
          .slice(base.length + 1)
          .split("/")
          .map(decodeURIComponent)
          .join("/");
      } catch {
        return null;
      }
      const file = client.file(key);
      return (await file.exists()) ? new Uint8Array(await file.arrayBuffer()) : null;
    },

    async deletePrefix(prefix) {
      let continuationToken: string | undefined;
      do {
        const page = await client.list({ prefix, continuationToken, maxKeys: 1000 });
        // One at a time: a task has a handful of files, and some S3-compatible servers trip over parallel deletes in one prefix.
        for (const o of page.contents ?? []) await client.delete(o.key);
        continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
      } while (continuationToken);
    },
  };
}
