/**
 * Trust and safety over real HTTP (issue #41, docs/safety.md), both engines: blocked terms from the CLI refuse a
 * prompt everywhere before anything is created or charged; OpenAI moderation (a local fake) refuses a flagged prompt
 * and a flagged picture and fails closed; `[simulate:unsafe]` makes the provider's own verdict fail the task uncharged;
 * provider safety switches are never user options (seed and imported models) and the adapter sends the operator's;
 * /admin/safety for admins, /content-policy for anyone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { safetyEvents, user } from "#db/schema";
import { SAMPLE_PNG } from "../../fakes/common";
import { type FalFake, startFalFake } from "../../fakes/fal";
import { type ModerationFake, startModerationFake } from "../../fakes/openai-moderation";
import { type ReplicateFake, startReplicateFake } from "../../fakes/replicate";
import { Client, uniqueEmail } from "../../support/client";
import { insertApiKey, markVerified, openServerDb } from "../../support/db";
import { postPageForm, runAdmin } from "../../support/fixtures";
import { startServer, type TestServer } from "../../support/server";
import { until } from "../../support/until";

let server: TestServer;
let api: Client;
let db: Db;
let moderation: ModerationFake;
let fal: FalFake;
let replicate: ReplicateFake;
let admin: { cookie: string; userId: string };

beforeAll(async () => {
  moderation = startModerationFake();
  fal = startFalFake();
  fal.steps = { queued: 0, running: 0 };
  replicate = startReplicateFake();
  server = await startServer({
    env: {
      SIGNUP_CREDITS: "100",
      SIMULATOR_DELAY_MS: "50",
      MODERATION_PROVIDER: "openai",
      OPENAI_API_KEY: moderation.apiKey,
      OPENAI_BASE_URL: moderation.baseUrl,
      MODERATION_TIMEOUT_MS: "2000",
      FAL_KEY: fal.key,
      FAL_QUEUE_URL: fal.baseUrl,
      FAL_API_URL: fal.baseUrl,
      OUTBOUND_ALLOW_PRIVATE: "true",
    },
  });
  api = new Client(server.url);
  db = await openServerDb(server.dataDir);
  const a = await api.signUp(uniqueEmail("safety-admin"));
  await markVerified(db, a.userId);
  await db.run(db.update(user).set({ role: "admin" }).where(eq(user.id, a.userId)));
  admin = a;
});
afterAll(async () => {
  void db?.close();
  await server?.dispose();
  await Promise.all([moderation?.stop(), fal?.stop(), replicate?.stop()]);
});

/** A simulated model (Kling has no key here). */
const KLING = { ai_type: "image", provider: "kling", model: "kling-v1" };
const FAL = { ai_type: "image", provider: "fal", model: "fal-ai/flux/dev" };

const generate = (cookie: string, prompt: string, body: Record<string, unknown> = KLING) =>
  api.post("/api/generator/generate", { ...body, prompt }, { cookie });
