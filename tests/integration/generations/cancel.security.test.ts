/**
 * review2: a canceled task is "never charged" (docs/design.md §10), so its result must
 * never be delivered either. A sync provider's call is not interrupted by the
 * cancel: when it returns, the runner stores the files under the predictable
 * key `<gen_id>/0.<ext>` and only then finds the task canceled. /media is
 * public, so the caller cancels right after the task starts processing and
 * downloads the result it was never charged for.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";

setDefaultTimeout(30_000);

let server: TestServer;
let api: Client;
beforeAll(async () => {
  // Simulated openai is a sync provider; 1.5 s per call leaves time to cancel while it runs.
  server = await startServer({ env: { SIMULATOR_DELAY_MS: "1500", SIGNUP_CREDITS: "10" } });
  api = new Client(server.url);
});
afterAll(async () => {
  await server?.dispose();
});

test("a task canceled while its sync provider call runs leaves no downloadable result and no charge", async () => {
  const { cookie } = await api.signUp(uniqueEmail("cancelmedia"));
  const gen = await api.post(
    "/api/generator/generate",
    { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "a lighthouse" },
    { cookie },
  );
  expect(gen.body.code).toBe(0);
  const genId = gen.body.data.gen_id as string;
  // Wait until the runner has claimed it (the upstream call is running).
  const deadline = Date.now() + 10_000;
  for (;;) {
    const q = await api.post("/api/generator/query", { gen_id: genId }, { cookie });
    if (q.body.data.status === "processing") break;
    if (Date.now() > deadline) throw new Error(`task never processing: ${JSON.stringify(q.body)}`);
    await Bun.sleep(20);
  }
  const c = await api.post("/api/generator/cancel", { gen_id: genId }, { cookie });
  expect(c.body.code).toBe(0);
  // Let the provider call finish and the runner do whatever it does with the result.
  await Bun.sleep(3000);
  const q = await api.post("/api/generator/query", { gen_id: genId }, { cookie });
  expect(q.body.data.status).toBe("failed");
  expect(q.body.data.error_message).toBe("canceled");
  expect((await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits).toBe(10);
  // Not charged, so the result must not be served.
  for (const ext of ["png", "jpg", "webp"]) {
    const res = await fetch(`${server.url}/media/${genId}/0.${ext}`);
    await res.arrayBuffer();
    expect(`${ext}: ${res.status}`).toBe(`${ext}: 404`);
  }
  // Nor kept on disk under any name.
  const dir = join(server.dataDir, "media", genId);
  expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
});
