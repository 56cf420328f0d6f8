/**
 * A takedown with results in an S3 bucket (docs/safety.md "Reports and takedowns"): the objects and their
 * derivatives leave the bucket, and for the minors reason the bytes are first read from the bucket into the local
 * quarantine. The bucket answers for its own URLs (no 410 there: the documented limit); what matters is that the
 * bytes are no longer served from it.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type S3Fake, startS3Fake } from "../../fakes/s3";
import { uniqueEmail } from "../../support/client";
import { serverForFile, signUpAdmin } from "../../support/fixtures";
import { until } from "../../support/until";

let s3: S3Fake;
const ADMIN = "moderator@s3-reports.test";
const s = serverForFile(
  async () => {
    s3 = await startS3Fake();
    return { env: { ...s3.env, SIGNUP_CREDITS: "100", ADMIN_EMAILS: ADMIN, SIMULATOR_DELAY_MS: "50" } };
  },
  () => s3?.stop(),
);

test("remove (sexual_minors) on S3: bytes quarantined from the bucket, then every object of the task deleted", async () => {
  const owner = await s.api.signUp(uniqueEmail("s3owner"));
  const admin = await signUpAdmin(s.server, ADMIN, { via: "mailbox" });
  const gen = (
    await s.api.post(
      "/api/generator/generate",
      { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "bucket" },
      { cookie: owner.cookie },
    )
  ).body.data.gen_id as string;
  const urls = await until("completed", async () => {
    const q = await s.api.post("/api/generator/query", { gen_id: gen }, { cookie: owner.cookie });
    return q.body.data?.status === "completed" ? (q.body.data.result_urls as string[]) : undefined;
  });
  expect(urls[0]).toStartWith(`${s3.endpoint}/${s3.bucket}/${gen}/`);
  const original = new Uint8Array(await (await fetch(urls[0]!)).arrayBuffer());
  expect(original.byteLength).toBeGreaterThan(0);

  const filed = (await s.api.post("/api/reports", { gen_id: gen, reason: "sexual_minors" }, { cookie: owner.cookie }))
    .body.data;
  const resolved = await s.api.post(
    "/api/admin/reports/resolve",
    { report_id: filed.report_id, action: "remove" },
    { cookie: admin.cookie },
  );
  expect(resolved.body.code).toBe(0);
  expect(resolved.body.data.quarantined).toBe(true);
  for (const u of urls) expect((await fetch(u)).status).not.toBe(200);

  const dir = join(s.server.dataDir, "quarantine", gen);
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  expect(manifest.files[0].url).toBe(urls[0]);
  expect(new Uint8Array(readFileSync(join(dir, manifest.files[0].file)))).toEqual(original);
});
