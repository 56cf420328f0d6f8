/** The studio's and admin page's queries: filters, "anything running", everyone's latest; and flash notices. */
import { describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { openDatabase, type Db } from "#db/client";
import { generations } from "#db/schema";
import { hasUnfinished, listLatestAll, listRecent, parseFilter } from "~/domain/generations/generations.server";
import { noticeFrom, NOTICES } from "~/lib/notices";
import { insertUser } from "../support/services";

function addTask(db: Db, userId: string, aiType: "image" | "video", status: string, at: number) {
  const id = randomUUID();
  db.insert(generations)
    .values({
      id,
      userId,
      aiType,
      provider: aiType === "image" ? "replicate" : "kling",
      model: aiType === "image" ? "black-forest-labs/flux-schnell" : "kling-v1",
      prompt: `${aiType} ${status} ${at}`,
      status,
      creditsCost: aiType === "image" ? 3 : 10,
      deadlineAt: at + 60_000,
      createdAt: new Date(at),
      errorMessage: status === "failed" ? "boom" : null,
    })
    .run();
  return id;
}

function fixture() {
  const db = openDatabase(":memory:");
  const a = insertUser(db);
  const b = insertUser(db);
  const t0 = Date.parse("2026-11-22T10:00:00.000Z");
  addTask(db, a.id, "image", "completed", t0 + 1);
  addTask(db, a.id, "image", "failed", t0 + 2);
  addTask(db, a.id, "video", "completed", t0 + 3);
  addTask(db, a.id, "video", "processing", t0 + 4);
  addTask(db, b.id, "image", "failed", t0 + 5);
  return { db, a, b };
}

describe("parseFilter", () => {
  test("known type and status; anything else means all", async () => {
    expect(parseFilter(new URLSearchParams("type=video&status=failed"))).toEqual({ aiType: "video", status: "failed" });
    expect(parseFilter(new URLSearchParams("type=audio&status=done"))).toEqual({ aiType: undefined, status: undefined });
    expect(parseFilter(new URLSearchParams(""))).toEqual({ aiType: undefined, status: undefined });
  });
});

describe("listRecent with filters", () => {
  test("by type, by status, both; totals follow the filter; only the user's own rows", async () => {
    const { db, a } = fixture();
    const page = { page: 1, pageSize: 10 };
    expect((await listRecent(db, a.id, page)).total).toBe(4);
    const videos = await listRecent(db, a.id, page, { aiType: "video" });
    expect(videos.total).toBe(2);
    expect(videos.rows.map((r) => r.status)).toEqual(["processing", "completed"]); // newest first
    const failed = await listRecent(db, a.id, page, { status: "failed" });
    expect(failed.rows.map((r) => r.prompt)).toEqual([expect.stringContaining("image failed")]);
    expect((await listRecent(db, a.id, page, { aiType: "video", status: "failed" })).total).toBe(0);
    const paged = await listRecent(db, a.id, { page: 2, pageSize: 3 });
    expect(paged.rows.length).toBe(1);
    expect(paged.total).toBe(4);
  });
});

describe("hasUnfinished", () => {
  test("true while a pending or processing task exists, for that user only", async () => {
    const { db, a, b } = fixture();
    expect((await hasUnfinished(db, a.id))).toBe(true);
    expect((await hasUnfinished(db, b.id))).toBe(false);
    addTask(db, b.id, "image", "pending", Date.now());
    expect((await hasUnfinished(db, b.id))).toBe(true);
  });
});

describe("listLatestAll (admin)", () => {
  test("everyone's tasks newest first with the owner's email; failures only when asked; limited", async () => {
    const { db, a, b } = fixture();
    const all = await listLatestAll(db, { limit: 10 });
    expect(all.length).toBe(5);
    expect(all[0]!.email).toBe(b.email);
    const failures = await listLatestAll(db, { limit: 10, status: "failed" });
    expect(failures.map((f) => [f.email, f.errorMessage])).toEqual([
      [b.email, "boom"],
      [a.email, "boom"],
    ]);
    expect((await listLatestAll(db, { limit: 2 })).length).toBe(2);
  });
});

describe("flash notices (?notice=)", () => {
  test("known keys show their text; unknown keys and free text show nothing", async () => {
    expect(noticeFrom("http://x/studio?notice=generation-started")).toEqual(NOTICES["generation-started"]);
    expect(noticeFrom("http://x/?notice=<script>alert(1)</script>")).toBeNull();
    expect(noticeFrom("http://x/?notice=toString")).toBeNull();
    expect(noticeFrom("http://x/")).toBeNull();
  });
});
