/**
 * The MCP server checked by the MCP Inspector's command-line mode (`@modelcontextprotocol/inspector --cli`, the
 * tool docs/mcp.md tells people to check a server with), run under Bun against a started server: tools/list names
 * every tool, `generate` with wait_seconds answers a completed task whose result is stored, get_generation reads it
 * back, and without the key the inspector fails with the 401's message. The inspector (2.x needs Node ≥ 22; it runs
 * here under Bun) works offline: it talks only to the local server.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";
import { ROOT } from "../../support/server";

const it = serverForFile({ env: { SIGNUP_CREDITS: "20", SIMULATOR_DELAY_MS: "200" } });
const INSPECTOR = join(ROOT, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
// The inspector keeps a catalog of servers in the home folder: a throwaway one here.
const home = mkdtempSync(join(tmpdir(), "atelier-inspector-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** One inspector run: its exit code, stdout parsed as JSON when it is, and stderr. */
async function inspector(args: string[], key?: string) {
  const proc = Bun.spawn(
    [
      process.execPath,
      INSPECTOR,
      "--cli",
      `${it.server.url}/mcp`,
      "--transport",
      "http",
      ...(key ? ["--header", `Authorization: Bearer ${key}`] : []),
      ...args,
    ],
    {
      cwd: home,
      env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, "mcp.json"), NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const timer = setTimeout(() => proc.kill(), 50_000);
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  let json: any = null;
  try {
    json = JSON.parse(out);
  } catch {}
  return { code, json, out, err };
}

async function keyFor() {
  const { cookie } = await it.api.signUp(uniqueEmail("inspector"));
  return (await it.api.post("/api/keys/create", { name: "inspector" }, { cookie })).body.data.key as string;
}

describe("MCP Inspector --cli against /mcp", () => {
  test("tools/list, then generate with wait_seconds ends in a completed task, read back by get_generation", async () => {
    const key = await keyFor();
    const listed = await inspector(["--method", "tools/list"], key);
    expect({ code: listed.code, err: listed.err }).toMatchObject({ code: 0 });
    expect(listed.json.tools.map((t: { name: string }) => t.name).sort()).toEqual([
      "generate",
      "get_credits",
      "get_generation",
      "list_generations",
      "list_models",
      "upload_image",
    ]);

    const made = await inspector(
      [
        "--method",
        "tools/call",
        "--tool-name",
        "generate",
        "--tool-arg",
        "ai_type=image",
        "provider=kling",
        "model=kling-v1",
        "prompt=a fox in the snow",
        "wait_seconds=30",
      ],
      key,
    );
    expect({ code: made.code, err: made.err }).toMatchObject({ code: 0 });
    expect(made.json.isError).toBeFalsy();
    const task = JSON.parse(made.json.content[0].text);
    expect(task.status).toBe("completed");
    expect(task.result_urls[0]).toStartWith(it.server.url);
    expect((await fetch(task.result_urls[0])).status).toBe(200);

    const read = await inspector(
      ["--method", "tools/call", "--tool-name", "get_generation", "--tool-arg", `gen_id=${task.gen_id}`],
      key,
    );
    expect(JSON.parse(read.json.content[0].text)).toMatchObject({ gen_id: task.gen_id, status: "completed" });
    const credits = await it.api.post("/api/get-user-credits", {}, { apiKey: key });
    expect(credits.body.data.left_credits).toBe(20 - 4);
  });

  test("without the key the inspector fails with the server's 401 message", async () => {
    // Inspector 2.x answers a 401 by starting OAuth in a browser; --stored-auth-only makes it fail instead (exit 3).
    const refused = await inspector(["--method", "tools/list", "--stored-auth-only"]);
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(refused.err).error.code).toBe("auth_required");
    expect(refused.err).toContain("no auth, please sign-in");
  });
});
