/**
 * POST /api/account/export and the account page's "Download my data" (docs/privacy.md "Export"): the person's data
 * — the e-mail, every prompt, keys by name, webhooks by URL, feedback — and never a secret: the raw JSON is searched
 * for the actual API key, its hash and prefix, the webhook's signing secret, the password hash and the session
 * token. Session only: a key is forbidden.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashApiKey } from "~/domain/api-keys/authenticate.server";
import { Client, uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { png } from "../../support/images";
import { startServer, type TestServer } from "../../support/server";

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer({
    env: { SIGNUP_CREDITS: "30", WEBHOOK_ALLOW_PRIVATE: "true", SIMULATOR_DELAY_MS: "20" },
  });
  api = new Client(server.url);
});
afterAll(async () => {
  await server?.dispose();
});

const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" } as const;

async function account() {
  const email = uniqueEmail("export");
  const { cookie, userId } = await api.signUp(email);
  const key = await api.post("/api/keys/create", { name: "ci deploy key" }, { cookie });
  const hook = await api.post("/api/webhooks/create", { url: "http://127.0.0.1:9/export-hook" }, { cookie });
  const prompts = ["a lighthouse at dusk", "a red fox in snow"];
  const gens: string[] = [];
  for (const prompt of prompts)
    gens.push(
      (await api.post("/api/generator/generate", { ...IMAGE, prompt }, { apiKey: key.body.data.key })).body.data.gen_id,
    );
  expect((await api.post("/api/add-feedback", { content: "lovely tool", rating: 5 }, { cookie })).body.code).toBe(0);
  const up = await api.upload(png(8, 6), { apiKey: key.body.data.key }, { name: "in.png", type: "image/png" });
  expect(up.status).toBe(200);
  return { email, cookie, userId, key: key.body.data, secret: hook.body.data.secret as string, prompts, gens };
}

describe("POST /api/account/export", () => {
  test("holds the e-mail, the prompts, keys by name, webhooks, the ledger and feedback — and no secret", async () => {
    const a = await account();
    // Finished tasks carry result URLs.
    for (let i = 0; i < 100; i++) {
      const q = await api.post("/api/generator/query", { gen_id: a.gens[1] }, { cookie: a.cookie });
      if (q.body.data.status === "completed") break;
      await Bun.sleep(50);
    }
    const r = await api.post("/api/account/export", undefined, { cookie: a.cookie });
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    const data = r.body.data;
    expect(data).toMatchObject({ format: "atelier-account-export", version: 1 });
    expect(data.profile).toMatchObject({ uuid: a.userId, email: a.email });
    expect(data.sign_in_methods.map((m: { provider: string }) => m.provider)).toEqual(["credential"]);
    expect(data.generations.map((g: { prompt: string }) => g.prompt)).toEqual(a.prompts);
    const done = data.generations.find((g: { gen_id: string }) => g.gen_id === a.gens[1]);
    expect(done.result_urls.length).toBeGreaterThan(0);
    expect(data.api_keys).toEqual([
      expect.objectContaining({ id: a.key.key_id, name: "ci deploy key", status: "active", revoked_at: null }),
    ]);
    expect(data.api_keys[0].scopes).toContain("generate");
    expect(data.webhooks).toEqual([
      expect.objectContaining({ url: "http://127.0.0.1:9/export-hook", status: "active" }),
    ]);
    expect(data.credits.grants.map((g: { source: string; amount: number }) => [g.source, g.amount])).toEqual([
      ["signup", 30],
    ]);
    expect(data.feedback).toEqual([expect.objectContaining({ content: "lovely tool", rating: 5 })]);
    expect(data.orders).toEqual([]);
    expect(data.files).toEqual([
      expect.objectContaining({ content_type: "image/png", width: 8, height: 6, source: "upload" }),
    ]);

    const text = JSON.stringify(r.body);
    const [cred] = await queryServerDb<{ password: string }>(
      server.dataDir,
      "SELECT password FROM account WHERE user_id = ? AND provider_id = 'credential'",
      a.userId,
    );
    const sessions = await queryServerDb<{ token: string }>(
      server.dataDir,
      "SELECT token FROM session WHERE user_id = ?",
      a.userId,
    );
    const secrets = {
      key: a.key.key as string,
      keyHash: hashApiKey(a.key.key),
      keyStart: (a.key.key as string).slice(0, 10),
      webhookSecret: a.secret,
      webhookSecretBody: a.secret.slice("whsec_".length),
      passwordHash: cred!.password,
      sessionToken: sessions[0]!.token,
    };
    for (const [what, value] of Object.entries(secrets)) {
      expect(value.length).toBeGreaterThan(8);
      expect({ what, found: text.includes(value) }).toEqual({ what, found: false });
    }
  });

  test("an API key is forbidden (session only); anonymous → no auth; GET → 405", async () => {
    const a = await account();
    expect((await api.post("/api/account/export", undefined, { apiKey: a.key.key })).body).toEqual({
      code: 1,
      message: "forbidden",
      data: null,
    });
    expect((await api.post("/api/account/export")).body.message).toBe("no auth, please sign-in");
    expect((await fetch(`${server.url}/api/account/export`)).status).toBe(405);
  });

  test("the account page's download: a form post (no JavaScript) answers the archive as a file; another site's post is refused", async () => {
    const a = await account();
    const page = await (await fetch(`${server.url}/account`, { headers: { cookie: a.cookie } })).text();
    expect(page).toContain('action="/account/export"');
    const res = await fetch(`${server.url}/account/export`, {
      method: "POST",
      headers: { cookie: a.cookie, origin: server.url, "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="atelier-export-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    const file = await res.text();
    expect(JSON.parse(file).profile.email).toBe(a.email);
    expect(file).not.toContain(a.key.key);
    const cross = await fetch(`${server.url}/account/export`, {
      method: "POST",
      headers: { cookie: a.cookie, origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(cross.status).toBe(403);
    expect(await cross.text()).not.toContain(a.email);
    // Signed out: to the sign-in page.
    const anon = await fetch(`${server.url}/account/export`, {
      method: "POST",
      headers: { origin: server.url },
      redirect: "manual",
    });
    expect(anon.status).toBe(302);
  });
});
