/**
 * The generation views and small rules the API shapes from (spec 4.2, 4.3,
 * docs/design.md §1): own-task lookup, result URL parsing, the query view by status,
 * the history cost of failed tasks, paging, and the header's live summary.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { type Db, openDatabase } from "#db/client";
import { generations } from "#db/schema";
import { normalizePaging } from "~/domain/generations/history.server";
import { liveSummary } from "~/domain/generations/live.server";
import { validateGenerateInput } from "~/domain/generations/validate.server";
import {
  chargedCost,
  type GenerationRow,
  getOwnGeneration,
  parseResultUrls,
  queryGeneration,
  toQueryView,
} from "~/domain/generations/views.server";
import { createUser } from "../../support/fixtures";

/** A task's links as the views show them (no PUBLIC_URL set in unit tests: relative). */
const linksOf = (id: string) => ({
  get: `/api/generator/query?gen_id=${id}`,
  cancel: `/api/generator/cancel?gen_id=${id}`,
  stream: `/api/generator/stream?gen_id=${id}`,
  web: `/studio/${id}`,
});

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
let db: Db;

async function addUser(): Promise<string> {
  const id = randomUUID();
  await createUser(db, { id, at: T0 });
  return id;
}

async function addTask(
  userId: string,
  status: string,
  extra: Partial<typeof generations.$inferInsert> = {},
): Promise<GenerationRow> {
  const row = {
    id: randomUUID(),
    userId,
    aiType: "image",
    provider: "replicate",
    model: "black-forest-labs/flux-schnell",
    prompt: `task ${status}`,
    status,
    creditsCost: 3,
    deadlineAt: T0 + 600_000,
    createdAt: new Date(T0),
    ...extra,
  } satisfies typeof generations.$inferInsert;
  return (await db.one(db.insert(generations).values(row).returning()))!;
}

beforeEach(() => {
  db = openDatabase(":memory:");
});

describe("getOwnGeneration", () => {
  test("the owner gets the task; another user and an unknown id get `generation not found`", async () => {
    const a = await addUser();
    const b = await addUser();
    const t = await addTask(a, "pending");
    expect((await getOwnGeneration(db, a, t.id)).id).toBe(t.id);
    await expect(getOwnGeneration(db, b, t.id)).rejects.toThrow("generation not found");
    await expect(getOwnGeneration(db, a, randomUUID())).rejects.toThrow("generation not found");
  });
});

describe("queryGeneration (the API's query: one plain statement)", () => {
  test("exactly toQueryView of the full row for every status, key order included; another user's task is not found", async () => {
    const a = await addUser();
    const b = await addUser();
    const tasks = [
      await addTask(a, "pending", { startedAt: new Date(T0 + 5) }),
      await addTask(a, "processing"),
      await addTask(a, "processing", { startedAt: new Date(T0 + 5) }),
      await addTask(a, "completed", {
        startedAt: new Date(T0 + 5),
        completedAt: new Date(T0 + 2007),
        resultUrls: '["https://a/1.png"]',
      }),
      await addTask(a, "completed", { completedAt: new Date(T0 + 9), resultUrls: "not json" }),
      await addTask(a, "failed", { startedAt: new Date(T0 + 5), completedAt: new Date(T0 + 99), errorMessage: "boom" }),
      await addTask(a, "failed", { completedAt: new Date(T0 + 99) }),
    ];
    for (const t of tasks)
      expect(JSON.stringify(await queryGeneration(db, a, t.id))).toBe(JSON.stringify(toQueryView(t)));
    await expect(queryGeneration(db, b, tasks[0]!.id)).rejects.toThrow("generation not found");
    await expect(queryGeneration(db, a, randomUUID())).rejects.toThrow("generation not found");
  });
});

describe("parseResultUrls", () => {
  test("a JSON array of strings; anything else is no URLs", () => {
    expect(parseResultUrls({ resultUrls: '["https://a/1.png","https://a/2.png"]' })).toEqual([
      "https://a/1.png",
      "https://a/2.png",
    ]);
    expect(parseResultUrls({ resultUrls: '["https://a/1.png", 7, null]' })).toEqual(["https://a/1.png"]);
    expect(parseResultUrls({ resultUrls: null })).toEqual([]);
    expect(parseResultUrls({ resultUrls: "" })).toEqual([]);
    expect(parseResultUrls({ resultUrls: "not json" })).toEqual([]);
    expect(parseResultUrls({ resultUrls: '{"a":"https://a/1.png"}' })).toEqual([]);
  });
});

