/**
 * The studio's weight with real-size results (docs/media.md, issue #43's contract): 24 results whose stored files
 * are 1024² noisy PNGs of about 3 MB each (from an OpenAI fake, tests/fakes/real-size-openai.ts), and a cold first
 * load of the signed-in /studio at 1440×900 until the network is idle transfers at most 1.5 MB of images; every
 * gallery picture has `srcset`, `width` and `height`. With the originals the same page is about 70 MB.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { expect, test } from "@playwright/test";
import { startSecondServer, unique } from "./support";

const PORT = Number(process.env.E2E_PORT) + 7;
const RESULTS = 24;
const BUDGET = 1.5 * 1024 * 1024;

let fake: ChildProcess | undefined;
let server: Awaited<ReturnType<typeof startSecondServer>> | undefined;

test.afterAll(() => {
  server?.stop();
  fake?.kill("SIGTERM");
});

async function startFake(): Promise<{ baseUrl: string; apiKey: string }> {
  fake = spawn("bun", [join(import.meta.dirname, "../fakes/real-size-openai.ts"), "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: fake.stdout! });
  for await (const line of lines) return JSON.parse(line);
  throw new Error("the fake printed nothing");
}

test("studio first load at 1440×900 with 24 real-size results: ≤ 1.5 MB of images; srcset, width, height on every picture", async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const openai = await startFake();
  server = await startSecondServer({
    port: PORT,
    tag: "weight",
    env: {
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      SIGNUP_CREDITS: "100000",
      RATE_LIMIT_STANDARD: "1000",
    },
  });
  const base = server.base;
  const setup = await browser.newContext();
  const headers = { origin: base };
  const signUp = await setup.request.post(`${base}/api/auth/sign-up/email`, {
    data: { name: "Weight", email: unique("weight"), password: "correct-horse-battery" },
    headers,
  });
  expect(signUp.ok()).toBe(true);
  for (let i = 0; i < RESULTS; i++) {
    const r = await setup.request.post(`${base}/api/generator/generate`, {
      data: { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: `a harbour at noon, take ${i}` },
      headers,
    });
    expect((await r.json()).code).toBe(0);
  }
  // Every result completed and its renditions recorded (the gallery then names the 256 px one of each).
  await expect
    .poll(
      async () => {
        const html = await (await setup.request.get(`${base}/studio`)).text();
        return html.match(/<img [^>]*\.w256\.webp 256w/g)?.length ?? 0;
      },
      { timeout: 200_000, intervals: [1000] },
    )
    .toBe(RESULTS);
  const state = await setup.storageState();
  await setup.close();

  const context = await browser.newContext({ storageState: state, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  const types = new Map<string, string>();
  let imageBytes = 0;
  let images = 0;
  cdp.on("Network.responseReceived", (e) => types.set(e.requestId, e.type));
  cdp.on("Network.loadingFinished", (e) => {
    if (types.get(e.requestId) !== "Image") return;
    imageBytes += e.encodedDataLength;
    images++;
  });
  await page.goto(`${base}/studio`, { waitUntil: "networkidle" });
  const gallery = page.getByRole("list", { name: "Gallery" }).locator("img:not([data-placeholder])");
  await expect(gallery).toHaveCount(RESULTS);
  for (const img of await gallery.all()) {
    await expect(img).toHaveAttribute("srcset", /\.w256\.webp 256w/);
    await expect(img).toHaveAttribute("width", /^\d+$/);
    await expect(img).toHaveAttribute("height", /^\d+$/);
  }
  await page.screenshot({ path: join(import.meta.dirname, "../../test-results/page-weight-1440.png") });
  console.log(`studio at 1440×900: ${images} images, ${(imageBytes / 1024).toFixed(1)} KB`);
  expect(images).toBeGreaterThan(0);
  expect(imageBytes).toBeLessThanOrEqual(BUDGET);

  const phone = await browser.newContext({
    storageState: state,
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
  });
  const phonePage = await phone.newPage();
  await phonePage.goto(`${base}/studio`, { waitUntil: "networkidle" });
  await phonePage.screenshot({ path: join(import.meta.dirname, "../../test-results/page-weight-390.png") });
  await phone.close();
  await context.close();
});
