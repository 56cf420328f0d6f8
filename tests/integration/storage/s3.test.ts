/**
 * S3 result storage ↔ s3rver (a real S3-compatible server from npm) behind a
 * proxy that verifies AWS SigV4 signatures.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseConfig } from "~/lib/config.server";
import { createS3Storage, s3PublicBase } from "~/storage/s3.server";
import { SAMPLE_MP4, SAMPLE_PNG } from "../../fakes/common";
import { type S3Fake, startS3Fake } from "../../fakes/s3";

let s3: S3Fake;
beforeAll(async () => {
  s3 = await startS3Fake();
});
afterAll(() => s3.stop());

const storage = (env: Record<string, string> = {}) => {
  const all = { ...s3.env, ...env };
  return createS3Storage(parseConfig({ S3_BUCKET: all.S3_BUCKET!, S3_PUBLIC_URL: all.S3_PUBLIC_URL }), all);
};

describe("S3 storage", () => {
  test("put stores the bytes with their content type (SigV4-signed) and returns a URL that serves them", async () => {
    const before = s3.log.length;
    const url = await storage().put("gen_abc/0.png", SAMPLE_PNG, "image/png");
    expect(url).toBe(`${s3.endpoint}/${s3.bucket}/gen_abc/0.png`);
    const put = s3.log.slice(before).find((l) => l.method === "PUT")!;
    expect(put).toMatchObject({ path: `/${s3.bucket}/gen_abc/0.png`, signed: true, verified: true });

    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(SAMPLE_PNG))).toBe(true);
  });

  test("video bytes round-trip too", async () => {
    const url = await storage().put("gen_vid/0.mp4", SAMPLE_MP4, "video/mp4");
    const res = await fetch(url);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect((await res.arrayBuffer()).byteLength).toBe(SAMPLE_MP4.byteLength);
  });

  test("S3_PUBLIC_URL decides the result URL (a CDN in front of the bucket)", async () => {
    const url = await storage({ S3_PUBLIC_URL: "https://cdn.example.com/media/" }).put(
      "gen_cdn/0.png",
      SAMPLE_PNG,
      "image/png",
    );
    expect(url).toBe("https://cdn.example.com/media/gen_cdn/0.png");
  });

  test("a wrong secret is refused by the signature check; nothing is stored", async () => {
    await expect(
      storage({ S3_SECRET_ACCESS_KEY: "not-the-secret" }).put("gen_bad/0.png", SAMPLE_PNG, "image/png"),
    ).rejects.toThrow();
    expect(s3.log.at(-1)).toMatchObject({ method: "PUT", signed: true, verified: false });
    expect((await fetch(`${s3.endpoint}/${s3.bucket}/gen_bad/0.png`)).status).toBe(404);
  });

  test("read gives back the bytes behind its own URLs (signed), nothing for another URL or a missing object", async () => {
    const s = storage();
    const url = await s.put("gen_read/0-x.png", SAMPLE_PNG, "image/png");
    expect(Buffer.from((await s.read!(url))!).equals(Buffer.from(SAMPLE_PNG))).toBe(true);
    expect(s3.log.at(-1)).toMatchObject({ method: "GET", signed: true, verified: true });
    expect(await s.read!(`${s3.endpoint}/${s3.bucket}/gen_read/1-missing.png`)).toBeNull();
    expect(await s.read!("https://elsewhere.example/gen_read/0-x.png")).toBeNull();
    expect(await s.read!(`${s3.endpoint}/${s3.bucket}/gen_read/%E0%A4%A`)).toBeNull();
  });

  test("deletePrefix removes every object under the prefix and nothing else", async () => {
    const st = storage();
    await st.put("gen_del/0.png", SAMPLE_PNG, "image/png");
    await st.put("gen_del/1.png", SAMPLE_PNG, "image/png");
    const keep = await st.put("gen_delx/0.png", SAMPLE_PNG, "image/png");
    await st.deletePrefix!("gen_del/");
    expect((await fetch(`${s3.endpoint}/${s3.bucket}/gen_del/0.png`)).status).toBe(404);
    expect((await fetch(`${s3.endpoint}/${s3.bucket}/gen_del/1.png`)).status).toBe(404);
    expect((await fetch(keep)).status).toBe(200);
  });

  test("without an endpoint the URL is the bucket's AWS virtual-hosted URL in its region", () => {
    expect(s3PublicBase({ S3_BUCKET: "b", S3_PUBLIC_URL: undefined }, { S3_REGION: "eu-west-3" })).toBe(
      "https://b.s3.eu-west-3.amazonaws.com",
    );
  });

  test("the fake's verifier is not a pushover: unsigned writes are refused", async () => {
    const res = await fetch(`${s3.endpoint}/${s3.bucket}/anon.png`, { method: "PUT", body: SAMPLE_PNG });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("AccessDenied");
  });
});
