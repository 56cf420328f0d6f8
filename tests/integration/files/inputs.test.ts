/**
 * Image inputs at create (docs/catalog.md "Image inputs", docs/api.md §4.17): a file id of the user becomes the task's
 * input (query and history show `inputs`, the simulator renders it, the file stops expiring); another user's file, a
 * URL the outbound guard refuses (loopback, the metadata address) or that is not fetchable refuses the
 * create with nothing charged or stored; required inputs are enforced; models without inputs refuse one.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { serverForFile } from "../../support/fixtures";
import { png, pngBomb, pngSized } from "../../support/images";
import { TEST_AUTH_SECRET } from "../../support/server";

const it = serverForFile({
  env: { SIGNUP_CREDITS: "20", SIMULATOR_DELAY_MS: "0", BETTER_AUTH_SECRET: TEST_AUTH_SECRET },
});

/** A stand-in for what an attacker points an input URL at: a service on loopback that would answer a picture. */
const internal = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => new Response(png(4, 4), { headers: { "content-type": "image/png" } }),
});
afterAll(() => internal.stop(true));

async function user() {
  const { cookie } = await it.api.signUp(uniqueEmail("inputs"));
  const apiKey = (await it.api.post("/api/keys/create", { name: "inputs" }, { cookie })).body.data.key as string;
  return { apiKey };
}

async function upload(who: { apiKey: string }, bytes: Uint8Array) {
  return (await it.api.upload(bytes, who)).body.data as { file_id: string; url: string };
}

const animate = (who: { apiKey: string }, options: Record<string, unknown>, model = "kling-v1", provider = "kling") =>
  it.api.post("/api/generator/generate", { ai_type: "video", provider, model, prompt: "the sea moves", options }, who);

async function state(who: { apiKey: string }) {
  const credits = (await it.api.post("/api/get-user-credits", {}, who)).body.data.left_credits;
  const tasks = (await it.api.post("/api/generator/history", {}, who)).body.data.total;
  const files = (await it.api.post("/api/files/list", {}, who)).body.data.total;
  return { credits, tasks, files };
}

