/**
 * Price rules (docs/catalog.md "Price rules"), real HTTP against a started server: the admin saves a rule (checked
 * against the model's options), POST /api/models publishes it, POST /api/generator/quote prices options, and a
 * task reserves, refuses and charges the quoted price — kept when the rule changes after. Both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { user } from "#db/schema";
import { Client, uniqueEmail } from "../../support/client";
import { markVerified, openServerDb } from "../../support/db";
import { startServer, type TestServer } from "../../support/server";

let server: TestServer;
let api: Client;
let db: Db;
let admin: { cookie: string; userId: string };

const MODEL = "kling-priced-video";
const video = { ai_type: "video", provider: "kling", model: MODEL };
const options = {
  duration: { type: "integer", min: 5, max: 10, values: [5, 10], default: 5, label: "Duration", unit: "s" },
  quality: { type: "enum", values: ["std", "pro"], default: "std", label: "Quality" },
};

beforeAll(async () => {
  server = await startServer({ env: { SIGNUP_CREDITS: "25", SIMULATOR_DELAY_MS: "200" } });
  api = new Client(server.url);
  db = await openServerDb(server.dataDir);
  admin = await api.signUp("price-rules-admin@admin.test");
  await markVerified(db, admin.userId);
  await db.run(db.update(user).set({ role: "admin" }).where(eq(user.id, admin.userId)));
  const saved = await api.post(
    "/api/admin/models/upsert",
    { ...video, label: "Priced video", options, pricing: { base: 10, per_unit: { duration: 2 } } },
    { cookie: admin.cookie },
  );
  expect(saved.body.code).toBe(0);
});
afterAll(async () => {
  void db?.close();
  await server?.dispose();
});

const quote = (body: Record<string, unknown>) => api.post("/api/generator/quote", body);
const upsert = (body: Record<string, unknown>) =>
  api.post("/api/admin/models/upsert", { ...video, ...body }, { cookie: admin.cookie });

async function finished(cookie: string, id: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await api.post("/api/generator/query", { gen_id: id }, { cookie });
    if (["completed", "failed"].includes(r.body.data.status)) return r.body.data;
    if (Date.now() > deadline) throw new Error(`task ${id} still ${r.body.data.status}`);
    await Bun.sleep(100);
  }
}
const balance = async (cookie: string) =>
  (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits as number;

describe("the quote", () => {
  test("the contract: duration 10 is 30, 5 is 20, left out is the default's 20", async () => {
    expect((await quote({ ...video, options: { duration: 10 } })).body).toEqual({
      code: 0,
      message: "ok",
      data: { credits: 30 },
    });
    expect((await quote({ ...video, options: { duration: 5 } })).body.data.credits).toBe(20);
    expect((await quote({ ...video })).body.data.credits).toBe(20);
  });

  test("the spec's models with no options quote the spec's prices", async () => {
    expect((await quote({ ai_type: "image", provider: "openai", model: "dall-e-3" })).body.data.credits).toBe(5);
    expect((await quote({ ai_type: "image", provider: "openai", model: "gpt-image-1" })).body.data.credits).toBe(8);
    expect((await quote({ ai_type: "video", provider: "kling", model: "kling-v1" })).body.data.credits).toBe(10);
  });

  test("refused like generate: unknown model, bad option value, missing fields", async () => {
    expect((await quote({ ...video, model: "nope" })).body).toMatchObject({
      code: 1,
      message: "Unsupported model: nope",
    });
    const bad = await quote({ ...video, options: { duration: 7 } });
    expect(bad.body).toMatchObject({ code: 1, message: "invalid params: options.duration must be one of 5, 10" });
    expect((await quote({ ai_type: "video" })).body).toMatchObject({
      code: 1,
      message: "invalid params: ai_type, provider, model required",
    });
  });

  test("POST /api/models publishes the rule; a flat model's rule is {base}", async () => {
    const models = (await api.post("/api/models", undefined)).body.data.models as any[];
    const mine = models.find((m) => m.model === MODEL);
    expect(mine.pricing).toEqual({ base: 10, per_unit: { duration: 2 } });
    expect(mine.credits).toBe(20);
    expect(models.find((m) => m.model === "dall-e-3").pricing).toEqual({ base: 5 });
  });
});

describe("saving a rule", () => {
  test("refuses unknown options, zero quotes and overflow; nothing changes", async () => {
    const unknown = await upsert({ pricing: { base: 10, per_unit: { seconds: 2 } } });
    expect(unknown.body).toMatchObject({ code: 1 });
    expect(unknown.body.message).toContain("pricing.per_unit.seconds is not an option");
    const zero = await upsert({ pricing: { base: 2, add: { quality: { std: -2 } } } });
    expect(zero.body.message).toContain("at least 1");
    const overflow = await upsert({ pricing: { base: 1, per_unit: { duration: 100_000 } } });
    expect(overflow.body.message).toContain("above the limit of 1000000");
    const fraction = await upsert({ pricing: { base: 1.5 } });
    expect(fraction.body.message).toContain("pricing.base must be an integer");
    expect((await quote({ ...video, options: { duration: 10 } })).body.data.credits).toBe(30);
  });

  test("changing the options re-checks the rule kept on the row", async () => {
    const dropped = await upsert({ options: { quality: options.quality } });
    expect(dropped.body.message).toContain("pricing.per_unit.duration is not an option");
  });
});

describe("a task pays its quote", () => {
  test("a balance of 25 refuses duration 10 (need 30); duration 10 charges 30 and keeps it after a price change", async () => {
    const member = await api.signUp(uniqueEmail("price-rules"));
    expect(await balance(member.cookie)).toBe(25);
    const refused = await api.post(
      "/api/generator/generate",
      { ...video, prompt: "a slow pan over hills", options: { duration: 10 } },
      { cookie: member.cookie },
    );
    expect(refused.body).toMatchObject({ code: 1, message: "insufficient credits: need 30, have 25" });

    const granted = await api.post(
      "/api/admin/grant-credits",
      { user_uuid: member.userId, credits: 100 },
      { cookie: admin.cookie },
    );
    expect(granted.body.data.left_credits).toBe(125);
    const made = await api.post(
      "/api/generator/generate",
      { ...video, prompt: "a slow pan over hills", options: { duration: 10 } },
      { cookie: member.cookie },
    );
    expect(made.body.code).toBe(0);
    // The rule changes while the task runs: the task keeps the price it was created at.
    expect((await upsert({ pricing: { base: 1, per_unit: { duration: 1 } } })).body.code).toBe(0);
    expect((await finished(member.cookie, made.body.data.gen_id)).status).toBe("completed");
    const history = (await api.post("/api/generator/history", {}, { cookie: member.cookie })).body.data.generations;
    expect(history.find((g: any) => g.gen_id === made.body.data.gen_id).credits_cost).toBe(30);
    expect(await balance(member.cookie)).toBe(95);
    expect((await quote({ ...video, options: { duration: 10 } })).body.data.credits).toBe(11);
    // Back to the contract's rule for the other tests.
    expect((await upsert({ pricing: { base: 10, per_unit: { duration: 2 } } })).body.code).toBe(0);
  });
});
