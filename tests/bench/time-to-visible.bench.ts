#!/usr/bin/env bun
/**
 * Time to visible (docs/studio.md "Time to visible"): a person presses Generate on an async model (FLUX.1 [schnell],
 * simulated, 1.5 s) and the studio, the status stream and the query each see the finished task. The moment the
 * server could know it is finished is the simulated upstream job's ready time (its upstream id carries it, read
 * from the database); each lag is measured from there, on the same machine clock:
 *   - studio: the tile says `completed` in chromium (the page's EventSource + re-read);
 *   - stream: GET /api/generator/stream sends the `completed` event;
 *   - query: POST /api/generator/query, asked every 20 ms, answers `completed`;
 *   - total: Generate pressed → the tile says `completed` (1.5 s of it is the simulated job).
 * A bench that prints (median and p95 over N runs, default 20), not a timed test; report `uptime` beside it.
 *
 *   bun run build && bun tests/bench/time-to-visible.bench.ts [N]
 */
import { Database } from "bun:sqlite";
import { loadavg } from "node:os";
import { join } from "node:path";
import { chromium } from "@playwright/test";
import { CHROMIUM_ARGS } from "../e2e/playwright.config";
import { Client, uniqueEmail } from "../support/client";
import { startServer } from "../support/server";

const N = Number(process.argv[2] ?? 20);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

const server = await startServer({
  engine: "sqlite",
  env: { SIMULATOR_DELAY_MS: "1500", SIGNUP_CREDITS: "100000" },
});
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: CHROMIUM_ARGS,
});
const db = new Database(join(server.dataDir, "atelier.db"), { readonly: true });

/** The simulated upstream job's ready time (`sim_<ready-at-ms>_<random>`), once submitted. */
async function readyAt(genId: string): Promise<number> {
  for (;;) {
    const row = db.query("SELECT upstream_task_id AS u FROM generations WHERE id = ?").get(genId) as {
      u: string | null;
    } | null;
    const m = row?.u && /^sim_(\d+)_/.exec(row.u);
    if (m) return Number(m[1]);
    await Bun.sleep(5);
  }
}

async function streamSeesCompleted(cookie: string, genId: string): Promise<number> {
  const res = await fetch(`${server.url}/api/generator/stream?gen_id=${genId}`, { headers: { cookie } });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error("stream closed before completion");
    text += decoder.decode(value, { stream: true });
    if (/"status":"completed"/.test(text)) {
      const at = Date.now();
      await reader.cancel();
      return at;
    }
  }
}

async function querySeesCompleted(api: Client, cookie: string, genId: string): Promise<number> {
  for (;;) {
    const q = await api.post("/api/generator/query", { gen_id: genId }, { cookie });
    if (q.body.data?.status === "completed") return Date.now();
    if (q.body.data?.status === "failed") throw new Error("task failed");
    await Bun.sleep(20);
  }
}

try {
  const api = new Client(server.url);
  const { cookie } = await api.signUp(uniqueEmail("ttv"));
  const [name, value] = cookie.split(";")[0]!.split("=") as [string, string];
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addCookies([{ name, value, url: server.url }]);
  const page = await context.newPage();
  await page.goto(`${server.url}/studio`);
  const lags: Record<"studio" | "stream" | "query" | "total", number[]> = {
    studio: [],
    stream: [],
    query: [],
    total: [],
  };
  console.log(`load before: ${load()}`);
  for (let i = 0; i < N; i++) {
    const prompt = `time to visible ${i} ${Date.now()}`;
    await page.getByRole("radio", { name: /FLUX\.1 \[schnell\]/ }).check();
    await page.getByRole("textbox", { name: "Prompt" }).fill(prompt);
    const pressedAt = Date.now();
    await page.getByRole("button", { name: /^Generate/ }).click();
    const tile = page.getByRole("listitem", { name: `Generation: ${prompt}` });
    const genId = (await tile.getAttribute("data-gen-id", { timeout: 10_000 }))!;
    const seen = page
      .waitForFunction(
        (id) =>
          document.querySelector(`[data-gen-id="${id}"]`)?.getAttribute("data-status") === "completed"
            ? Date.now()
            : false,
        genId,
        { timeout: 30_000, polling: "raf" },
      )
      .then((h) => h.jsonValue() as Promise<number>);
    const [ready, studio, stream, query] = await Promise.all([
      readyAt(genId),
      seen,
      streamSeesCompleted(cookie, genId),
      querySeesCompleted(api, cookie, genId),
    ]);
    lags.studio.push(studio - ready);
    lags.stream.push(stream - ready);
    lags.query.push(query - ready);
    lags.total.push(studio - pressedAt);
    // Each run starts from a settled page: the re-read after completion is done.
    await page.waitForLoadState("networkidle");
  }
  for (const [k, xs] of Object.entries(lags)) {
    const what = k === "total" ? "Generate → tile completed (1.5 s job)" : `${k} sees it after the job is ready`;
    console.log(`${what}: n=${xs.length} median ${pct(xs, 50)} ms · p95 ${pct(xs, 95)} ms · max ${Math.max(...xs)} ms`);
  }
  console.log(`load after: ${load()}`);
  await context.close();
} finally {
  db.close();
  await browser.close();
  await server.dispose();
}
