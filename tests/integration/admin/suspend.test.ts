/**
 * POST /api/admin/suspend-user and the /admin button (docs/operating.md "Suspending an account"): a suspended
 * account's sessions and keys are refused with HTTP 403 `account suspended` within a second, its queued tasks are
 * canceled uncharged, its webhooks disabled, signing in again refused; lifting restores all of it. Members are
 * forbidden; an admin cannot suspend themselves. Both engines (the ATELIER_TEST_PG run too).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signedFileUrl } from "~/domain/files/links.server";
import { Client, uniqueEmail } from "../../support/client";
import { countIn, insertApiKey, openServerDb, queryServerDb } from "../../support/db";
import { signUpAdmin } from "../../support/fixtures";
import { png } from "../../support/images";
import { startServer, TEST_AUTH_SECRET, type TestServer } from "../../support/server";
import { expectLedgerBalanced } from "../faults/support";

let server: TestServer;
let api: Client;
let admin: { cookie: string; userId: string; key: string };

const ADMIN_EMAIL = "warden@admin.test";
const SUSPENDED = { code: 1 as const, message: "account suspended", data: null };
const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" } as const; // 3 credits

beforeAll(async () => {
  // No runner: the tasks stay queued until the suspension cancels them.
  server = await startServer({
    env: {
      ADMIN_EMAILS: ADMIN_EMAIL,
      JOBS: "off",
      SIGNUP_CREDITS: "30",
      WEBHOOK_ALLOW_PRIVATE: "true",
      BETTER_AUTH_SECRET: TEST_AUTH_SECRET,
    },
  });
  api = new Client(server.url);
  const a = await signUpAdmin(server, ADMIN_EMAIL, { via: "mailbox" });
  const db = await openServerDb(server.dataDir);
  try {
    admin = { ...a, key: await insertApiKey(db, a.userId) };
  } finally {
    await db.close();
  }
});
afterAll(async () => {
  await server?.dispose();
});

async function member(tag: string) {
  const email = uniqueEmail(tag);
  const { cookie, userId } = await api.signUp(email);
  const key = (await api.post("/api/keys/create", { name: "k" }, { cookie })).body.data.key as string;
  return { email, cookie, userId, key };
}

const suspend = (
  body: Record<string, unknown>,
  auth: { cookie?: string; apiKey?: string } = { cookie: admin.cookie },
) => api.post("/api/admin/suspend-user", body, auth);

/** Polls until `ok` holds; fails when it takes longer than `withinMs`. */
async function within(withinMs: number, ok: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > withinMs) throw new Error(`not within ${withinMs} ms`);
    await Bun.sleep(25);
  }
  return Date.now() - t0;
}

describe("signed file links of a suspended owner", () => {
  test("refused (HTTP 403, account suspended) while the suspension lasts, another owner's kept; lifting restores them", async () => {
    const owner = await member("linked-files");
    const bystander = await member("linked-files-other");
    // The link a provider is given for an input: the file's URL signed for an hour, opening for anyone.
    const signed = async (who: { key: string }) => {
      const file = (await api.upload(png(8, 8), { apiKey: who.key })).body.data as { file_id: string; url: string };
      return { url: `${file.url}?${signedFileUrl(TEST_AUTH_SECRET, file.file_id, Date.now()).split("?")[1]}` };
    };
    const file = await signed(owner);
    const other = await signed(bystander);
    expect((await fetch(file.url)).status).toBe(200);

    expect((await suspend({ email: owner.email, suspended: true })).body.code).toBe(0);
    await within(1500, async () => (await fetch(file.url)).status === 403);
    const refused = await fetch(file.url);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual(SUSPENDED);
    // The owner's own session is refused too; another account's link still works.
    expect((await fetch(file.url.split("?")[0]!, { headers: { cookie: owner.cookie } })).status).not.toBe(200);
    expect((await fetch(other.url)).status).toBe(200);

    expect((await suspend({ email: owner.email, suspended: false })).body.code).toBe(0);
    await within(1500, async () => (await fetch(file.url)).status === 200);
  });
});

