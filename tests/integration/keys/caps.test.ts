/**
 * Spending caps on keys (docs/decisions/115-scoped-keys-and-caps.md): `credit_limit {credits, period}` counts the
 * credits the key's tasks hold or were charged this UTC day or month; a generate past it is refused with
 * `key credit limit reached: <used> of <limit> this <period>` and creates nothing; other keys are unaffected; 20
 * parallel creates never pass the cap (run on both engines).
 */
import { describe, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { countIn } from "../../support/db";
import { serverForFile } from "../../support/file-server";

const KLING = { ai_type: "image", provider: "kling", model: "kling-v1" }; // 4 credits
const FLUX = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" }; // 3 credits

const it = serverForFile({ env: { SIGNUP_CREDITS: "200", SIMULATOR_DELAY_MS: "200" } });

describe("key credit limits", () => {
  test("a 5-credit daily cap: one 4-credit task passes, the next is refused; another key is unaffected; the list shows it", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("cap"));
    const capped = (
      await it.api.post("/api/keys/create", { name: "capped", credit_limit: { credits: 5, period: "day" } }, { cookie })
    ).body.data;
    expect(capped.credit_limit).toEqual({ credits: 5, period: "day" });
    const free = (await it.api.post("/api/keys/create", { name: "free" }, { cookie })).body.data;
    const first = await it.api.post("/api/generator/generate", { ...KLING, prompt: "one" }, { apiKey: capped.key });
    expect(first.body.code).toBe(0);
    const second = await it.api.post("/api/generator/generate", { ...KLING, prompt: "two" }, { apiKey: capped.key });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ code: 1, message: "key credit limit reached: 4 of 5 this day", data: null });
    const other = await it.api.post("/api/generator/generate", { ...KLING, prompt: "three" }, { apiKey: free.key });
    expect(other.body.code).toBe(0);
    const session = await it.api.post("/api/generator/generate", { ...KLING, prompt: "four" }, { cookie });
    expect(session.body.code).toBe(0);
    const history = await it.api.post("/api/generator/history", {}, { cookie });
    expect(history.body.data.total).toBe(3);
    const keys = (await it.api.post("/api/keys/list", {}, { cookie })).body.data.keys;
    const listed = keys.find((k: any) => k.key_id === capped.key_id);
    expect(listed.credit_limit).toEqual({ credits: 5, period: "day", used: 4 });
    expect(keys.find((k: any) => k.key_id === free.key_id).credit_limit).toBeNull();
  });

  test("failed tasks count nothing; raising or removing the cap applies at once", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("cap-fail"));
    const k = (
      await it.api.post("/api/keys/create", { name: "k", credit_limit: { credits: 4, period: "month" } }, { cookie })
    ).body.data;
    const failing = await it.api.post(
      "/api/generator/generate",
      { ...KLING, prompt: "x [simulate:fail]" },
      { apiKey: k.key },
    );
    const gen = failing.body.data.gen_id;
    for (let i = 0; i < 200; i++) {
      const q = await it.api.post("/api/generator/query", { gen_id: gen }, { cookie });
      if (q.body.data.status === "failed") break;
      await Bun.sleep(50);
    }
    const after = await it.api.post("/api/generator/generate", { ...KLING, prompt: "ok" }, { apiKey: k.key });
    expect(after.body.code).toBe(0);
    const refused = await it.api.post("/api/generator/generate", { ...KLING, prompt: "over" }, { apiKey: k.key });
    expect(refused.body.message).toBe("key credit limit reached: 4 of 4 this month");
    await it.api.post(
      "/api/keys/update",
      { key_id: k.key_id, credit_limit: { credits: 8, period: "month" } },
      { cookie },
    );
    expect(
      (await it.api.post("/api/generator/generate", { ...KLING, prompt: "raised" }, { apiKey: k.key })).body.code,
    ).toBe(0);
    const removed = await it.api.post("/api/keys/update", { key_id: k.key_id, credit_limit: null }, { cookie });
    expect(removed.body.data.credit_limit).toBeNull();
    expect(
      (await it.api.post("/api/generator/generate", { ...KLING, prompt: "uncapped" }, { apiKey: k.key })).body.code,
    ).toBe(0);
    const bad = await it.api.post(
      "/api/keys/update",
      { key_id: k.key_id, credit_limit: { credits: 0, period: "day" } },
      {
        cookie,
      },
    );
    expect(bad.body.message).toBe(
      "invalid params: credit_limit must be {credits: a positive integer, period: day or month}",
    );
  });

  test("20 parallel creates on a key capped at 12 credits: exactly 4 three-credit tasks, never more", async () => {
    const { cookie, userId } = await it.api.signUp(uniqueEmail("cap-race"));
    const k = (
      await it.api.post("/api/keys/create", { name: "race", credit_limit: { credits: 12, period: "day" } }, { cookie })
    ).body.data;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        it.api.post("/api/generator/generate", { ...FLUX, prompt: `race ${i}` }, { apiKey: k.key }),
      ),
    );
    const ok = answers.filter((a) => a.body.code === 0).length;
    const refused = answers.filter((a) => a.body.message?.startsWith("key credit limit reached: ")).length;
    expect(ok).toBe(4);
    expect(refused).toBe(16);
    expect(await countIn(it.server.dataDir, "SELECT count(*) AS n FROM generations WHERE user_id = ?", userId)).toBe(4);
  });
});
