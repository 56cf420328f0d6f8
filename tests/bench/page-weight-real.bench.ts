#!/usr/bin/env bun
/**
 * The studio's weight with real-size results, renditions on against off, in one run (docs/media.md): 24 results
 * whose files are 1024² noisy PNGs of about 3 MB (the OpenAI fake answers a new one each time), then cold loads of
 * the signed-in /studio at 1440×900 (1×) and 390×844 (2×, phone): image bytes, total bytes and requests until the
 * network is idle (unthrottled), and the largest contentful paint over slow 4G (150 ms RTT, 1.6 Mbit/s) with 4×
 * CPU throttling (read 15 s after the document; a page still loading 70 MB reports what painted by then).
 * A bench that prints, not a timed test: report `uptime` beside its numbers.
 * Usage: bun run build && bun tests/bench/page-weight-real.bench.ts
 */
import { chromium } from "@playwright/test";
import { CHROMIUM_ARGS } from "../e2e/playwright.config";
import { startOpenAIFake } from "../fakes/openai";
import { Client, uniqueEmail } from "../support/client";
import { noisyPng } from "../support/images";
import { startServer } from "../support/server";
import { until } from "../support/until";

const RESULTS = 24;
const openai = startOpenAIFake();
let seed = 1;
Object.defineProperty(openai, "picture", { get: () => noisyPng(1024, 1024, seed++), configurable: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: CHROMIUM_ARGS,
});
const kb = (n: number) => (n > 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(2)} MB` : `${(n / 1024).toFixed(0)} KB`);
const VIEWPORTS = [
  { name: "1440×900", viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1, isMobile: false },
  { name: "390×844", viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true },
];
const rows: string[] = [];

for (const renditions of [true, false]) {
  const server = await startServer({
    env: {
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      SIGNUP_CREDITS: "10000",
      RATE_LIMIT_STANDARD: "1000",
      MEDIA_RENDITIONS: String(renditions),
    },
  });
  const api = new Client(server.url);
  const { cookie } = await api.signUp(uniqueEmail("weight-real"));
  for (let i = 0; i < RESULTS; i++)
    await api.post(
      "/api/generator/generate",
      { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: `a harbour, take ${i}` },
      { cookie },
    );
  const want = renditions ? /<img [^>]*\.w256\.webp 256w/g : /<img [^>]*\/media\/[^"]*\.png/g;
  await until(
    "every result on the page",
    async () => {
      const html = await (await fetch(`${server.url}/studio`, { headers: { cookie } })).text();
      return (html.match(want)?.length ?? 0) >= RESULTS ? true : undefined;
    },
    300_000,
  );
  const [name, value] = cookie.split(";")[0]!.split("=") as [string, string];
  for (const v of VIEWPORTS) {
    const context = await browser.newContext({
      viewport: v.viewport,
      deviceScaleFactor: v.deviceScaleFactor,
      isMobile: v.isMobile,
    });
    await context.addCookies([{ name, value, url: server.url }]);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    const types = new Map<string, string>();
    const bytes: Record<string, number> = {};
    let requests = 0;
    let imageRequests = 0;
    cdp.on("Network.responseReceived", (e) => types.set(e.requestId, e.type));
    cdp.on("Network.loadingFinished", (e) => {
      const type = types.get(e.requestId) ?? "Other";
      bytes[type] = (bytes[type] ?? 0) + e.encodedDataLength;
      requests++;
      if (type === "Image" && e.encodedDataLength > 0) imageRequests++;
    });
    await page.goto(`${server.url}/studio`, { waitUntil: "networkidle", timeout: 300_000 });
    const total = Object.values(bytes).reduce((a, b) => a + b, 0);
    await context.close();

    const slow = await browser.newContext({
      viewport: v.viewport,
      deviceScaleFactor: v.deviceScaleFactor,
      isMobile: v.isMobile,
    });
    await slow.addCookies([{ name, value, url: server.url }]);
    const slowPage = await slow.newPage();
    const slowCdp = await slow.newCDPSession(slowPage);
    await slowCdp.send("Network.enable");
    await slowCdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 150,
      downloadThroughput: (1.6 * 1024 * 1024) / 8,
      uploadThroughput: (750 * 1024) / 8,
    });
    await slowCdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
    await slowPage.goto(`${server.url}/studio`, { waitUntil: "domcontentloaded", timeout: 120_000 });
    const lcp = await slowPage.evaluate(
      () =>
        new Promise<number>((resolve) => {
          let last = 0;
          new PerformanceObserver((list) => {
            for (const e of list.getEntries()) last = e.startTime;
          }).observe({ type: "largest-contentful-paint", buffered: true });
          setTimeout(() => resolve(last), 15_000);
        }),
    );
    await slow.close();
    rows.push(
      `${renditions ? "renditions" : "originals "}  ${v.name.padEnd(9)} images ${kb(bytes.Image ?? 0).padStart(9)} (${imageRequests} files)  total ${kb(total).padStart(9)}  requests ${String(requests).padStart(3)}  LCP slow 4G + 4× CPU ${Math.round(lcp)} ms`,
    );
    console.log(rows.at(-1));
  }
  await server.dispose();
}
await browser.close();
await openai.stop();
console.log(`\n/studio, ${RESULTS} results of 1024² PNGs (~3 MB each), cold loads:`);
for (const r of rows) console.log(`  ${r}`);
console.log(`load average: ${(await Bun.$`uptime`.text()).trim()}`);
