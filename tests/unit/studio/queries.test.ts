/** The studio's and admin page's queries: filters, "anything running", everyone's latest; and flash notices. */
import { describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { type Db, openDatabase } from "#db/client";
import { generations } from "#db/schema";
import { formatDate } from "~/components/ui/format";
import { listLatestAll } from "~/domain/generations/admin.server";
import { parseFilter } from "~/domain/generations/filter";
import { galleryNeighbours, listRecent, setHidden } from "~/domain/generations/gallery.server";
import { hasUnfinished } from "~/domain/generations/live.server";
import { buildDocs, forReaders } from "~/http/api-docs.server";
import { NOTICES, noticeFrom } from "~/lib/notices";
import { insertUser } from "../../support/services";

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
    expect(parseFilter(new URLSearchParams("type=audio&status=done"))).toEqual({
      aiType: undefined,
      status: undefined,
    });
    expect(parseFilter(new URLSearchParams(""))).toEqual({ aiType: undefined, status: undefined });
  });
  test('"running" is its own filter (queued and processing together)', () => {
    expect(parseFilter(new URLSearchParams("status=running"))).toEqual({ aiType: undefined, status: "running" });
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
    // "Running" in the studio: a queued task is running too (a filter on processing alone would hide it).
    addTask(db, a.id, "image", "pending", Date.parse("2026-11-22T10:00:00.000Z") + 6);
    const running = await listRecent(db, a.id, page, { status: "running" });
    expect(running.rows.map((r) => r.status)).toEqual(["pending", "processing"]);
    expect(running.total).toBe(2);
    const paged = await listRecent(db, a.id, { page: 2, pageSize: 4 });
    expect(paged.rows.length).toBe(1);
    expect(paged.total).toBe(5);
  });
});

describe("hasUnfinished", () => {
  test("true while a pending or processing task exists, for that user only", async () => {
    const { db, a, b } = fixture();
    expect(await hasUnfinished(db, a.id)).toBe(true);
    expect(await hasUnfinished(db, b.id)).toBe(false);
    addTask(db, b.id, "image", "pending", Date.now());
    expect(await hasUnfinished(db, b.id)).toBe(true);
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

describe("removing from the gallery", () => {
  test("hides a task from the studio only: the API history, the price and the ledger stay; another user's id is not found", async () => {
    const { db, a, b } = await fixture();
    const clock = { now: () => Date.parse("2026-11-22T11:00:00.000Z") };
    const page = { page: 1, pageSize: 10 };
    const [newest, , middle] = (await listRecent(db, a.id, page)).rows;
    expect((await listRecent(db, a.id, page, { galleryOnly: true })).total).toBe(4);
    const hidden = await setHidden(db, a.id, middle!.id, true, clock);
    expect(hidden.hiddenAt?.getTime()).toBe(clock.now());
    expect(hidden.creditsCost).toBe(middle!.creditsCost);
    expect(hidden.status).toBe(middle!.status);
    const after = await listRecent(db, a.id, page, { galleryOnly: true });
    expect(after.total).toBe(3);
    expect(after.rows.map((r) => r.id)).not.toContain(middle!.id);
    expect((await listRecent(db, a.id, page)).total).toBe(4); // the API's history still lists it
    await expect(setHidden(db, b.id, newest!.id, true, clock)).rejects.toThrow("generation not found");
    expect((await setHidden(db, a.id, middle!.id, false, clock)).hiddenAt).toBeNull();
  });

  test("gallery neighbours skip hidden tasks and other users' tasks", async () => {
    const { db, a } = await fixture();
    const clock = { now: () => 1 };
    const rows = (await listRecent(db, a.id, { page: 1, pageSize: 10 })).rows; // newest first: r0 r1 r2 r3
    expect(await galleryNeighbours(db, rows[1]!)).toEqual({ newer: rows[0]!.id, older: rows[2]!.id });
    expect(await galleryNeighbours(db, rows[0]!)).toEqual({ newer: null, older: rows[1]!.id });
    await setHidden(db, a.id, rows[2]!.id, true, clock);
    expect(await galleryNeighbours(db, rows[1]!)).toEqual({ newer: rows[0]!.id, older: rows[3]!.id });
    expect(await galleryNeighbours(db, rows[3]!)).toEqual({ newer: rows[1]!.id, older: null });
  });
});

describe("one date format", () => {
  test("day, month name, year and UTC time, whatever the machine's zone", () => {
    expect(formatDate("2026-11-22T09:05:07.000Z")).toBe("22 Nov 2026, 09:05 UTC");
    expect(formatDate("2026-11-22T09:05:07.000Z", { seconds: true })).toBe("22 Nov 2026, 09:05:07 UTC");
    expect(formatDate("2026-01-02T23:59:00.000Z", { time: false })).toBe("2 Jan 2026");
    expect(formatDate(null)).toBe("—");
  });
});

describe("the API reference reads like docs", () => {
  test("maintainers' references to the spec are left out; lengths read naturally", () => {
    expect(forReaders("User (spec 2.1)")).toBe("User");
    expect(forReaders("messages (generate: spec 4.1 rule order; history: docs/design.md §1 paging).")).not.toMatch(
      /spec|DESIGN/,
    );
    const docs = buildDocs("http://localhost:3000", { standard: 1, premium: 2, admin: 3, windowSeconds: 60 });
    const text = JSON.stringify(docs.endpoints);
    expect(text).not.toMatch(/∞|\(spec \d|DESIGN\s§|docs\/(?:design|api)\.md/);
    expect(JSON.stringify(docs.errorTable)).not.toContain("INSUFFICIENT_CREDITS");
  });
});
