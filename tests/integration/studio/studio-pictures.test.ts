/**
 * The studio's pictures to start from (docs/studio.md "Pictures to start from"): an upload from the composer
 * (`intent=upload`, what the page's script sends), a picture posted with the form (without JavaScript), a result
 * used as a picture (Edit / Animate), and what the studio refuses.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { renderImagePng } from "~/providers/simulator/render.server";
import { uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { serverForFile } from "../../support/file-server";
import { until } from "../../support/until";

setDefaultTimeout(60_000);

const it = serverForFile({ env: { SIMULATOR_DELAY_MS: "0" } });
const PNG = renderImagePng("a small test picture");

/** A multipart post to the studio's action, as the composer (or a plain form) sends it. */
function post(cookie: string, fields: Record<string, string | Blob>, path = "/studio") {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  return fetch(`${it.server.url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { origin: it.server.url, cookie },
    body,
  });
}
const png = (bytes: Uint8Array = PNG) => new File([new Uint8Array(bytes)], "picture.png", { type: "image/png" });
const fileIdIn = (text: string) => text.match(/file_[A-Za-z0-9_-]{8,}/)?.[0];
const optionsOf = async (genId: string) =>
  JSON.parse(
    String((await queryServerDb(it.server.dataDir, "SELECT options FROM generations WHERE id = ?", genId))[0]!.options),
  ) as Record<string, unknown>;
const history = async (cookie: string) =>
  (await it.api.post("/api/generator/history", { page: 1, page_size: 20 }, { cookie })).body.data;

test("an upload from the composer answers the stored file; a picture posted with the form goes with the task", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("studio-upload"));
  // The page's script: stored at once, answered in place with its id (single fetch: /studio.data).
  const up = await post(cookie, { intent: "upload", via: "fetch", slot: "image", file: png() }, "/studio.data");
  expect(up.status).toBe(200);
  const id = fileIdIn(await up.text());
  expect(id).toBeDefined();
  const listed = (await it.api.post("/api/files/list", {}, { cookie })).body.data;
  expect(listed.files.map((f: { file_id: string }) => f.file_id)).toContain(id);

  // Without JavaScript: the file field goes with the form; the task's `image` is the stored file.
  const r = await post(cookie, {
    intent: "create",
    make: "image",
    offering: "image|openai|gpt-image-1",
    prompt: "Make it night",
    // Another picture: the same one again would be the file just stored (docs/api.md §4.17).
    input_image: png(renderImagePng("another test picture")),
  });
  expect(r.status).toBe(302);
  const genId = new URL(r.headers.get("location")!, it.server.url).searchParams.get("created")!;
  const fileId = String((await optionsOf(genId)).image);
  expect(fileId).toMatch(/^file_/);
  expect(fileId).not.toBe(id);
});

test("a picture for a model that takes none is refused, not dropped; a non-image is refused; nothing is charged", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("studio-refuse"));
  const flux = await post(cookie, {
    intent: "create",
    via: "fetch",
    make: "image",
    offering: "image|replicate|black-forest-labs/flux-schnell",
    prompt: "A fox",
    input_image: png(),
  });
  expect(await flux.text()).toContain("does not take a picture");
  const html = new File([new TextEncoder().encode("<html><script>alert(1)</script></html>")], "x.png", {
    type: "image/png",
  });
  const bad = await post(cookie, { intent: "upload", via: "fetch", slot: "image", file: html }, "/studio.data");
  expect(await bad.text()).toContain("not a PNG, JPEG or WebP image");
  expect((await history(cookie)).total ?? 0).toBe(0);
  expect((await it.api.post("/api/files/list", {}, { cookie })).body.data.total).toBe(0);
});

test("Edit: a finished picture of the user's becomes their file; another user's result is not found", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("studio-edit"));
  const made = await it.api.post(
    "/api/generator/generate",
    { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "A lighthouse" },
    { cookie },
  );
  const genId = made.body.data.gen_id as string;
  await until("the picture to finish", async () => {
    const q = await it.api.post("/api/generator/query", { gen_id: genId }, { cookie });
    return q.body.data.status === "completed" ? true : undefined;
  });
  const fields = { intent: "use-result", gen_id: genId, kind: "edit", to: "image|openai|gpt-image-1" };
  // Without JavaScript: to the studio, the draft in the address (model and picture).
  const nojs = await post(cookie, fields);
  expect(nojs.status).toBe(302);
  const to = new URL(nojs.headers.get("location")!, it.server.url);
  expect(to.searchParams.get("model")).toBe("image|openai|gpt-image-1");
  expect(to.searchParams.get("opt_image")).toMatch(/^file_/);
  // The studio opens with that picture in the composer.
  const page = await (await fetch(to, { headers: { cookie } })).text();
  expect(page).toContain(`/files/${to.searchParams.get("opt_image")}`);

  const other = await it.api.signUp(uniqueEmail("studio-edit-other"));
  const stolen = await post(other.cookie, { ...fields, via: "fetch" }, "/studio.data");
  expect(await stolen.text()).toContain("generation not found");
  expect((await it.api.post("/api/files/list", {}, { cookie: other.cookie })).body.data.total).toBe(0);
});

test("a result's 'started from' picture is the file its task pinned (inputs), not whatever its options say", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("studio-previews"));
  const r = await post(cookie, {
    intent: "create",
    make: "image",
    offering: "image|openai|gpt-image-1",
    prompt: "Make it dusk",
    input_image: png(),
  });
  const genId = new URL(r.headers.get("location")!, it.server.url).searchParams.get("created")!;
  const fileId = String((await optionsOf(genId)).image);
  // The options are the request as written; the page must not send a browser to an address found there.
  await queryServerDb(
    it.server.dataDir,
    "UPDATE generations SET options = ? WHERE id = ?",
    JSON.stringify({ image: "https://tracker.example/pixel.png" }),
    genId,
  );
  for (const path of ["/studio", `/studio/${genId}`]) {
    const html = await (await fetch(`${it.server.url}${path}`, { headers: { cookie } })).text();
    expect(html).toContain(`/files/${fileId}`);
    expect(html).not.toContain('src="https://tracker.example');
  }
});
