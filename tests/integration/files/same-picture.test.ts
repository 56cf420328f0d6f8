/**
 * The same picture stored again is the user's existing file (docs/api.md §4.17): an upload repeated, uploads of one
 * picture at once, the studio's Edit and Animate on one result (and that result uploaded by hand) all give one file,
 * one stored object, counted once against FILE_QUOTA_MB. Another user's identical picture is never theirs.
 * SQLite, and PostgreSQL on the ATELIER_TEST_PG run (where the user's row lock keeps simultaneous uploads to one row).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/fixtures";
import { png } from "../../support/images";
import { until } from "../../support/until";

const it = serverForFile({
  env: { SIMULATOR_DELAY_MS: "0", SIGNUP_CREDITS: "20", FILE_QUOTA_MB: "1", FILE_UPLOAD_LIMIT: "60" },
});

async function user() {
  const { cookie } = await it.api.signUp(uniqueEmail("same"));
  const apiKey = (await it.api.post("/api/keys/create", { name: "same" }, { cookie })).body.data.key as string;
  return { cookie, apiKey };
}

const upload = (who: { apiKey: string }, bytes: Uint8Array) => it.api.upload(bytes, who);

const objects = () => {
  try {
    return readdirSync(join(it.server.dataDir, "files", "files")).length;
  } catch {
    return 0;
  }
};
const list = async (who: { apiKey: string }) => (await it.api.post("/api/files/list", {}, who)).body.data;

/** An incompressible PNG of about `kb` KB (deflate level 0 over varied bytes), different for each `seed`. */
const big = (kb: number, seed: number) => {
  const side = Math.ceil(Math.sqrt((kb * 1024) / 3));
  return png(side, side, { level: 0, fill: (i) => (i * 2654435761 + seed * 97) >>> 24 });
};

describe("the same picture again", () => {
  test("a repeated upload is the same file: one object, counted once against the quota", async () => {
    const u = await user();
    const before = objects();
    const picture = big(600, 1); // 60 % of the 1 MB quota
    const first = await upload(u, picture);
    expect(first.body.code).toBe(0);
    const again = await upload(u, picture);
    const { expires_at: firstExpiry, ...firstFile } = first.body.data;
    const { expires_at: againExpiry, ...againFile } = again.body.data;
    expect(againFile).toEqual(firstFile);
    // Uploaded again: kept a full FILE_RETENTION_DAYS from now.
    expect(Date.parse(againExpiry)).toBeGreaterThanOrEqual(Date.parse(firstExpiry));
    expect(objects()).toBe(before + 1);
    expect((await list(u)).total).toBe(1);
    // Two copies would be 120 % of the quota; another picture of the same size still is.
    const other = await upload(u, big(600, 2));
    expect({ status: other.status, message: other.body.message }).toEqual({
      status: 413,
      message: "file storage full: your files may take at most 1 MB",
    });
  });

  test("uploads of one picture at once make one file", async () => {
    const u = await user();
    const before = objects();
    const picture = png(33, 21, { fill: (i) => i & 255 });
    const all = await Promise.all(Array.from({ length: 6 }, () => upload(u, picture)));
    const ids = new Set(all.map((r) => r.body.data?.file_id));
    expect({ codes: all.map((r) => r.body.code), ids: ids.size }).toEqual({ codes: [0, 0, 0, 0, 0, 0], ids: 1 });
    expect((await list(u)).total).toBe(1);
    expect(objects()).toBe(before + 1);
  });

  test("another user's identical picture is their own file; deleting it leaves the first user's", async () => {
    const a = await user();
    const b = await user();
    const picture = png(17, 9, { fill: (i) => (i * 3) & 255 });
    const fa = (await upload(a, picture)).body.data;
    const fb = (await upload(b, picture)).body.data;
    expect(fb.file_id).not.toBe(fa.file_id);
    await it.api.post("/api/files/delete", { file_id: fb.file_id }, b);
    const opened = await fetch(fa.url, { headers: { "x-api-key": a.apiKey } });
    expect(opened.status).toBe(200);
    expect((await list(a)).files.map((f: { file_id: string }) => f.file_id)).toEqual([fa.file_id]);
  });

  test("Edit and Animate on one result, and the result uploaded by hand, are one file", async () => {
    const u = await user();
    const made = await it.api.post(
      "/api/generator/generate",
      { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "a lighthouse at dusk" },
      u,
    );
    expect(made.body.code).toBe(0);
    const genId = made.body.data.gen_id as string;
    const done = await until("the picture to finish", async () => {
      const q = await it.api.post("/api/generator/query", { gen_id: genId }, u);
      return q.body.data.status === "completed" ? q.body.data : undefined;
    });
    const startFrom = async (kind: string, to: string) => {
      const body = new FormData();
      for (const [k, v] of Object.entries({ intent: "use-result", gen_id: genId, kind, to })) body.set(k, v);
      const res = await fetch(`${it.server.url}/studio`, {
        method: "POST",
        redirect: "manual",
        headers: { origin: it.server.url, cookie: u.cookie },
        body,
      });
      expect(res.status).toBe(302);
      return new URL(res.headers.get("location")!, it.server.url).searchParams.get("opt_image");
    };
    const before = objects();
    const edit = await startFrom("edit", "image|openai|gpt-image-1");
    expect(edit).toMatch(/^file_/);
    expect(await startFrom("edit", "image|openai|gpt-image-1")).toBe(edit);
    expect(await startFrom("animate", "video|kling|kling-v1")).toBe(edit);
    const result = new Uint8Array(await (await fetch(done.result_urls[0])).arrayBuffer());
    expect((await upload(u, result)).body.data.file_id).toBe(edit);
    expect((await list(u)).total).toBe(1);
    expect(objects()).toBe(before + 1);
  });
});
