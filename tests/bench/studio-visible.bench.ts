/**
 * The studio's time to visible result (docs/events.md): a task completes → its card
 * shows `completed`, in a real browser (Debian chromium), with the status
 * stream (EventSource) and without it (the page's 2.5 s polling, the baseline;
 * EventSource removed before the page loads). Same server, same run.
 *
 *   bun run build && bun tests/bench/studio-visible.bench.ts [N]
 */

import { loadavg } from "node:os";
import { chromium } from "@playwright/test";
import { Client, uniqueEmail } from "../support/client";
import { startServer } from "../support/server";

const N = Number(process.argv[2] ?? 10);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

const server = await startServer({ env: { SIMULATOR_DELAY_MS: "1000", SIGNUP_CREDITS: "10000" } });
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});
try {
  const api = new Client(server.url);
  const { cookie } = await api.signUp(uniqueEmail("visible"));
  const [name, value] = cookie.split("=");
  const results: Record<string, number[]> = { stream: [], polling: [] };
  console.log(
    `load before: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  for (let i = 0; i < N; i++) {
    for (const mode of ["stream", "polling"] as const) {
      const ctx = await browser.newContext();
      await ctx.addCookies([{ name: name!, value: value!, url: server.url }]);
      if (mode === "polling")
        await ctx.addInitScript(() => delete (globalThis as { EventSource?: unknown }).EventSource);
      const page = await ctx.newPage();
      const gen = (
        await api.post(
          "/api/generator/generate",
          { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: `visible ${mode} ${i}` },
          { cookie },
        )
      ).body.data;
      if (!gen?.gen_id) throw new Error("generate failed (credits?)");
      await page.goto(`${server.url}/studio`);
      const shownAt = (
        await page.waitForFunction(
          (id) => {
            const card = document.querySelector(`[data-gen-id="${id}"]`);
            return card?.getAttribute("data-status") === "completed" ? Date.now() : false;
          },
          gen.gen_id,
          { timeout: 30_000, polling: 20 },
        )
      ).jsonValue() as unknown as number;
      const q = await api.post("/api/generator/query", { gen_id: gen.gen_id }, { cookie });
      results[mode]!.push((await shownAt) - Date.parse(q.body.data.completed_at));
      await ctx.close();
    }
  }
  for (const [mode, xs] of Object.entries(results)) {
    console.log(
      `studio time to visible (${mode === "stream" ? "status stream" : "polling every 2.5 s, baseline"}): n=${xs.length} median ${pct(xs, 50)} ms · p90 ${pct(xs, 90)} ms · max ${Math.max(...xs)} ms`,
    );
  }
  console.log(
    `ratio (median polling / median stream): ${(pct(results.polling!, 50) / Math.max(1, pct(results.stream!, 50))).toFixed(1)}×`,
  );
  console.log(
    `load after: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await browser.close();
  await server.dispose();
}