describe("toQueryView (spec 4.2)", () => {
  test("pending: gen_id, status, created_at and nothing else, even with a start time", async () => {
    const u = await addUser();
    const t = await addTask(u, "pending", { startedAt: new Date(T0 + 5) });
    expect(toQueryView(t)).toEqual({
      gen_id: t.id,
      status: "pending",
      created_at: "2026-11-22T10:00:00.000Z",
      urls: linksOf(t.id),
    });
  });

  test("processing: started_at once started, absent before", async () => {
    const u = await addUser();
    const started = await addTask(u, "processing", { startedAt: new Date(T0 + 1000) });
    expect(toQueryView(started)).toEqual({
      gen_id: started.id,
      status: "processing",
      created_at: "2026-11-22T10:00:00.000Z",
      started_at: "2026-11-22T10:00:01.000Z",
      urls: linksOf(started.id),
    });
    const notYet = await addTask(u, "processing");
    expect(toQueryView(notYet)).toEqual({
      gen_id: notYet.id,
      status: "processing",
      created_at: "2026-11-22T10:00:00.000Z",
      urls: linksOf(notYet.id),
    });
  });

  test("failed without a stored message says `generation failed`", async () => {
    const u = await addUser();
    const t = await addTask(u, "failed", { completedAt: new Date(T0 + 2000) });
    expect(toQueryView(t)).toMatchObject({
      status: "failed",
      error_message: "generation failed",
      completed_at: "2026-11-22T10:00:02.000Z",
    });
  });
});

describe("history rules", () => {
  test("credits_cost: the price, except 0 for a failed task", () => {
    expect(chargedCost({ status: "failed", creditsCost: 5 })).toBe(0);
    for (const status of ["pending", "processing", "completed"])
      expect(chargedCost({ status, creditsCost: 5 })).toBe(5);
  });

  test("paging: defaults 1 and 20, integers ≥ 1, page_size clamped to 100; null means the default", () => {
    expect(normalizePaging({})).toEqual({ page: 1, pageSize: 20 });
    expect(normalizePaging({ page: null, page_size: null })).toEqual({ page: 1, pageSize: 20 });
    expect(normalizePaging({ page: 1, page_size: 1 })).toEqual({ page: 1, pageSize: 1 });
    expect(normalizePaging({ page: 3, page_size: 101 })).toEqual({ page: 3, pageSize: 100 });
    for (const bad of [0, -1, 1.5, "2", Number.MAX_SAFE_INTEGER + 1]) {
      expect(() => normalizePaging({ page: bad })).toThrow("invalid params");
      expect(() => normalizePaging({ page_size: bad })).toThrow("invalid params");
    }
  });

  test("a blank prompt counts as missing", () => {
    expect(() =>
      validateGenerateInput({
        ai_type: "image",
        provider: "replicate",
        model: "black-forest-labs/flux-schnell",
        prompt: " \t ",
      }),
    ).toThrow("invalid params: ai_type, provider, model, prompt required");
  });
});

describe("liveSummary", () => {
  test("the user's unfinished tasks, and their finished ones newest first; never another user's", async () => {
    const u = await addUser();
    const other = await addUser();
    const p = await addTask(u, "pending");
    const r = await addTask(u, "processing");
    const older = await addTask(u, "completed", { completedAt: new Date(T0 + 1000) });
    const newer = await addTask(u, "failed", { completedAt: new Date(T0 + 2000) });
    await addTask(other, "pending");
    await addTask(other, "completed", { completedAt: new Date(T0 + 3000) });
    const s = await liveSummary(db, u);
    expect(s.active.map((t) => t.id).sort()).toEqual([p.id, r.id].sort());
    expect(s.finished.map((t) => [t.id, t.status])).toEqual([
      [newer.id, "failed"],
      [older.id, "completed"],
    ]);
    expect(s.active[0]).toHaveProperty("prompt");
    expect(s.active[0]).toHaveProperty("aiType", "image");
  });
});