describe("who may suspend", () => {
  test("a member's session or key → forbidden, and nothing changes", async () => {
    const m = await member("susp-member");
    const victim = await member("susp-victim");
    for (const auth of [{ cookie: m.cookie }, { apiKey: m.key }])
      expect((await suspend({ email: victim.email, suspended: true }, auth)).body).toEqual({
        code: 1,
        message: "forbidden",
        data: null,
      });
    expect((await api.post("/api/get-user-info", undefined, { apiKey: victim.key })).status).toBe(200);
  });

  test("an admin cannot suspend themselves (by e-mail or uuid); GET → 405; bad bodies → invalid params", async () => {
    for (const body of [
      { email: ADMIN_EMAIL, suspended: true },
      { user_uuid: admin.userId, suspended: true },
    ])
      expect((await suspend(body)).body).toEqual({
        code: 1,
        message: "invalid params: you cannot suspend your own account",
        data: null,
      });
    expect((await api.post("/api/get-user-info", undefined, { cookie: admin.cookie })).status).toBe(200);
    expect((await fetch(`${server.url}/api/admin/suspend-user`)).status).toBe(405);
    expect((await suspend({ email: "nobody@nowhere.test", suspended: true })).body.message).toBe("user not found");
    expect((await suspend({ suspended: true })).body.message).toBe("invalid params: give either email or user_uuid");
    expect((await suspend({ email: ADMIN_EMAIL, suspended: "yes" })).body.message).toBe(
      "invalid params: suspended must be true or false",
    );
  });
});

