/**
 * The curl examples of the API reference (/docs) work when pasted in order, as a
 * newcomer does: sign up (the example keeps the cookie jar), create a key with the
 * session example, then call an endpoint with that key. Run by bash exactly as printed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDocs } from "~/http/api-docs.server";
import { startServer, type TestServer } from "../../support/server";

let server: TestServer;
let dir: string;

beforeAll(async () => {
  server = await startServer();
  dir = mkdtempSync(join(tmpdir(), "atelier-docs-curl-"));
});
afterAll(async () => {
  await server?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function printed(id: string): string {
  const docs = buildDocs(server.url, { standard: 100, premium: 500, admin: 1000, windowSeconds: 60 });
  const e = docs.endpoints.find((x) => x.id === id);
  if (!e) throw new Error(`no /docs example for ${id}`);
  return e.curl;
}

async function run(script: string, env: Record<string, string> = {}) {
  const p = Bun.spawn(["bash", "-c", script], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  expect(code).toBe(0);
  return JSON.parse(out) as { code: number; message: string; data: Record<string, unknown> };
}

test("sign-up, then keys/create with the session example, then a call with the new key", async () => {
  const signUp = (await run(printed("auth-sign-up-email"))) as unknown as { user: { email: string } };
  expect(signUp.user.email).toBe("ada@example.com");

  const created = await run(printed("keys-create"));
  expect({ code: created.code, message: created.message }).toEqual({ code: 0, message: "ok" });
  const key = String(created.data.key);
  expect(key).toMatch(/^atl_/);

  const credits = await run(printed("get-user-credits"), { ATELIER_API_KEY: key });
  expect(credits).toEqual({ code: 0, message: "ok", data: { left_credits: 10, total_credits: 10 } });
});

test("every example names the key the same way as the first request on /docs (ATELIER_API_KEY)", () => {
  const docs = buildDocs(server.url, { standard: 100, premium: 500, admin: 1000, windowSeconds: 60 });
  const text = JSON.stringify(docs);
  expect(text).toContain("$ATELIER_API_KEY");
  expect(text.match(/\$[A-Z_]*KEY\b|\$SESSION\b/g)?.filter((v) => v !== "$ATELIER_API_KEY") ?? []).toEqual([]);
});
