/**
 * The OpenAPI document as a generated client sees it: openapi-typescript turns GET /api/openapi.json into types,
 * a small program written against them with openapi-fetch type-checks under `tsc --strict` (and a wrong call does
 * not), then the same program runs create → wait (`Prefer: wait`) → history against a real server.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { serverForFile, uniqueEmail } from "../../support/fixtures";

const it = serverForFile({ env: { SIMULATOR_DELAY_MS: "300", SIGNUP_CREDITS: "100" } });
const root = join(import.meta.dir, "../../..");
// Inside node_modules so that the program resolves openapi-fetch like any project would.
const dir = mkdtempSync(join(root, "node_modules", ".typed-client-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROGRAM = `import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

type Timestamp = components["schemas"]["Timestamp"];
type ErrorCode = components["schemas"]["ErrorCode"];

export async function flow(baseUrl: string, key: string) {
  const client = createClient<paths>({ baseUrl, headers: { "X-API-Key": key } });
  const created = await client.POST("/api/generator/generate", {
    params: { header: { Prefer: "wait=20" } },
    body: {
      ai_type: "image",
      provider: "replicate",
      model: "black-forest-labs/flux-schnell",
      prompt: "a red fox in fresh snow",
      options: { aspect_ratio: "16:9" },
    },
  });
  const envelope = created.data;
  if (!envelope || envelope.code !== 0) throw new Error(envelope?.message ?? "no answer");
  const task = envelope.data;
  const status: "pending" | "processing" | "completed" | "failed" = task.status;
  const finishedAt: Timestamp | undefined = task.completed_at;
  const history = await client.POST("/api/generator/history", { body: { page: 1, page_size: 5 } });
  if (!history.data || history.data.code !== 0) throw new Error("history failed");
  const entry = history.data.data.generations.find((g) => g.gen_id === task.gen_id);
  const credits = await client.POST("/api/get-user-credits", {});
  const left: number | undefined = credits.data?.code === 0 ? credits.data.data.left_credits : undefined;
  const refused = await client.POST("/api/generator/generate", {
    body: { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "" },
  });
  const code = refused.response.headers.get("Atelier-Error-Code") as ErrorCode | null;
  return { status, finishedAt, resultUrls: task.result_urls ?? [], entry, left, code };
}
`;

const WRONG = `import createClient from "openapi-fetch";
import type { paths } from "./schema";

export async function wrong(baseUrl: string) {
  const client = createClient<paths>({ baseUrl });
  await client.POST("/api/generator/history", { body: { page: "one" } });
}
`;

async function tsc(...files: string[]): Promise<{ ok: boolean; output: string }> {
  const proc = Bun.spawn(
    [
      process.execPath,
      join(root, "node_modules/typescript/bin/tsc"),
      "--strict",
      "--noEmit",
      "--skipLibCheck",
      "--target",
      "es2022",
      "--module",
      "esnext",
      "--moduleResolution",
      "bundler",
      "--lib",
      "es2022,dom",
      "--pretty",
      "false",
      ...files,
    ],
    { cwd: dir, stdout: "pipe", stderr: "pipe" },
  );
  const output = (await new Response(proc.stdout).text()) + (await new Response(proc.stderr).text());
  return { ok: (await proc.exited) === 0, output };
}

test("a client generated from the document type-checks strictly and runs create → wait → history", async () => {
  const doc = await (await fetch(`${it.server.url}/api/openapi.json`)).json();
  writeFileSync(join(dir, "schema.ts"), astToString(await openapiTS(doc)));
  writeFileSync(join(dir, "program.ts"), PROGRAM);
  writeFileSync(join(dir, "wrong.ts"), WRONG);

  // One compiler run for both (it is the slow part): the program compiles cleanly, and the types are real — a page
  // that is not a number does not compile.
  const checked = await tsc("program.ts", "wrong.ts");
  const problems = checked.output.split("\n").filter((line) => /^\w+\.ts\(/.test(line));
  expect(problems.filter((line) => !line.startsWith("wrong.ts("))).toEqual([]);
  expect(problems.length).toBeGreaterThan(0);
  expect(checked.ok).toBe(false);

  const { cookie } = await it.api.signUp(uniqueEmail("sdk"));
  const made = await it.api.post("/api/keys/create", { name: "generated client" }, { cookie });
  expect(made.body.code).toBe(0);
  const { flow } = await import(join(dir, "program.ts"));
  const result = await flow(it.server.url, made.body.data.key);
  expect(result.status).toBe("completed");
  expect(result.finishedAt).toEndWith("Z");
  expect(result.resultUrls.length).toBeGreaterThan(0);
  expect(result.entry).toMatchObject({ status: "completed", credits_cost: 3 });
  expect(result.left).toBe(97);
  expect(result.code).toBe("GENERATION_FIELDS_REQUIRED");
}, 120_000);