describe("suspending and lifting", () => {
  test("key and session refused within a second (HTTP 403, code 1); queued tasks canceled uncharged; webhooks disabled; sign-in refused; lifting restores everything", async () => {
    const m = await member("susp-target");
    const hook = await api.post("/api/webhooks/create", { url: "http://127.0.0.1:9/hook" }, { cookie: m.cookie });
    expect(hook.body.code).toBe(0);
    const tasks: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await api.post("/api/generator/generate", { ...IMAGE, prompt: `queued ${i}` }, { apiKey: m.key });
      expect(r.body.code).toBe(0);
      tasks.push(r.body.data.gen_id);
    }
    const held = (await api.post("/api/get-user-credits", undefined, { cookie: m.cookie })).body.data;
    expect(held.left_credits).toBe(30);

    const r = await suspend(
      { email: m.email.toUpperCase(), suspended: true, reason: "bonus abuse" },
      { apiKey: admin.key },
    );
    expect(r.body.code).toBe(0);
    expect(r.body.message).toBe("user suspended");
    expect(r.body.data).toMatchObject({
      uuid: m.userId,
      email: m.email,
      suspended: true,
      reason: "bonus abuse",
      canceled_tasks: 3,
      webhooks: 1,
    });

    await within(1500, async () => (await api.post("/api/get-user-info", undefined, { apiKey: m.key })).status === 403);
    await within(
      1500,
      async () => (await api.post("/api/get-user-info", undefined, { cookie: m.cookie })).status === 403,
    );
    for (const auth of [{ apiKey: m.key }, { cookie: m.cookie }]) {
      const refused = await api.post("/api/generator/generate", { ...IMAGE, prompt: "after" }, auth);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(SUSPENDED);
    }
    // The key-only doors refuse it too: the OpenAI-compatible endpoint (OpenAI's shape, no retry) and MCP.
    const openai = await fetch(`${server.url}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${m.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "dall-e-3", prompt: "after" }),
    });
    expect(openai.status).toBe(403);
    expect(openai.headers.get("x-should-retry")).toBe("false");
    expect(((await openai.json()) as { error: { code: string } }).error.code).toBe("account_suspended");
    const mcp = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${m.key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(403);
    // Pages: a signed-out visitor's; signing in again is refused.
    expect((await fetch(`${server.url}/account`, { headers: { cookie: m.cookie }, redirect: "manual" })).status).toBe(
      302,
    );
    const signIn = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: m.email, password: "correct-horse-battery" }),
    });
    expect(signIn.status).toBe(403);
    expect(signIn.headers.getSetCookie().some((c) => c.includes("session_token=") && !c.includes("Max-Age=0"))).toBe(
      false,
    );

    // Canceled, never charged, nothing held; the webhook disabled with the suspension's reason.
    const rows = await queryServerDb<{ id: string; status: string; error_message: string }>(
      server.dataDir,
      "SELECT id, status, error_message FROM generations WHERE user_id = ?",
      m.userId,
    );
    expect(rows.map((t) => [t.status, t.error_message])).toEqual(tasks.map(() => ["failed", "canceled"]));
    expect(await countIn(server.dataDir, "SELECT count(*) AS n FROM credit_debits WHERE user_id = ?", m.userId)).toBe(
      0,
    );
    const ep = await queryServerDb<{ status: string }>(
      server.dataDir,
      "SELECT status FROM webhook_endpoints WHERE user_id = ?",
      m.userId,
    );
    expect(ep.map((e) => e.status)).toEqual(["disabled"]);
    // The admin list shows it.
    const listed = await api.post("/api/admin/list-users", { page: 1, page_size: 100 }, { cookie: admin.cookie });
    expect(listed.body.data.users.find((u: { uuid: string }) => u.uuid === m.userId).suspended).toBe(true);
    // Suspending again changes nothing.
    expect((await suspend({ user_uuid: m.userId, suspended: true })).body.data).toMatchObject({
      suspended: true,
      canceled_tasks: 0,
      webhooks: 0,
    });

    const lifted = await suspend({ user_uuid: m.userId, suspended: false });
    expect(lifted.body.message).toBe("user restored");
    expect(lifted.body.data).toMatchObject({ suspended: false, suspended_at: null, reason: null, webhooks: 1 });
    await within(1500, async () => (await api.post("/api/get-user-info", undefined, { apiKey: m.key })).status === 200);
    await within(
      1500,
      async () => (await api.post("/api/get-user-info", undefined, { cookie: m.cookie })).status === 200,
    );
    const credits = await api.post("/api/get-user-credits", undefined, { cookie: m.cookie });
    expect(credits.body.data).toEqual({ left_credits: 30, total_credits: 30 });
    const list = await api.post("/api/webhooks/list", undefined, { cookie: m.cookie });
    expect(list.body.data.webhooks.map((w: { status: string }) => w.status)).toEqual(["active"]);
    const again = await api.post("/api/generator/generate", { ...IMAGE, prompt: "again" }, { apiKey: m.key });
    expect(again.body.code).toBe(0);
    await api.signIn(m.email);
    expect(
      (await api.post("/api/generator/cancel", { gen_id: again.body.data.gen_id }, { cookie: m.cookie })).body.code,
    ).toBe(0);
    await expectLedgerBalanced(server.dataDir);
  });

  test("the /admin page's Suspend and Restore buttons (form posts, no JavaScript)", async () => {
    const m = await member("susp-page");
    const post = (suspended: string) =>
      fetch(`${server.url}/admin?index`, {
        method: "POST",
        headers: { cookie: admin.cookie, origin: server.url, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "suspend", user_uuid: m.userId, suspended }),
        redirect: "manual",
      });
    const page = await (
      await fetch(`${server.url}/admin?q=${encodeURIComponent(m.email)}`, { headers: { cookie: admin.cookie } })
    ).text();
    expect(page).toContain(`Suspend ${m.email}`);
    const r = await post("true");
    expect(r.status).toBe(200);
    expect(await r.text()).toContain(`Suspended ${m.email}`);
    expect((await api.post("/api/get-user-info", undefined, { apiKey: m.key })).body).toEqual(SUSPENDED);
    const after = await (
      await fetch(`${server.url}/admin?q=${encodeURIComponent(m.email)}`, { headers: { cookie: admin.cookie } })
    ).text();
    expect(after).toContain(`Restore ${m.email}`);
    expect(await (await post("false")).text()).toContain(`Restored ${m.email}`);
    expect((await api.post("/api/get-user-info", undefined, { apiKey: m.key })).status).toBe(200);
    // A member posting the same form gets the page's 404.
    const other = await member("susp-page-member");
    const byMember = await fetch(`${server.url}/admin?index`, {
      method: "POST",
      headers: { cookie: other.cookie, origin: server.url, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "suspend", user_uuid: m.userId, suspended: "true" }),
      redirect: "manual",
    });
    expect(byMember.status).toBe(404);
    expect((await api.post("/api/get-user-info", undefined, { apiKey: m.key })).status).toBe(200);
  });
});
