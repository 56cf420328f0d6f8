#!/usr/bin/env bun
/**
 * Largest contentful paint of the studio on a phone over slow 4G with 4× CPU throttling, in Debian's chromium
 * (the emulation Lighthouse uses: 150 ms RTT, 1.6 Mbit/s down, 750 kbit/s up). Prints the median of N cold loads
 * (a new browser context each: empty cache). A bench that prints, not a timed test; report `uptime` beside it.
 * Usage: bun tests/bench/studio-lcp.ts [runs=5] [http://127.0.0.1:PORT]   (without a URL: starts build/atelier.js)
 */
import { chromium } from "@playwright/test";
import { CHROMIUM_ARGS } from "../e2e/playwright.config";
import { Client, uniqueEmail } from "../support/client";
import { startServer } from "../support/server";

const runs = Number(process.argv[2] ?? 5);
const given = process.argv[3];
const server = given ? null : await startServer();
const base = given ?? server!.url;
const { cookie } = await new Client(base).signUp(uniqueEmail("lcp"));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: CHROMIUM_ARGS,
});
const results: number[] = [];
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
  });
  const [name, value] = cookie.split(";")[0]!.split("=") as [string, string];
  await context.addCookies([{ name, value, url: base }]);
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
  await page.goto(`${base}/studio`, { waitUntil: "load" });
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
  results.push(lcp);
  console.log(`run ${i + 1}: LCP ${Math.round(lcp)} ms`);
  await context.close();
}
results.sort((a, b) => a - b);
console.log(
  `median LCP ${Math.round(results[Math.floor(results.length / 2)]!)} ms over ${runs} cold loads (slow 4G, 4× CPU, 390×844)`,
);
await browser.close();
await server?.dispose();
