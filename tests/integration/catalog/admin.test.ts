/**
 * The catalog in the database, changed by admins (docs/catalog.md): the API (admin session or key; a member is
 * refused), the CLI (another process: the server sees its change within a second), the /admin/models page, a price
 * change (a task keeps the price it was created at), disabling, plan-only models, and adding a fal and a Replicate
 * model without code from their published schemas — generated live against the fakes. Both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { user } from "#db/schema";
import { type FalFake, startFalFake } from "../../fakes/fal";
import { type ReplicateFake, startReplicateFake } from "../../fakes/replicate";
import { Client, uniqueEmail } from "../../support/client";
import { insertApiKey, makePremiumIn, markVerified, openServerDb } from "../../support/db";
import { databaseEnv, runAtelier, startServer, type TestServer } from "../../support/server";

const ADMIN_EMAIL = "catalog-admin@admin.test";
let server: TestServer;
let api: Client;
let db: Db;
let fal: FalFake;
let replicate: ReplicateFake;
let admin: { cookie: string; userId: string; key: string };
let member: { cookie: string; userId: string; key: string };

beforeAll(async () => {
  fal = startFalFake();
  replicate = startReplicateFake();
  fal.steps = { queued: 0, running: 1 };
  replicate.steps = { starting: 0, processing: 1 };
  server = await startServer({
    env: {
      SIGNUP_CREDITS: "200",
      SIMULATOR_DELAY_MS: "1500",
      FAL_KEY: fal.key,
      FAL_QUEUE_URL: fal.baseUrl,
      FAL_API_URL: fal.baseUrl,
      REPLICATE_API_TOKEN: replicate.token,
      REPLICATE_BASE_URL: replicate.baseUrl,
      OUTBOUND_ALLOW_PRIVATE: "true",
    },
  });
  api = new Client(server.url);
  db = await openServerDb(server.dataDir);
  const a = await api.signUp(ADMIN_EMAIL);
  await markVerified(db, a.userId);
  // What `atelier admin promote` stores.
  await db.run(db.update(user).set({ role: "admin" }).where(eq(user.id, a.userId)));
  admin = { ...a, key: await insertApiKey(db, a.userId) };
  const m = await api.signUp(uniqueEmail("member"));
  member = { ...m, key: await insertApiKey(db, m.userId) };
});
afterAll(async () => {
  void db?.close();
  await server?.dispose();
  await Promise.all([fal?.stop(), replicate?.stop()]);
});

/** `atelier admin …` in another process on the server's database. */
const cli = (args: string[], env: Record<string, string> = {}) =>
  runAtelier(["admin", ...args], {
    cwd: server.dataDir,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? "/tmp",
      DATA_DIR: server.dataDir,
      LOG_LEVEL: "warn",
      ...databaseEnv(server),
      ...env,
    },
  });

const listed = async (model: string, aiType = "image") =>
  ((await api.post("/api/models", undefined)).body.data.models as any[]).find(
    (m) => m.model === model && m.ai_type === aiType,
  );

async function waitFor<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 1500): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > deadline) return v;
    await Bun.sleep(50);
  }
}

async function waitForFinal(cookie: string, id: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api.post("/api/generator/query", { gen_id: id }, { cookie });
    if (r.body.data.status === "completed" || r.body.data.status === "failed") return r.body.data;
    if (Date.now() > deadline) throw new Error(`task ${id} still ${r.body.data.status}`);
    await Bun.sleep(150);
  }
}

const generate = (cookie: string, body: Record<string, unknown>) =>
  api.post("/api/generator/generate", { prompt: "a lighthouse at dusk", ...body }, { cookie });

