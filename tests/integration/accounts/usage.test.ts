/**
 * POST /api/usage (docs/usage.md): credits charged and task counts by day, model and key; the credits equal the
 * ledger (the debits of the user's tasks, and lifetime credits minus the balance).
 */
import { describe, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { serverForFile } from "../../support/file-server";

const KLING = { ai_type: "image", provider: "kling", model: "kling-v1" }; // 4 credits
const FLUX = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" }; // 3 credits

const it = serverForFile({ env: { SIGNUP_CREDITS: "100", SIMULATOR_DELAY_MS: "100", JOB_TICK_MS: "50" } });

async function settle(cookie: string, ids: string[]) {
  for (const id of ids) {
    for (let i = 0; i < 300; i++) {
      const s = (await it.api.post("/api/generator/query", { gen_id: id }, { cookie })).body.data.status;
      if (s === "completed" || s === "failed") break;
      await Bun.sleep(50);
    }
  }
}

describe("POST /api/usage", () => {
  test("by day, model and key; sums equal the ledger", async () => {
    const { cookie, userId } = await it.api.signUp(uniqueEmail("usage"));
    const key = (await it.api.post("/api/keys/create", { name: "script" }, { cookie })).body.data;
    const ids: string[] = [];
    const gen = async (body: object, auth: object) =>
      ids.push((await it.api.post("/api/generator/generate", body, auth)).body.data.gen_id);
    await gen({ ...KLING, prompt: "a" }, { cookie });
    await gen({ ...KLING, prompt: "b" }, { apiKey: key.key });
    await gen({ ...FLUX, prompt: "c" }, { apiKey: key.key });
    await gen({ ...FLUX, prompt: "d [simulate:fail]" }, { apiKey: key.key });
    await gen({ ...FLUX, prompt: "e [simulate:slow]" }, { cookie });
    await it.api.post("/api/generator/cancel", { gen_id: ids[4] }, { cookie });
    await settle(cookie, ids);

    const byDay = (await it.api.post("/api/usage", {}, { apiKey: key.key })).body.data;
    expect(byDay.group_by).toBe("day");
    expect(byDay.total).toEqual({ credits: 11, completed: 3, failed: 1, canceled: 1 });
    expect(byDay.rows).toEqual([
      { day: new Date().toISOString().slice(0, 10), credits: 11, completed: 3, failed: 1, canceled: 1 },
    ]);
    const [ledger] = await queryServerDb<{ n: number }>(
      it.server.dataDir,
      "SELECT COALESCE(SUM(charged), 0) AS n FROM credit_debits WHERE user_id = ?",
      userId,
    );
    expect(Number(ledger!.n)).toBe(11);
    const credits = (await it.api.post("/api/get-user-credits", undefined, { cookie })).body.data;
    expect(credits.total_credits - credits.left_credits).toBe(11);

    const byModel = (await it.api.post("/api/usage", { group_by: "model" }, { cookie })).body.data.rows;
    expect(byModel).toEqual([
      { ai_type: "image", provider: "kling", model: "kling-v1", credits: 8, completed: 2, failed: 0, canceled: 0 },
      {
        ai_type: "image",
        provider: "replicate",
        model: "black-forest-labs/flux-schnell",
        credits: 3,
        completed: 1,
        failed: 1,
        canceled: 1,
      },
    ]);
    const byKey = (await it.api.post("/api/usage", { group_by: "key" }, { cookie })).body.data.rows;
    expect(byKey).toEqual([
      { key_id: key.key_id, key_name: "script", credits: 7, completed: 2, failed: 1, canceled: 0 },
      { key_id: null, key_name: null, credits: 4, completed: 1, failed: 0, canceled: 1 },
    ]);
  });

  test("a window without tasks is empty; bad windows are refused; another user's tasks never show", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("usage-empty"));
    const r = await it.api.post("/api/usage", { from: "2020-01-01T00:00:00Z", to: "2020-01-31T00:00:00Z" }, { cookie });
    expect(r.body.data.rows).toEqual([]);
    expect(r.body.data.total).toEqual({ credits: 0, completed: 0, failed: 0, canceled: 0 });
    const backwards = await it.api.post(
      "/api/usage",
      { from: "2020-02-01T00:00:00Z", to: "2020-01-01T00:00:00Z" },
      {
        cookie,
      },
    );
    expect(backwards.body.message).toBe("invalid params: from must be before to");
    const long = await it.api.post(
      "/api/usage",
      { from: "2020-01-01T00:00:00Z", to: "2022-01-01T00:00:00Z" },
      {
        cookie,
      },
    );
    expect(long.body.message).toBe("invalid params: at most 366 days per request");
    expect((await it.api.post("/api/usage", { group_by: "week" }, { cookie })).body.message).toBe("invalid params");
  });
});

describe("the account page's usage", () => {
  test("a chart of credits per day (SVG, no script needed), the totals and a table of active days", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("usage-page"));
    const empty = await (await fetch(`${it.server.url}/account`, { headers: { cookie } })).text();
    expect(empty).toContain("No tasks in the last 30 days");
    const ids = [
      (await it.api.post("/api/generator/generate", { ...KLING, prompt: "a" }, { cookie })).body.data.gen_id,
      (await it.api.post("/api/generator/generate", { ...FLUX, prompt: "b" }, { cookie })).body.data.gen_id,
      (await it.api.post("/api/generator/generate", { ...FLUX, prompt: "c [simulate:fail]" }, { cookie })).body.data
        .gen_id,
    ];
    await settle(cookie, ids);
    const html = await (await fetch(`${it.server.url}/account`, { headers: { cookie } })).text();
    const section = html.slice(html.indexOf('id="usage"'), html.indexOf('id="invite-h"'));
    expect(section).toMatch(/data-testid="usage-credits"[^>]*>7</);
    expect(section).toMatch(/<svg role="img"[^>]*>.*<title[^>]*>Credits spent per day<\/title>/s);
    // Thirty bars' worth of days on the axis, drawn as rects; the table lists today with its numbers.
    expect((section.match(/<rect /g) ?? []).length).toBeGreaterThanOrEqual(1);
    const today = new Date().toISOString().slice(0, 10);
    const row = section.slice(section.indexOf('data-testid="usage-table"'));
    expect(row).toMatch(
      new RegExp(`<td[^>]*>${today}</td><td[^>]*>7</td><td[^>]*>2</td><td[^>]*>1</td><td[^>]*>0</td>`),
    );
    // The page's CSP refuses inline styles: the chart has none (its axis labels are plain <text> elements).
    expect(section).not.toContain(" style=");
  });
});
