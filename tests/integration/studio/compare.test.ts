/**
 * Compare in the studio (docs/studio.md "Compare"): one prompt on two to four models, each its own task charged at
 * its own price, created together or not at all (app/domain/studio/compare.server.ts).
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { serverForFile } from "../../support/file-server";
import { until } from "../../support/until";

setDefaultTimeout(60_000);

// New accounts hold 10 credits (SIGNUP_CREDITS' default).
const it = serverForFile({ env: { SIMULATOR_DELAY_MS: "0" } });

const DALLE = "image|openai|dall-e-3"; // 5 credits
const FLUX = "image|replicate|black-forest-labs/flux-schnell"; // 3
const KLING = "image|kling|kling-v1"; // 4
const GPT = "image|openai|gpt-image-1"; // 8
const FAL = "image|fal|fal-ai/flux/dev";

function compare(cookie: string, models: string[], extra: Record<string, string> = {}) {
  const body = new URLSearchParams({
    intent: "create",
    make: "image",
    offering: DALLE,
    prompt: "A lighthouse at dusk",
  });
  for (const [k, v] of Object.entries(extra)) body.set(k, v);
  // The compare button is the submitter: its intent follows the form's hidden one.
  body.append("intent", "compare");
  for (const m of models) body.append("compare", m);
  const fetchVia = extra.via === "fetch";
  return fetch(`${it.server.url}${fetchVia ? "/studio.data" : "/studio"}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: it.server.url, cookie },
    body,
  });
}

const tasksOf = (userId: string) =>
  queryServerDb(
    it.server.dataDir,
    "SELECT id, model, credits_cost, compare_id, status, prompt FROM generations WHERE user_id = ? ORDER BY created_at, id",
    userId,
  );
const credits = async (cookie: string) =>
  (await it.api.post("/api/get-user-credits", {}, { cookie })).body.data as { left_credits: number };

test("two to four models: each its own task at its own price, one comparison id, all held until delivered", async () => {
  const { cookie, userId } = await it.api.signUp(uniqueEmail("compare-ok"));
  const r = await compare(cookie, [DALLE, FLUX], { via: "fetch" });
  expect(r.status).toBe(200);
  const rows = await tasksOf(userId);
  expect(rows.map((t) => [t.model, Number(t.credits_cost)])).toEqual([
    ["dall-e-3", 5],
    ["black-forest-labs/flux-schnell", 3],
  ]);
  expect(rows[0]!.compare_id).toMatch(/^cmp_/);
  expect(rows[1]!.compare_id).toBe(rows[0]!.compare_id);
  expect(new Set(rows.map((t) => t.prompt))).toEqual(new Set(["A lighthouse at dusk"]));
  // Each is charged as its own task when it is delivered: 8 of 10 spent.
  await until("both results", async () => {
    const done = (await tasksOf(userId)).every((t) => t.status === "completed");
    return done ? true : undefined;
  });
  await until("both debits", async () => ((await credits(cookie)).left_credits === 2 ? true : undefined));
  const debits = await queryServerDb(
    it.server.dataDir,
    "SELECT gen_id, amount FROM credit_debits WHERE user_id = ? ORDER BY amount",
    userId,
  );
  expect(debits.map((d) => [d.gen_id, Number(d.amount)])).toEqual([
    [rows[1]!.id, 3],
    [rows[0]!.id, 5],
  ]);
  // Each picture's placeholder (a ThumbHash) is kept once it is stored, and the page carries it.
  const kept = await until("both placeholders", async () => {
    const p = await queryServerDb(it.server.dataDir, "SELECT placeholder FROM generations WHERE user_id = ?", userId);
    return p.every((r) => r.placeholder) ? p.map((r) => String(r.placeholder)) : undefined;
  });
  // The studio shows them in one row, each named by its model.
  const html = await (await fetch(`${it.server.url}/studio`, { headers: { cookie } })).text();
  expect(html).toContain(`data-compare="${rows[0]!.compare_id}"`);
  // (its longest run without "/", which a script may escape)
  for (const hash of kept) expect(html).toContain(hash.split("/").sort((a, b) => b.length - a.length)[0]!);
});

test("without JavaScript: a redirect back to the studio with the first task", async () => {
  const { cookie, userId } = await it.api.signUp(uniqueEmail("compare-nojs"));
  const r = await compare(cookie, [FLUX, KLING]);
  expect(r.status).toBe(302);
  const rows = await tasksOf(userId);
  expect(r.headers.get("location")).toStartWith(`/studio?created=${rows[0]!.id}&`);
  expect(rows).toHaveLength(2);
});

test("a refused selection says why and creates nothing", async () => {
  const { cookie, userId } = await it.api.signUp(uniqueEmail("compare-bad"));
  const cases: [string[], string][] = [
    [[DALLE, FLUX, KLING, GPT, FAL], "compare up to 4 models at once (5 chosen)"],
    [[DALLE], "choose 2 to 4 models to compare"],
    [[FLUX, FLUX], "is chosen twice: compare each model once"],
    [[FLUX, "video|kling|kling-v1"], "compare images with images, or videos with videos"],
    [["video|kling|kling-v1", "video|runway|gen4_turbo"], "starts from a picture and cannot be compared on a prompt"],
    [[FLUX, "image|nobody|nothing"], "unknown model to compare: image|nobody|nothing"],
  ];
  for (const [models, message] of cases) {
    const r = await compare(cookie, models, { via: "fetch" });
    expect(r.status).toBe(200);
    expect(await r.text()).toContain(message);
  }
  const empty = await compare(cookie, [FLUX, KLING], { via: "fetch", prompt: "  " });
  expect(await empty.text()).toContain("Describe what to create");
  expect(await tasksOf(userId)).toHaveLength(0);
  expect((await credits(cookie)).left_credits).toBe(10);
});

test("not enough credits for the total: nothing is created, though each model alone is affordable", async () => {
  const { cookie, userId } = await it.api.signUp(uniqueEmail("compare-short"));
  // 5 + 3 + 4 = 12 of 10.
  const r = await compare(cookie, [DALLE, FLUX, KLING], { via: "fetch" });
  const text = await r.text();
  expect(text).toContain("shortfall");
  expect(text).toMatch(/"need",12/);
  expect(await tasksOf(userId)).toHaveLength(0);
  expect((await credits(cookie)).left_credits).toBe(10);
  // Without JavaScript the same answer, in the page.
  const page = await compare(cookie, [DALLE, FLUX, KLING]);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("12 credits");
  expect(await tasksOf(userId)).toHaveLength(0);
});
