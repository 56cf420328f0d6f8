/**
 * The studio's Generate: the same flow as POST /api/generator/generate (startGeneration). From the page's script
 * it answers in place (no redirect, so no history entry); without JavaScript it redirects back to the studio.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { serverForFile } from "../../support/file-server";

setDefaultTimeout(60_000);

const it = serverForFile();

const create = (cookie: string, form: Record<string, string>) =>
  fetch(`${it.server.url}/studio`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: it.server.url, cookie },
    body: new URLSearchParams({ intent: "create", make: "image", ...form }),
  });

const history = async (cookie: string) =>
  (await it.api.post("/api/generator/history", { page: 1, page_size: 20 }, { cookie })).body.data;

test("with the page's script: answered in place, the task made with every option", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("studio-fetch"));
  const r = await create(cookie, {
    via: "fetch",
    offering: "image|openai|dall-e-3",
    prompt: "A harbour, wide",
    opt_size: "1792x1024",
    opt_quality: "hd",
  });
  expect(r.status).toBe(200);
  expect(r.headers.get("location")).toBeNull();
  const [task] = (await history(cookie)).generations;
  expect(task).toMatchObject({ prompt: "A harbour, wide", model: "dall-e-3" });
  const rows = await queryServerDb(it.server.dataDir, "SELECT options FROM generations WHERE id = ?", task.gen_id);
  expect(JSON.parse(String(rows[0]!.options))).toEqual({ size: "1792x1024", quality: "hd" });
});

test("without JavaScript: a redirect back to the studio with the new task", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("studio-nojs"));
  const r = await create(cookie, { offering: "image|replicate|black-forest-labs/flux-schnell", prompt: "A fox" });
  expect(r.status).toBe(302);
  expect(r.headers.get("location")).toMatch(/^\/studio\?created=[0-9a-f-]{36}&/);
});

test("the studio refuses what the API refuses, with the API's message", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("studio-bad"));
  const api = await it.api.post(
    "/api/generator/generate",
    { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "x", options: { size: "7x7" } },
    { cookie },
  );
  expect(api.body.code).not.toBe(0);
  const page = await create(cookie, {
    via: "fetch",
    offering: "image|openai|dall-e-3",
    prompt: "x",
    opt_size: "7x7",
  });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain(api.body.message);
  expect((await history(cookie)).total ?? 0).toBe(0);
});

test("a multipart page form (the composer with a picture) with a NUL in a text field is refused before any action runs", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("studio-nul"));
  const body = new FormData();
  for (const [k, v] of Object.entries({
    intent: "create",
    make: "image",
    offering: "image|replicate|black-forest-labs/flux-schnell",
    prompt: "a\u0000b",
  }))
    body.set(k, v);
  body.set("input_image", new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0])], "x.png", { type: "image/png" }));
  const r = await fetch(`${it.server.url}/studio`, {
    method: "POST",
    redirect: "manual",
    headers: { origin: it.server.url, cookie },
    body,
  });
  expect(r.status).toBe(400);
  expect((await history(cookie)).total ?? 0).toBe(0);
});

test("Variation: the same request with a new seed drawn by the server", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("studio-variation"));
  const flux = {
    via: "fetch",
    variation: "1",
    offering: "image|replicate|black-forest-labs/flux-schnell",
    prompt: "A fox, again",
    opt_aspect_ratio: "16:9",
  };
  for (let i = 0; i < 2; i++) expect((await create(cookie, flux)).status).toBe(200);
  const tasks = (await history(cookie)).generations as { gen_id: string; model: string }[];
  const options = await Promise.all(
    tasks.map(async (t) => {
      const rows = await queryServerDb(it.server.dataDir, "SELECT options FROM generations WHERE id = ?", t.gen_id);
      return JSON.parse(String(rows[0]!.options)) as Record<string, unknown>;
    }),
  );
  const [second, first] = options;
  expect(first).toMatchObject({ aspect_ratio: "16:9" });
  expect(second).toMatchObject({ aspect_ratio: "16:9" });
  expect(typeof first!.seed).toBe("number");
  expect(first!.seed).not.toBe(second!.seed);
});
