/**
 * The history's keyset pages over HTTP (additive, docs/api.md §4.3): `cursor: ""` then each `next_cursor` walks the
 * same entries in the same order as the numbered pages, a task created meanwhile does not shift them, and a forged
 * cursor is `invalid params`. Numbered pages answer exactly as before (no `next_cursor`).
 */
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";

setDefaultTimeout(60_000);

let cookie: string;
const s = serverForFile({ env: { JOBS: "off", SIGNUP_CREDITS: "100" } });
const GENERATE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "a fox" };
const post = async (path: string, body: unknown) => {
  const r = await fetch(s.server.url + path, {
    method: "POST",
    headers: { cookie, origin: s.server.url, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await r.json()) as { code: number; message: string; data: any };
};
beforeAll(async () => {
  cookie = (await s.api.signUp(uniqueEmail("cursor"))).cookie;
  for (let i = 0; i < 7; i++) expect((await post("/api/generator/generate", GENERATE)).code).toBe(0);
});

test("cursor pages walk the numbered pages' entries; a task made meanwhile does not shift them", async () => {
  const numbered = await post("/api/generator/history", { page: 1, page_size: 100 });
  expect(Object.keys(numbered.data).sort()).toEqual(["generations", "page", "page_size", "total"]);
  const want = numbered.data.generations.map((g: { gen_id: string }) => g.gen_id);
  const first = await post("/api/generator/history", { cursor: "", page_size: 3 });
  expect(Object.keys(first.data).sort()).toEqual(["generations", "next_cursor", "page_size", "total"]);
  const seen = first.data.generations.map((g: { gen_id: string }) => g.gen_id);
  expect((await post("/api/generator/generate", GENERATE)).code).toBe(0); // newer than every page below
  let cursor = first.data.next_cursor as string | null;
  while (cursor !== null) {
    const page = await post("/api/generator/history", { cursor, page_size: 3, page: 99 });
    expect(page.code).toBe(0);
    seen.push(...page.data.generations.map((g: { gen_id: string }) => g.gen_id));
    cursor = page.data.next_cursor;
  }
  expect(seen).toEqual(want);
});

test("a cursor the API did not return is invalid params", async () => {
  for (const cursor of ["nope", 7, Buffer.from("1.x y").toString("base64url")]) {
    expect(await post("/api/generator/history", { cursor })).toEqual({
      code: 1,
      message: "invalid params: cursor must be a next_cursor this API returned",
      data: null,
    });
  }
});