const credits = async (cookie: string) =>
  (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits as number;
const historyTotal = async (cookie: string) =>
  (await api.post("/api/generator/history", { page_size: 1 }, { cookie })).body.data.total as number;
const final = (cookie: string, genId: string) =>
  until(`task ${genId} finished`, async () => {
    const d = (await api.post("/api/generator/query", { gen_id: genId }, { cookie })).body.data;
    return d.status === "completed" || d.status === "failed" ? d : undefined;
  });

/** Asserts a refusal created and charged nothing. */
async function expectRefused(cookie: string, prompt: string, body?: Record<string, unknown>) {
  const before = { credits: await credits(cookie), total: await historyTotal(cookie) };
  const r = await generate(cookie, prompt, body);
  expect(r.body.code).toBe(1);
  expect(r.body.message).toStartWith("content policy:");
  expect({ credits: await credits(cookie), total: await historyTotal(cookie) }).toEqual(before);
  return r;
}

describe("blocked terms (atelier admin safety block-term)", () => {
  test("a prompt holding the term as a word is refused on the API and /v1 — evasions too; a longer word is not", async () => {
    const blocked = await runAdmin(server, ["safety", "block-term", "Grimwort"]);
    expect(blocked.code).toBe(0);
    const u = await api.signUp(uniqueEmail("terms"));
    const key = await insertApiKey(db, u.userId);
    const refused = await expectRefused(u.cookie, "a grimwort in the garden");
    expect(refused.status).toBe(400);
    // The message names the rule, never the term.
    expect(refused.body.message).not.toContain("grimwort");
    for (const evasion of [
      "a GRIMWÖRT",
      "a grim\u200Bwort",
      "a gr\u0456mw\u043Ert",
      "a grim-\nwort",
      "ｇｒｉｍｗｏｒｔ!",
    ])
      await expectRefused(u.cookie, evasion);
    // With an API key too.
    const byKey = await api.post("/api/generator/generate", { ...KLING, prompt: "grimwort" }, { apiKey: key });
    expect(byKey.body.code).toBe(1);
    expect(byKey.body.message).toStartWith("content policy:");
    const v1 = await fetch(`${server.url}/v1/images/generations`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ model: "kling/kling-v1", prompt: "one grimwort please" }),
    });
    expect(v1.status).toBe(400);
    const err = (await v1.json()).error;
    expect(err.code).toBe("content_policy_violation");
    expect(err.message).toStartWith("content policy:");
    // Not a word of its own: allowed (and created).
    const ok = await generate(u.cookie, "grimworts and grimworthy things");
    expect(ok.body.code).toBe(0);
    expect((await final(u.cookie, ok.body.data.gen_id)).status).toBe("completed");

    const unblocked = await runAdmin(server, ["safety", "unblock-term", "GRIMWORT"]);
    expect(unblocked.code).toBe(0);
    expect((await generate(u.cookie, "a grimwort in the garden")).body.code).toBe(0);
    expect((await runAdmin(server, ["safety", "unblock-term", "grimwort"])).code).toBe(1);
    expect((await runAdmin(server, ["safety", "block-term", "!!!"])).code).toBe(1);
    const events = await db.many(db.select().from(safetyEvents).where(eq(safetyEvents.userId, u.userId)));
    expect(events.filter((e) => e.kind === "prompt_refused").length).toBeGreaterThanOrEqual(6);
    expect(events.every((e) => !String(e.detail ?? "").includes("grimwort"))).toBe(true);
  });
});

describe("OpenAI moderation (MODERATION_PROVIDER=openai)", () => {
  test("the prompt goes to POST /moderations; flagged is refused, unflagged passes", async () => {
    moderation.flagWords = ["velvetnude"];
    const u = await api.signUp(uniqueEmail("moderation"));
    const r = await expectRefused(u.cookie, "a velvetnude portrait");
    expect(r.body.message).toBe("content policy: the prompt was flagged as sexual content (see /content-policy)");
    const sent = moderation.state.requests.filter((q) => q.path === "/v1/moderations").map((q) => q.body);
    expect(sent).toContainEqual({ model: "omni-moderation-latest", input: "a velvetnude portrait" });
    expect(moderation.state.requests.at(-1)!.headers.authorization).toBe(`Bearer ${moderation.apiKey}`);
    const ok = await generate(u.cookie, "a quiet harbour");
    expect(ok.body.code).toBe(0);
    expect((await final(u.cookie, ok.body.data.gen_id)).status).toBe("completed");
  });

  test("moderation down fails closed: 503, code 1, nothing created or charged", async () => {
    const u = await api.signUp(uniqueEmail("moderation-down"));
    const before = { credits: await credits(u.cookie), total: await historyTotal(u.cookie) };
    moderation.state.fail("any", "server");
    const r = await generate(u.cookie, "a quiet harbour");
    expect(r.status).toBe(503);
    expect(r.body.code).toBe(1);
    expect(r.body.message).toStartWith("content policy:");
    expect({ credits: await credits(u.cookie), total: await historyTotal(u.cookie) }).toEqual(before);
  });

  test("a result picture the moderation flags fails its task uncharged, with no result_urls", async () => {
    const u = await api.signUp(uniqueEmail("moderation-result"));
    moderation.flagAllImages = true;
    try {
      const r = await generate(u.cookie, "a plain still life");
      expect(r.body.code).toBe(0);
      const d = await final(u.cookie, r.body.data.gen_id);
      expect(d.status).toBe("failed");
      expect(d.error_message).toStartWith("content policy:");
      expect(d.result_urls ?? []).toEqual([]);
      expect(await credits(u.cookie)).toBe(100);
      expect(moderation.inputs.some((i) => i.startsWith("image:"))).toBe(true);
    } finally {
      moderation.flagAllImages = false;
    }
  });
});