/** The server process's resident memory, from the kernel. */
const serverRss = () => {
  const status = readFileSync(`/proc/${it.server.proc.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
};

describe("a decompression bomb already stored", () => {
  test("used as a simulated input it is never inflated: /api/health within 1 s, memory within 600 MB", async () => {
    const u = await user();
    // Stored as a real 64×64 picture, then its bytes swapped on disk for a bomb of the same header (what a file
    // stored before uploads were bound looks like): 64×64 whose data inflates to 1 GiB.
    const f = await upload(u, pngSized(64, 64, 64 * 193));
    const [row] = await queryServerDb(it.server.dataDir, "SELECT storage_key FROM files WHERE id = ?", f.file_id);
    writeFileSync(join(it.server.dataDir, "files", row!.storage_key as string), await pngBomb(64, 64, 1024 ** 3));
    const before = serverRss();
    let peak = before;
    let slowest = 0;
    const r = await it.api.post(
      "/api/generator/generate",
      {
        ai_type: "image",
        provider: "openai",
        model: "gpt-image-1",
        prompt: "make it night",
        options: { image: f.file_id },
      },
      u,
    );
    expect(r.body.code).toBe(0);
    let status = "";
    for (let i = 0; i < 100 && status !== "completed" && status !== "failed"; i++) {
      const t0 = performance.now();
      expect((await fetch(`${it.server.url}/api/health`)).status).toBe(200);
      slowest = Math.max(slowest, performance.now() - t0);
      peak = Math.max(peak, serverRss());
      status = (await it.api.post("/api/generator/query", { gen_id: r.body.data.gen_id }, u)).body.data.status;
      await Bun.sleep(20);
    }
    // The picture is not read (the result shows the prompt alone), and the task completes as without one.
    expect(status).toBe("completed");
    expect(slowest).toBeLessThan(1000);
    expect(peak - before).toBeLessThan(600 * 1024 * 1024);
  });
});

describe("image inputs at create", () => {
  test("a file id: the task takes it; query and history show inputs.image; the file stops expiring", async () => {
    const u = await user();
    const f = await upload(u, png(64, 48));
    const r = await animate(u, { image: f.file_id });
    expect(r.body.code).toBe(0);
    const genId = r.body.data.gen_id as string;
    let q = await it.api.post("/api/generator/query", { gen_id: genId }, u);
    expect(q.body.data.inputs).toEqual({ image: f.url });
    for (let i = 0; i < 200 && q.body.data.status !== "completed" && q.body.data.status !== "failed"; i++) {
      await Bun.sleep(50);
      q = await it.api.post("/api/generator/query", { gen_id: genId }, u);
    }
    expect({ status: q.body.data.status, error: q.body.data.error_message }).toEqual({
      status: "completed",
      error: undefined,
    });
    expect(q.body.data.inputs).toEqual({ image: f.url });
    const h = await it.api.post("/api/generator/history", {}, u);
    expect(h.body.data.generations[0].inputs).toEqual({ image: f.url });
    const listed = (await it.api.post("/api/files/list", {}, u)).body.data.files[0];
    expect(listed).toMatchObject({ file_id: f.file_id, expires_at: null });
    const opened = await fetch(q.body.data.inputs.image, { headers: { "x-api-key": u.apiKey } });
    expect(opened.status).toBe(200);
  });

  test("the simulated edit is drawn on the input: a 2:1 picture gives a 2:1 result, the prompt alone a square", async () => {
    const u = await user();
    const f = await upload(u, png(300, 150));
    const edit = async (options: Record<string, unknown>) => {
      const body = { ai_type: "image", provider: "openai", model: "gpt-image-1", prompt: "make it night", options };
      const r = await it.api.post("/api/generator/generate", body, u);
      expect(r.body.code).toBe(0);
      let q = await it.api.post("/api/generator/query", { gen_id: r.body.data.gen_id }, u);
      for (let i = 0; i < 200 && q.body.data.status !== "completed" && q.body.data.status !== "failed"; i++) {
        await Bun.sleep(50);
        q = await it.api.post("/api/generator/query", { gen_id: r.body.data.gen_id }, u);
      }
      expect(q.body.data.status).toBe("completed");
      const res = await fetch(q.body.data.result_urls[0]);
      const bytes = new Uint8Array(await res.arrayBuffer());
      const view = new DataView(bytes.buffer);
      return view.getUint32(16) / view.getUint32(20); // the PNG's IHDR width / height
    };
    expect(await edit({ image: f.file_id })).toBeCloseTo(2, 1);
    expect(await edit({})).toBeCloseTo(1, 1);
  });

  test("another user's file id is not found: nothing created or charged", async () => {
    const owner = await user();
    const other = await user();
    const f = await upload(owner, png(8, 8));
    const before = await state(other);
    const r = await animate(other, { image: f.file_id });
    expect(r.body).toEqual({ code: 1, message: "invalid params: options.image: file not found", data: null });
    expect(await state(other)).toEqual(before);
  });

  test("SSRF: loopback, localhost, the metadata address, IPv6 loopback, plain http — refused, nothing charged", async () => {
    const u = await user();
    const before = await state(u);
    const port = internal.port;
    const cases: [string, string][] = [
      [`https://127.0.0.1:${port}/pic.png`, "the URL cannot be fetched: 127.0.0.1 is not a public internet address"],
      [
        `https://localhost:${port}/pic.png`,
        "the URL cannot be fetched: localhost does not resolve to a public internet address",
      ],
      [
        "https://169.254.169.254/latest/meta-data/",
        "the URL cannot be fetched: 169.254.169.254 is not a public internet address",
      ],
      ["https://[::1]/x.png", "the URL cannot be fetched: ::1 is not a public internet address"],
    ];
    for (const [url, why] of cases) {
      const r = await animate(u, { image: url });
      expect({ url, body: r.body }).toEqual({
        url,
        body: { code: 1, message: `invalid params: options.image: ${why}`, data: null },
      });
    }
    const plain = await animate(u, { image: `http://127.0.0.1:${port}/pic.png` });
    expect(plain.body.message).toStartWith("invalid params: options.image must be an https URL");
    expect(await state(u)).toEqual(before);
  });

  test("a URL that cannot be fetched refuses the create: nothing charged or stored", async () => {
    const u = await user();
    const before = await state(u);
    const r = await animate(u, { image: "https://no-such-host.invalid/pic.png" });
    expect(r.body.code).toBe(1);
    expect(r.body.message).toStartWith("invalid params: options.image: the URL cannot be fetched");
    expect(await state(u)).toEqual(before);
  });

  test("required inputs are enforced; models without inputs refuse options.image", async () => {
    const u = await user();
    const runway = await animate(u, {}, "gen4_turbo", "runway");
    expect(runway.body.message).toBe("invalid params: options.image is required");
    const f = await upload(u, png(8, 8));
    const flux = await it.api.post(
      "/api/generator/generate",
      {
        ai_type: "image",
        provider: "replicate",
        model: "black-forest-labs/flux-schnell",
        prompt: "x",
        options: { image: f.file_id },
      },
      u,
    );
    expect(flux.body.code).toBe(1);
    expect(flux.body.message).toStartWith(
      "invalid params: options.image is not accepted by black-forest-labs/flux-schnell",
    );
  });
});
