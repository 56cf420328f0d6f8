/**
 * Simulated results as a person's browser gets them (docs/decisions/049-simulated-videos-h264.md): a simulated
 * video is an MP4 that Chromium's own decoder plays — at the aspect ratio and
 * duration the options asked for, its progress bar filling — served with the
 * right type and byte ranges; a simulated image has the asked aspect ratio.
 */
import { expect, type Page, test } from "@playwright/test";

const origin = () => `http://localhost:${process.env.E2E_PORT}`;

async function session(page: Page) {
  const email = `media-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.test`;
  const r = await page.request.post("/api/auth/sign-up/email", {
    data: { name: "Media", email, password: "correct-horse-battery" },
    headers: { origin: origin() },
  });
  expect(r.ok()).toBe(true);
}

async function generate(page: Page, body: Record<string, unknown>): Promise<string> {
  const headers = { origin: origin(), "content-type": "application/json" };
  const created = await (await page.request.post("/api/generator/generate", { data: body, headers })).json();
  expect(created.code, created.message).toBe(0);
  for (const until = Date.now() + 40_000; Date.now() < until; ) {
    const q = await (
      await page.request.post("/api/generator/query", { data: { gen_id: created.data.gen_id }, headers })
    ).json();
    if (q.data.status === "completed") return q.data.result_urls[0];
    expect(q.data.status).not.toBe("failed");
    await page.waitForTimeout(200);
  }
  throw new Error("task did not complete");
}

test("a simulated 9:16 video of 5 s plays in Chromium's <video>: size, duration, the bar fills", async ({ page }) => {
  await session(page);
  const url = await generate(page, {
    ai_type: "video",
    provider: "kling",
    model: "kling-v1",
    prompt: "a lighthouse in a storm",
    options: { aspect_ratio: "9:16", duration: 5 },
  });
  expect(url).toMatch(/\.mp4$/);
  const head = await page.request.get(url, { headers: { range: "bytes=0-99" } });
  expect(head.status()).toBe(206);
  expect(head.headers()["content-type"]).toBe("video/mp4");
  expect(head.headers()["content-range"]).toMatch(/^bytes 0-99\/\d+$/);

  await page.goto("/");
  const seen = await page.evaluate(async (src) => {
    const v = document.createElement("video");
    v.muted = true;
    v.src = src;
    document.body.append(v);
    await new Promise<void>((resolve, reject) => {
      v.onloadeddata = () => resolve();
      v.onerror = () => reject(new Error(`video error ${v.error?.code}: ${v.error?.message}`));
    });
    const sample = async (t: number) => {
      const seeked = new Promise((r) => (v.onseeked = r));
      // \`seeked\` can fire before the sought frame is the one drawImage reads: wait until it is presented
      // (requestVideoFrameCallback fires for a paused video after a seek; bounded so a missing callback cannot hang).
      const presented = new Promise((r) => {
        v.requestVideoFrameCallback(() => r(null));
        setTimeout(r, 2000);
      });
      v.currentTime = t;
      await seeked;
      await presented;
      const c = document.createElement("canvas");
      c.width = v.videoWidth;
      c.height = v.videoHeight;
      const ctx = c.getContext("2d", { willReadFrequently: true })!;
      ctx.drawImage(v, 0, 0);
      // The bar's row, a quarter of the way across: track (grey) early, accent later.
      return Array.from(ctx.getImageData(Math.round(c.width * 0.75), c.height - 2, 1, 1).data);
    };
    return {
      width: v.videoWidth,
      height: v.videoHeight,
      duration: v.duration,
      early: await sample(0.1),
      late: await sample(4.9),
    };
  }, url);
  expect({ width: seen.width, height: seen.height }).toEqual({ width: 288, height: 512 });
  expect(seen.duration).toBeCloseTo(5, 1);
  // Early: the grey track [60, 60, 72] (decoded: within a few levels); late: the bar has passed that point.
  const near = (a: number[], b: number[]) => a.slice(0, 3).every((x, i) => Math.abs(x - b[i]!) <= 8);
  expect(near(seen.early, [60, 60, 72])).toBe(true);
  expect(near(seen.late, [60, 60, 72])).toBe(false);
});

test("a simulated 16:9 FLUX image is 16:9", async ({ page }) => {
  await session(page);
  const url = await generate(page, {
    ai_type: "image",
    provider: "replicate",
    model: "black-forest-labs/flux-schnell",
    prompt: "a red fox",
    options: { aspect_ratio: "16:9" },
  });
  await page.goto("/");
  const size = await page.evaluate(async (src) => {
    const img = new Image();
    img.src = src;
    await img.decode();
    return { w: img.naturalWidth, h: img.naturalHeight };
  }, url);
  expect(size).toEqual({ w: 512, h: 288 });
});
