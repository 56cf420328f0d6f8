#!/usr/bin/env bun
/**
 * The studio's page weight and largest paint as a phone gets them, in Debian's chromium: bytes transferred (as sent
 * on the wire, compressed where the server compresses) by type, the route's JavaScript among them, and the largest
 * contentful paint over slow 4G (150 ms RTT, 1.6 Mbit/s down, 750 kbit/s up) with 4× CPU throttling. The account
 * has a few finished results first, so the gallery is what paints. Cold loads (a new context each: empty cache);
 * prints the median of N. A bench that prints, not a timed test: report `uptime` beside its numbers.
 * Usage: bun run bench:page-weight [runs=3]
 */
import { chromium } from "@playwright/test";
import { CHROMIUM_ARGS } from "../e2e/playwright.config";
import { Client, uniqueEmail } from "../support/client";
import { startServer } from "../support/server";
import { until } from "../support/until";

const runs = Number(process.argv[2] ?? 3);
const server = await startServer({ env: { SIMULATOR_DELAY_MS: "0" } });
const api = new Client(server.url);
const { cookie } = await api.signUp(uniqueEmail("weight"));
for (const prompt of ["A lighthouse at dusk", "A fox in the snow"]) {
  const r = await api.post(
    "/api/generator/generate",
    { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt },
    { cookie },
  );
  const genId = r.body.data.gen_id as string;
  await until(`result ${prompt}`, async () => {
    const q = await api.post("/api/generator/query", { gen_id: genId }, { cookie });
    return q.body.data.status === "completed" ? true : undefined;
  });
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: CHROMIUM_ARGS,
});
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const results: { lcp: number; total: number; js: number; byType: Record<string, number> }[] = [];
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
  });
  const [name, value] = cookie.split(";")[0]!.split("=") as [string, string];
  await context.addCookies([{ name, value, url: server.url }]);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 150,
    downloadThroughput: (1.6 * 1024 * 1024) / 8,
    uploadThroughput: (750 * 1024) / 8,
  });
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  const types = new Map<string, string>();
  const byType: Record<string, number> = {};
  cdp.on("Network.responseReceived", (e) => types.set(e.requestId, e.type));
  cdp.on("Network.loadingFinished", (e) => {
    const type = types.get(e.requestId) ?? "Other";
    byType[type] = (byType[type] ?? 0) + e.encodedDataLength;
  });
  await page.goto(`${server.url}/studio`, { waitUntil: "networkidle" });
  const lcp = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        let last = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) last = e.startTime;
        }).observe({ type: "largest-contentful-paint", buffered: true });
        setTimeout(() => resolve(last), 1000);
      }),
  );
  const total = Object.values(byType).reduce((a, b) => a + b, 0);
  results.push({ lcp, total, js: byType.Script ?? 0, byType });
  console.log(
    `run ${i + 1}: LCP ${Math.round(lcp)} ms; transferred ${kb(total)} (JS ${kb(byType.Script ?? 0)}; ${Object.entries(
      byType,
    )
      .map(([t, n]) => `${t} ${kb(n)}`)
      .join(", ")})`,
  );
  await context.close();
}
await browser.close();
await server.dispose();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `/studio, 390×844, slow 4G + 4× CPU, ${runs} cold loads: median LCP ${Math.round(median(results.map((r) => r.lcp)))} ms; ` +
    `transferred ${kb(median(results.map((r) => r.total)))}, of which JS ${kb(median(results.map((r) => r.js)))} (budget 200 KB)`,
);
console.log(`load average: ${(await Bun.$`uptime`.text()).trim()}`);
