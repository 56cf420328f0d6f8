/**
 * The /keys page with scoped, capped keys (docs/usage.md): a key made there carries the scopes and cap chosen in the
 * form; each key shows its scopes, its cap and what was used of it; scopes and cap change without a new key; a
 * refused field gets a sentence beside it and nothing is made or changed. Plain form posts: no JavaScript needed.
 */
import { describe, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { postPageForm, serverForFile } from "../../support/fixtures";

const KLING = { ai_type: "image", provider: "kling", model: "kling-v1" }; // 4 credits

const it = serverForFile({ env: { SIGNUP_CREDITS: "100" } });

const postForm = (cookie: string, fields: [string, string][]) => postPageForm(`${it.server.url}/keys`, cookie, fields);

const keysOf = async (cookie: string) => (await it.api.post("/api/keys/list", {}, { cookie })).body.data.keys;

describe("/keys: scopes and caps", () => {
  test("create with scopes and a cap; the row shows them and what was used; change them; the key stays", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("keys-page"));
    const made = await postForm(cookie, [
      ["intent", "create"],
      ["name", "script"],
      ["scopes", "generate"],
      ["scopes", "read"],
      ["cap_credits", "10"],
      ["cap_period", "day"],
    ]);
    expect(made.status).toBe(200);
    const key = (await made.text()).match(/value="(atl_[A-Za-z0-9_-]+)"/)![1]!;
    const [listed] = await keysOf(cookie);
    expect(listed).toMatchObject({
      scopes: ["generate", "read"],
      credit_limit: { credits: 10, period: "day", used: 0 },
    });
    const gen = await it.api.post("/api/generator/generate", { ...KLING, prompt: "a fox" }, { apiKey: key });
    expect(gen.body.code).toBe(0);
    const page = await (await fetch(`${it.server.url}/keys`, { headers: { cookie } })).text();
    expect(page).toContain('data-field="scopes">generate, read<');
    expect(page).toContain('data-field="cap">4 of 10 credits this day<');

    const changed = await postForm(cookie, [
      ["intent", "update"],
      ["key_id", listed.key_id],
      ["scopes", "read"],
      ["cap_credits", ""],
      ["cap_period", "day"],
    ]);
    expect(await changed.text()).toContain("Saved: the key keeps its value.");
    const [after] = await keysOf(cookie);
    expect(after).toMatchObject({ key_id: listed.key_id, scopes: ["read"], credit_limit: null });
    // Same key, now read-only.
    const refused = await it.api.post("/api/generator/generate", { ...KLING, prompt: "again" }, { apiKey: key });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("forbidden: this key lacks the generate scope");
    expect((await it.api.post("/api/get-user-credits", undefined, { apiKey: key })).body.code).toBe(0);
  });

  test("refusals are sentences beside their fields, and nothing is created or changed", async () => {
    const { cookie } = await it.api.signUp(uniqueEmail("keys-refused"));
    const res = await postForm(cookie, [
      ["intent", "create"],
      ["name", "nothing"],
      ["cap_credits", "ten"],
      ["cap_period", "day"],
    ]);
    const html = await res.text();
    expect(html).toContain("Choose at least one scope: a key with none could do nothing.");
    expect(html).toContain("The cap must be a whole number of credits from 1 to 1,000,000,000, or empty for no cap.");
    expect(html).toMatch(/id="create-scopes-error"/);
    expect(html).toMatch(/id="create-cap-error"/);
    expect(await keysOf(cookie)).toEqual([]);

    await postForm(cookie, [
      ["intent", "create"],
      ["name", "kept"],
      ["scopes", "read"],
    ]);
    const [kept] = await keysOf(cookie);
    const bad = await postForm(cookie, [
      ["intent", "update"],
      ["key_id", kept.key_id],
      ["scopes", "read"],
      ["cap_credits", "0"],
      ["cap_period", "month"],
    ]);
    expect(await bad.text()).toContain(`id="key-${kept.key_id}-cap-error"`);
    expect((await keysOf(cookie))[0]).toMatchObject({ scopes: ["read"], credit_limit: null });
  });
});