describe("the simulator's [simulate:unsafe]", () => {
  test("the provider's own verdict fails the task: content policy, no result_urls, not charged; a control completes and is charged", async () => {
    const u = await api.signUp(uniqueEmail("unsafe"));
    const r = await generate(u.cookie, "[simulate:unsafe] a cat");
    expect(r.body.code).toBe(0);
    const d = await final(u.cookie, r.body.data.gen_id);
    expect(d.status).toBe("failed");
    expect(d.error_message).toStartWith("content policy:");
    expect(d.result_urls ?? []).toEqual([]);
    expect(await credits(u.cookie)).toBe(100);
    const control = await generate(u.cookie, "a cat");
    const c = await final(u.cookie, control.body.data.gen_id);
    expect(c.status).toBe("completed");
    expect(await credits(u.cookie)).toBeLessThan(100);
  });
});

describe("provider safety switches are the operator's", () => {
  const SWITCH = /safety|nsfw|moderation|person_?generation/i;
  test("no model lists one among its options in POST /api/models; the seeded fal FLUX keeps its other options", async () => {
    const models = (await api.post("/api/models", undefined)).body.data.models as any[];
    const flux = models.find((m) => m.model === "fal-ai/flux/dev");
    expect(Object.keys(flux.options.properties)).toContain("guidance_scale");
    for (const m of models) expect(Object.keys(m.options?.properties ?? {}).filter((k) => SWITCH.test(k))).toEqual([]);
  });

  test("a task sending one is refused as an unknown option, in any of its spellings", async () => {
    const u = await api.signUp(uniqueEmail("switch"));
    for (const [body, key] of [
      [FAL, "enable_safety_checker"],
      [FAL, "disable_safety_checker"],
      [{ ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-kontext-pro" }, "safety_tolerance"],
    ] as const) {
      const r = await api.post(
        "/api/generator/generate",
        { ...body, prompt: "a boat", options: { [key]: key === "safety_tolerance" ? 6 : false } },
        { cookie: u.cookie },
      );
      expect(r.body.code).toBe(1);
      expect(r.body.message).toContain(`options.${key}`);
    }
  });

  test("the fal adapter sends the operator’s setting (the checker on), whatever the user asked", async () => {
    const u = await api.signUp(uniqueEmail("fal-safety"));
    const r = await generate(u.cookie, "a red kite", FAL);
    expect(r.body.code).toBe(0);
    expect((await final(u.cookie, r.body.data.gen_id)).status).toBe("completed");
    const submit = fal.state.requests.find((q) => q.method === "POST" && q.path === "/fal-ai/flux/dev")!;
    expect((submit.body as Record<string, unknown>).enable_safety_checker).toBe(true);
  });

  test("fal's own verdict (has_nsfw_concepts) fails the task: content policy, no result_urls, not charged", async () => {
    const u = await api.signUp(uniqueEmail("fal-nsfw"));
    fal.outcome = "nsfw";
    try {
      const r = await generate(u.cookie, "a red kite at night", FAL);
      const d = await final(u.cookie, r.body.data.gen_id);
      expect(d.status).toBe("failed");
      expect(d.error_message).toStartWith("content policy:");
      expect(d.result_urls ?? []).toEqual([]);
      expect(await credits(u.cookie)).toBe(100);
    } finally {
      fal.outcome = "succeeded";
    }
  });

  test("imported models (fal and Replicate schemas) drop their safety switches", async () => {
    const falImport = await runAdmin(
      server,
      ["models", "import", "--provider", "fal", "--model", "fal-ai/wan/v2.2-a14b/text-to-video", "--json"],
      { FAL_API_URL: fal.baseUrl, OUTBOUND_ALLOW_PRIVATE: "true" },
    );
    expect(falImport.code).toBe(0);
    const f = JSON.parse(falImport.stdout);
    expect(Object.keys(f.options)).toContain("resolution");
    expect(Object.keys(f.options).filter((k) => SWITCH.test(k))).toEqual([]);
    expect(f.skipped.map((s: { name: string }) => s.name)).toContain("enable_safety_checker");
    const repImport = await runAdmin(
      server,
      ["models", "import", "--provider", "replicate", "--model", "black-forest-labs/flux-dev", "--json"],
      { REPLICATE_API_TOKEN: replicate.token, REPLICATE_BASE_URL: replicate.baseUrl, OUTBOUND_ALLOW_PRIVATE: "true" },
    );
    expect(repImport.code).toBe(0);
    const rp = JSON.parse(repImport.stdout);
    expect(Object.keys(rp.options)).toContain("seed");
    expect(Object.keys(rp.options).filter((k) => SWITCH.test(k))).toEqual([]);
    expect(rp.skipped.map((s: { name: string }) => s.name)).toContain("disable_safety_checker");
    // An admin storing one anyway: it is still not a user option.
    const saved = await api.post(
      "/api/admin/models/upsert",
      {
        ai_type: "image",
        provider: "fal",
        model: "fal-ai/flux/schnell",
        label: "FLUX schnell",
        credits: 2,
        options: { enable_safety_checker: { type: "boolean", default: false, label: "Safety checker" } },
      },
      { cookie: admin.cookie },
    );
    expect(saved.body.code).toBe(0);
    const listed = await until("the upserted model is listed", async () =>
      ((await api.post("/api/models", undefined)).body.data.models as any[]).find(
        (m) => m.model === "fal-ai/flux/schnell",
      ),
    );
    expect(Object.keys(listed.options?.properties ?? {})).toEqual([]);
  });
});

describe("uploads", () => {
  test("an uploaded picture the moderation flags is refused (400, content policy) and not stored; an unflagged one is", async () => {
    const u = await api.signUp(uniqueEmail("upload"));
    const picture = new Blob([SAMPLE_PNG as Uint8Array<ArrayBuffer>], { type: "image/png" });
    const upload = async () => {
      const form = new FormData();
      form.append("file", picture, "in.png");
      const res = await fetch(`${server.url}/api/files`, {
        method: "POST",
        headers: { cookie: u.cookie, origin: server.url },
        body: form,
      });
      return { status: res.status, body: (await res.json()) as { code: number; message: string; data?: any } };
    };
    moderation.flagAllImages = true;
    try {
      const refused = await upload();
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe(1);
      expect(refused.body.message).toStartWith("content policy: the picture was flagged");
    } finally {
      moderation.flagAllImages = false;
    }
    const stored = async () =>
      ((await api.post("/api/files/list", {}, { cookie: u.cookie })).body.data.files as unknown[]).length;
    expect(await stored()).toBe(0);
    const ok = await upload();
    expect(ok.body.code).toBe(0);
    expect(await stored()).toBe(1);
  });
});

describe("pages", () => {
  test("/admin/safety answers 200 to an admin (terms, test box, events) and 404 to a member; its form blocks a term", async () => {
    const page = await fetch(`${server.url}/admin/safety`, { headers: { cookie: admin.cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Blocked terms");
    expect(html).toContain("Recent safety events");
    const member = await api.signUp(uniqueEmail("member"));
    expect((await fetch(`${server.url}/admin/safety`, { headers: { cookie: member.cookie } })).status).toBe(404);
    const posted = await postPageForm(`${server.url}/admin/safety`, admin.cookie, [
      ["intent", "block"],
      ["term", "Quillrot"],
    ]);
    expect(posted.status).toBeLessThan(400);
    await expectRefused(member.cookie, "quillrot soup");
    const test = await postPageForm(`${server.url}/admin/safety`, member.cookie, [
      ["intent", "unblock"],
      ["term", "quillrot"],
    ]);
    expect(test.status).toBe(404);
    await expectRefused(member.cookie, "quillrot soup");
  });

  test("/content-policy answers 200 to anyone and the footer links it", async () => {
    const page = await fetch(`${server.url}/content-policy`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Content policy");
    expect(await (await fetch(`${server.url}/`)).text()).toContain('href="/content-policy"');
  });
});
