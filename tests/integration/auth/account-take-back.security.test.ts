/**
 * Taking an account back (docs/design.md §5): a verification link opened by someone who is not signed in to the
 * account proves the mailbox's owner holds it now, so the sessions, API keys and webhooks made before are revoked,
 * as after a password reset (tests/integration/admin/first-admin.security.test.ts). The account's own signed-in
 * owner confirming the address loses nothing. The reset page and the reset mail say what a reset revokes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer({ env: { LOG_LEVEL: "info", WEBHOOK_ALLOW_PRIVATE: "true" } });
  api = new Client(server.url);
});
afterAll(async () => {
  await server?.dispose();
});

async function verifyLinkOf(email: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const line = server
      .logs()
      .split("\n")
      .find((l) => l.includes('"mail not sent') && l.includes(email) && l.includes("/verify-email?token="));
    const link = line ? /(http:\/\/\S+\/verify-email\?token=[^\s"\\]+)/.exec(JSON.parse(line).text)?.[1] : undefined;
    if (link) return link;
    await Bun.sleep(25);
  }
  throw new Error(`no verification link for ${email} in the log`);
}

async function armedAccount(tag: string) {
  const email = uniqueEmail(tag);
  const { cookie } = await api.signUp(email);
  const key = (await api.post("/api/keys/create", { name: "k" }, { cookie })).body.data.key as string;
  const hook = await api.post("/api/webhooks/create", { url: "http://127.0.0.1:9/h" }, { cookie });
  expect(hook.body.code).toBe(0);
  return { email, cookie, key };
}

const webhookStatuses = async (cookie: string) =>
  ((await api.post("/api/webhooks/list", {}, { cookie })).body.data?.webhooks ?? []).map(
    (w: { status: string }) => w.status,
  );

describe("a verification that changes who holds the account", () => {
  test("opened by someone not signed in to it: the sessions, keys and webhooks made before are revoked", async () => {
    const holder = await armedAccount("taken-back");
    const link = await verifyLinkOf(holder.email);
    const page = await fetch(link);
    expect(await page.text()).toContain("E-mail confirmed");
    expect((await api.post("/api/get-user-info", undefined, { cookie: holder.cookie })).body.message).toBe(
      "no auth, please sign-in",
    );
    expect((await api.post("/api/get-user-info", undefined, { apiKey: holder.key })).body.code).toBe(1);
    const fresh = await api.signIn(holder.email);
    expect(await webhookStatuses(fresh)).toEqual(["disabled"]);
  });

  test("opened by the account's own signed-in owner: nothing is revoked", async () => {
    const owner = await armedAccount("kept");
    const link = await verifyLinkOf(owner.email);
    const page = await fetch(link, { headers: { cookie: owner.cookie } });
    expect(await page.text()).toContain("E-mail confirmed");
    expect((await api.post("/api/get-user-info", undefined, { cookie: owner.cookie })).body.code).toBe(0);
    expect((await api.post("/api/get-user-info", undefined, { apiKey: owner.key })).body.code).toBe(0);
    expect(await webhookStatuses(owner.cookie)).toEqual(["active"]);
  });
});

describe("what a reset revokes is said before it happens", () => {
  test("the reset page and the reset mail name sessions, API keys and webhooks", async () => {
    const page = await (await fetch(`${server.url}/reset-password?token=anything`)).text();
    expect(page).toContain("signs out every session of this account and revokes its API keys and webhooks");
    const { email } = await armedAccount("reset-mail");
    await fetch(`${server.url}/api/auth/request-password-reset`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email, redirectTo: "/reset-password" }),
    });
    let text = "";
    for (let i = 0; i < 200 && !text; i++) {
      const line = server
        .logs()
        .split("\n")
        .find((l) => l.includes('"mail not sent') && l.includes(email) && l.includes("/reset-password?token="));
      text = line ? JSON.parse(line).text : "";
      if (!text) await Bun.sleep(25);
    }
    expect(text).toContain("signs out every session of the\naccount and revokes its API keys and webhooks");
  });
});