describe("who may change the catalog", () => {
  const upsert = { ai_type: "image", provider: "openai", model: "dall-e-3", credits: 1 };
  for (const path of ["/api/admin/models/upsert", "/api/admin/models/list"]) {
    test(`${path}: a member (session or key) gets forbidden, code 1; anonymous no auth; GET 405`, async () => {
      const body = path.endsWith("upsert") ? upsert : undefined;
      expect((await api.post(path, body, { cookie: member.cookie })).body).toEqual({
        code: 1,
        message: "forbidden",
        data: null,
      });
      expect((await api.post(path, body, { apiKey: member.key })).body.code).toBe(1);
      expect((await api.post(path, body)).body).toEqual({ code: 1, message: "no auth, please sign-in", data: null });
      expect((await fetch(server.url + path)).status).toBe(405);
    });
  }

  test("nothing a member sent changed the price", async () => {
    expect((await listed("dall-e-3")).credits).toBe(5);
  });

  test("/admin/models answers 200 to an admin, 404 to a member", async () => {
    const page = await fetch(`${server.url}/admin/models`, { headers: { cookie: admin.cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("dall-e-3");
    expect((await fetch(`${server.url}/admin/models`, { headers: { cookie: member.cookie } })).status).toBe(404);
  });
});

describe("upsert", () => {
  test("credits and enabled by API key: listed within 1.5 s; a disabled model refuses new tasks and creates nothing", async () => {
    const r = await api.post(
      "/api/admin/models/upsert",
      { ai_type: "image", provider: "kling", model: "kling-v1", credits: 6, enabled: true },
      { apiKey: admin.key },
    );
    expect(r.body.code).toBe(0);
    expect(r.body.data.model).toMatchObject({ model: "kling-v1", credits: 6, enabled: true });
    expect(
      (
        await waitFor(
          () => listed("kling-v1"),
          (m) => m?.credits === 6,
        )
      ).credits,
    ).toBe(6);

    await api.post(
      "/api/admin/models/upsert",
      { ai_type: "image", provider: "kling", model: "kling-v1", enabled: false },
      { cookie: admin.cookie },
    );
    expect(
      await waitFor(
        () => listed("kling-v1"),
        (m) => m === undefined,
      ),
    ).toBeUndefined();
    const list = (await api.post("/api/admin/models/list", undefined, { cookie: admin.cookie })).body.data.models;
    expect(list.find((m: any) => m.model === "kling-v1" && m.ai_type === "image")).toMatchObject({
      enabled: false,
      credits: 6,
    });
    const refused = await generate(member.cookie, { ai_type: "image", provider: "kling", model: "kling-v1" });
    expect(refused.body).toEqual({ code: 1, message: "model not available: kling-v1 is disabled", data: null });
    const history = await api.post("/api/generator/history", {}, { cookie: member.cookie });
    expect(history.body.data.total).toBe(0);
    // The video model of the same id is untouched.
    expect((await listed("kling-v1", "video")).credits).toBe(10);
  });

  test("bad input is refused with a reason: a new model without a price, an image option under another name", async () => {
    const noPrice = await api.post(
      "/api/admin/models/upsert",
      { ai_type: "image", provider: "fal", model: "fal-ai/nothing-yet" },
      { cookie: admin.cookie },
    );
    expect(noPrice.body).toEqual({
      code: 1,
      message: "invalid params: credits is required for a new model",
      data: null,
    });
    const badImage = await api.post(
      "/api/admin/models/upsert",
      {
        ai_type: "image",
        provider: "fal",
        model: "fal-ai/x",
        credits: 2,
        options: { picture: { type: "image", label: "Picture" } },
      },
      { cookie: admin.cookie },
    );
    expect(badImage.body.code).toBe(1);
    expect(badImage.body.message).toContain("an image option is named image, image_end, mask");
  });

  test("a price change applies to tasks created after it; a task created before is charged its old price", async () => {
    const user = await api.signUp(uniqueEmail("price"));
    const before = await generate(user.cookie, { ai_type: "image", provider: "openai", model: "dall-e-3" });
    expect(before.body.code).toBe(0);
    await api.post(
      "/api/admin/models/upsert",
      { ai_type: "image", provider: "openai", model: "dall-e-3", credits: 9 },
      { cookie: admin.cookie },
    );
    await waitFor(
      () => listed("dall-e-3"),
      (m) => m?.credits === 9,
    );
    const after = await generate(user.cookie, { ai_type: "image", provider: "openai", model: "dall-e-3" });
    expect((await waitForFinal(user.cookie, before.body.data.gen_id)).status).toBe("completed");
    expect((await waitForFinal(user.cookie, after.body.data.gen_id)).status).toBe("completed");
    const history = (await api.post("/api/generator/history", {}, { cookie: user.cookie })).body.data.generations;
    const cost = (id: string) => history.find((g: any) => g.gen_id === id).credits_cost;
    expect(cost(before.body.data.gen_id)).toBe(5);
    expect(cost(after.body.data.gen_id)).toBe(9);
    expect((await api.post("/api/get-user-credits", undefined, { cookie: user.cookie })).body.data.left_credits).toBe(
      200 - 14,
    );
    await api.post(
      "/api/admin/models/upsert",
      { ai_type: "image", provider: "openai", model: "dall-e-3", credits: 5 },
      { cookie: admin.cookie },
    );
  });

  test("a plan-only model: refused without a subscription (nothing created), runs with one", async () => {
    await api.post(
      "/api/admin/models/upsert",
      { ai_type: "video", provider: "runway", model: "gen4.5", requires_plan: true },
      { cookie: admin.cookie },
    );
    expect(
      (
        await waitFor(
          () => listed("gen4.5", "video"),
          (m) => m?.requires_plan === true,
        )
      ).requires_plan,
    ).toBe(true);
    const user = await api.signUp(uniqueEmail("plan"));
    const refused = await generate(user.cookie, { ai_type: "video", provider: "runway", model: "gen4.5" });
    expect(refused.body).toEqual({
      code: 1,
      message: "subscription required: gen4.5 needs an active plan",
      data: null,
    });
    await makePremiumIn(db, user.userId);
    expect((await generate(user.cookie, { ai_type: "video", provider: "runway", model: "gen4.5" })).body.code).toBe(0);
  });

  test("atelier admin models set (another process): the server lists the change within 1.5 s", async () => {
    const r = await cli([
      "models",
      "set",
      "--ai-type",
      "video",
      "--provider",
      "kling",
      "--model",
      "kling-v1-6",
      "--credits",
      "17",
      "--cost-usd",
      "0.3",
      "--cost-per",
      "task",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ credits: 17, cost: { usd: 0.3, per: "task" } });
    expect(
      (
        await waitFor(
          () => listed("kling-v1-6", "video"),
          (m) => m?.credits === 17,
        )
      ).credits,
    ).toBe(17);
    const list = await cli(["models", "list"]);
    expect(list.stdout).toMatch(/kling-v1-6\s+17 credits/);
  });
});

describe("adding models without code", () => {
  test("fal: read an endpoint's OpenAPI inputs, sell it, generate live through fal's queue", async () => {
    const id = "fal-ai/wan/v2.2-a14b/text-to-video";
    const imported = await cli(["models", "import", "--provider", "fal", "--model", id, "--json"], {
      FAL_API_URL: fal.baseUrl,
      OUTBOUND_ALLOW_PRIVATE: "true",
    });
    expect(imported.code).toBe(0);
    const options = JSON.parse(imported.stdout).options;
    expect(options.resolution).toEqual({
      type: "enum",
      values: ["480p", "580p", "720p"],
      default: "720p",
      label: "Resolution",
      help: "Resolution of the generated video.",
    });
    expect(options.num_frames).toMatchObject({ type: "integer", min: 17, max: 161, default: 81 });
    expect(options.prompt).toBeUndefined();
    const saved = await api.post(
      "/api/admin/models/upsert",
      {
        ai_type: "video",
        provider: "fal",
        model: id,
        label: "Wan 2.2",
        credits: 7,
        options: { resolution: options.resolution },
      },
      { cookie: admin.cookie },
    );
    expect(saved.body.code).toBe(0);
    const m = await waitFor(
      () => listed(id, "video"),
      (x) => x !== undefined,
    );
    expect(m).toMatchObject({ provider: "fal", credits: 7, mode: "live", inputs: ["text"] });
    expect(m.options.properties.resolution.enum).toEqual(["480p", "580p", "720p"]);

    const user = await api.signUp(uniqueEmail("wan"));
    // The studio offers it as a video chip without a sample image (none ships for a model an admin added).
    const studio = await (await fetch(`${server.url}/studio?type=video`, { headers: { cookie: user.cookie } })).text();
    expect(studio).toContain("Wan 2.2");
    expect(studio).not.toContain("/samples/models/video-fal-fal-ai-wan");
    // Its options form is the imported schema's: the resolution choices the admin exposed, as a select.
    const withOptions = await (
      await fetch(`${server.url}/studio?${new URLSearchParams({ make: "video", offering: `video|fal|${id}` })}`, {
        headers: { cookie: user.cookie },
      })
    ).text();
    const select = /<select[^>]*name="[^"]*resolution[^"]*"[^>]*>([\s\S]*?)<\/select>/.exec(withOptions)?.[1] ?? "";
    expect([...select.matchAll(/<option[^>]*value="([^"]+)"/g)].map((m) => m[1])).toEqual(["480p", "580p", "720p"]);
    const r = await generate(user.cookie, {
      ai_type: "video",
      provider: "fal",
      model: id,
      options: { resolution: "480p" },
    });
    expect(r.body.code).toBe(0);
    expect((await waitForFinal(user.cookie, r.body.data.gen_id)).status).toBe("completed");
    const submit = fal.state.requests.find((q) => q.method === "POST" && q.path === `/${id}`)!;
    expect(submit.body).toEqual({ prompt: "a lighthouse at dusk", resolution: "480p" });
    expect((await api.post("/api/get-user-credits", undefined, { cookie: user.cookie })).body.data.left_credits).toBe(
      193,
    );
  });

  test("Replicate: the page reads owner/name's openapi_schema; the model is sold and generates live", async () => {
    const page = await fetch(`${server.url}/admin/models?import=replicate&id=black-forest-labs/flux-dev`, {
      headers: { cookie: admin.cookie },
    });
    expect(page.status).toBe(200);
    const html = (await page.text()).replace(/<!-- -->/g, "");
    // The inputs read from the schema: prompt is the task's own, `image` (a URI) is the image input.
    expect(html).toContain(
      "Read 7 inputs from black-forest-labs/flux-dev: image, aspect_ratio, num_outputs, guidance, seed, go_fast, output_format",
    );
    const saved = await api.post(
      "/api/admin/models/upsert",
      {
        ai_type: "image",
        provider: "replicate",
        model: "black-forest-labs/flux-dev",
        credits: 4,
        options: {
          aspect_ratio: { type: "enum", values: ["1:1", "16:9"], default: "1:1", label: "Aspect ratio" },
          image: { type: "image", label: "Image", param: "image" },
        },
      },
      { cookie: admin.cookie },
    );
    expect(saved.body.code).toBe(0);
    const m = await waitFor(
      () => listed("black-forest-labs/flux-dev"),
      (x) => x !== undefined,
    );
    expect(m.inputs).toEqual(["text", "image"]);
    const user = await api.signUp(uniqueEmail("flux-dev"));
    const r = await generate(user.cookie, {
      ai_type: "image",
      provider: "replicate",
      model: "black-forest-labs/flux-dev",
      options: { aspect_ratio: "16:9" },
    });
    expect(r.body.code).toBe(0);
    expect((await waitForFinal(user.cookie, r.body.data.gen_id)).status).toBe("completed");
  });
});
