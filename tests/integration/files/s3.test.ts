/**
 * Input files in S3 (docs/api.md §4.17, docs/decisions/123-input-files.md "Where they live"): the whole path against
 * s3rver behind the SigV4-verifying proxy the storage tests use — upload (a signed PUT under `files/`, nothing on
 * local disk), opening by key and by signed link (Atelier reads the object back), use in a task (Replicate's fake is
 * given a presigned URL, fetches it and gets the bytes), delete (the object goes) and the retention sweep (an unused
 * file's object goes, a pinned one stays). SQLite, and PostgreSQL on the ATELIER_TEST_PG run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { sweepExpiredFiles } from "~/domain/files/files.server";
import { signedFileUrl } from "~/domain/files/links.server";
import { DAY_MS } from "~/lib/clock";
import { createFileStore } from "~/storage/files.server";
import { sha256hex } from "../../fakes/common";
import { startReplicateFake } from "../../fakes/replicate";
import { type S3Fake, startS3Fake } from "../../fakes/s3";
import { uniqueEmail } from "../../support/client";
import { openServerDb } from "../../support/db";
import { serverForFile } from "../../support/fixtures";
import { png } from "../../support/images";
import { TEST_AUTH_SECRET } from "../../support/server";
import { until } from "../../support/until";

let s3: S3Fake;
beforeAll(async () => {
  s3 = await startS3Fake();
});
const replicate = startReplicateFake();
replicate.steps = { starting: 0, processing: 0 };
afterAll(async () => {
  await replicate.stop();
  await s3?.stop();
});

const it = serverForFile(() => ({
  env: {
    ...s3.env,
    SIGNUP_CREDITS: "20",
    REPLICATE_API_TOKEN: replicate.token,
    REPLICATE_BASE_URL: replicate.baseUrl,
    OUTBOUND_ALLOW_PRIVATE: "true",
    BETTER_AUTH_SECRET: TEST_AUTH_SECRET,
  },
}));

async function user() {
  const { cookie } = await it.api.signUp(uniqueEmail("s3files"));
  return { apiKey: (await it.api.post("/api/keys/create", { name: "s3" }, { cookie })).body.data.key as string };
}

async function upload(who: { apiKey: string }, bytes: Uint8Array) {
  const r = await it.api.upload(bytes, who);
  expect(r.body.code).toBe(0);
  return r.body.data as { file_id: string; url: string };
}

/** The bucket's object keys under `files/` that the proxy saw written (signed, verified PUTs). */
const putKeys = () =>
  s3.log
    .filter((l) => l.method === "PUT" && l.verified && l.path.startsWith(`/${s3.bucket}/files/`))
    .map((l) => l.path.slice(`/${s3.bucket}/`.length));

/** Whether the object exists, asked the bucket directly (s3rver behind the proxy; the fake bucket is public-read). */
const inBucket = async (key: string) => (await fetch(`${s3.endpoint}/${s3.bucket}/${key}`)).status === 200;

const bytesOf = async (res: Response) => sha256hex(new Uint8Array(await res.arrayBuffer()));

describe("input files on S3", () => {
  const PICTURE = png(40, 30, { fill: (i) => (i * 13) & 255 });

  test("upload → open (key, signed link) → a task's provider fetches the presigned URL → delete → sweep", async () => {
    const u = await user();
    const writes = putKeys().length;
    const used = await upload(u, PICTURE);
    const [usedKey] = putKeys().slice(writes);
    expect(usedKey).toMatch(/^files\/[\w-]+\.png$/);
    expect(await inBucket(usedKey!)).toBe(true);
    expect(existsSync(join(it.server.dataDir, "files"))).toBe(false);

    // Opened by its owner and by a signed link: Atelier reads the object back from the bucket.
    const byKey = await fetch(used.url, { headers: { "x-api-key": u.apiKey } });
    expect({ status: byKey.status, type: byKey.headers.get("content-type") }).toEqual({
      status: 200,
      type: "image/png",
    });
    expect(await bytesOf(byKey)).toBe(sha256hex(PICTURE));
    const link = signedFileUrl(TEST_AUTH_SECRET, used.file_id, Date.now(), 60).replace(
      /^(https?:\/\/[^/]*)?/,
      it.server.url,
    );
    expect(await bytesOf(await fetch(link))).toBe(sha256hex(PICTURE));

    // Used by a task: the provider is handed a presigned URL of the object, which the bucket verifies.
    const r = await it.api.post(
      "/api/generator/generate",
      {
        ai_type: "image",
        provider: "replicate",
        model: "black-forest-labs/flux-kontext-pro",
        prompt: "the same street in snow",
        options: { image: used.file_id },
      },
      u,
    );
    expect(r.body.code).toBe(0);
    const done = await until("the task ends", async () => {
      const q = await it.api.post("/api/generator/query", { gen_id: r.body.data.gen_id }, u);
      return ["completed", "failed"].includes(q.body.data.status) ? q.body.data : undefined;
    });
    expect({ status: done.status, error: done.error_message }).toEqual({ status: "completed", error: undefined });
    const given = replicate.state.fetched[0]!;
    expect(given).toMatchObject({ field: "input_image", contentType: "image/png", sha256: sha256hex(PICTURE) });
    const presigned = new URL(given.url);
    expect(`${presigned.origin}${presigned.pathname}`).toBe(`${s3.endpoint}/${s3.bucket}/${usedKey}`);
    expect(presigned.searchParams.get("X-Amz-Expires")).toBe("3600");
    expect(s3.log.filter((l) => l.presigned).map((l) => [l.path, l.verified])).toContainEqual([
      `/${s3.bucket}/${usedKey}`,
      true,
    ]);
    // The link works for anyone holding it (what a provider does), and only as signed.
    expect(await bytesOf(await fetch(given.url))).toBe(sha256hex(PICTURE));
    const forged = new URL(given.url);
    forged.searchParams.set("X-Amz-Expires", "604800");
    expect((await fetch(forged)).status).toBe(403);

    // Deleted: the row and the object go.
    const before = putKeys().length;
    const dropped = await upload(u, png(8, 8));
    const [droppedKey] = putKeys().slice(before);
    expect(await inBucket(droppedKey!)).toBe(true);
    const del = await it.api.post("/api/files/delete", { file_id: dropped.file_id }, u);
    expect(del.body).toEqual({ code: 0, message: "file deleted", data: { file_id: dropped.file_id, deleted: true } });
    expect(await inBucket(droppedKey!)).toBe(false);

    // Swept: an unused file past FILE_RETENTION_DAYS loses its object; the task's input keeps its.
    const mark = putKeys().length;
    const unused = await upload(u, png(9, 9));
    const [unusedKey] = putKeys().slice(mark);
    const db = await openServerDb(it.server.dataDir);
    try {
      const store = createFileStore({ S3_BUCKET: s3.bucket, dataDir: it.server.dataDir }, s3.env);
      expect(await sweepExpiredFiles(db, store, Date.now() + 8 * DAY_MS)).toBe(1);
    } finally {
      await db.close();
    }
    expect(await inBucket(unusedKey!)).toBe(false);
    expect(await inBucket(usedKey!)).toBe(true);
    const left = (await it.api.post("/api/files/list", {}, u)).body.data.files.map(
      (f: { file_id: string }) => f.file_id,
    );
    expect(left).toEqual([used.file_id]);
    expect(left).not.toContain(unused.file_id);
  });
});
