/**
 * Reports and takedowns (docs/safety.md "Reports and takedowns", ADR 145 and 149), over real HTTP on the engine
 * of the run, with a second user's tasks present: filing a report (visibility, the reason list, the details bound
 * at/under/over, idempotency, the hourly bound), the admin queue (forbidden to non-admins, due 48 h after creation,
 * earliest due first) and decisions (remove: every result URL answers 410 within 2 s, the files and the gallery entry
 * go, other users' files stay; the minors reason keeps the bytes in quarantine; dismiss keeps everything), and the
 * studio's form without JavaScript.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { uniqueEmail } from "../../support/client";
import { countIn, queryServerDb } from "../../support/db";
import { postPageForm, serverForFile, signUpAdmin } from "../../support/fixtures";
import { until } from "../../support/until";

const ADMIN = "moderator@reports.test";
const s = serverForFile({ env: { SIGNUP_CREDITS: "1000", ADMIN_EMAILS: ADMIN, SIMULATOR_DELAY_MS: "50" } });
const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" };
const REASONS = [
  "sexual_minors",
  "non_consensual_intimate",
  "sexual",
  "violence",
  "hate",
  "harassment",
  "copyright",
  "other",
];
const FORBIDDEN = { code: 1 as const, message: "forbidden", data: null };

let admin: { cookie: string; userId: string } | undefined;
async function adminAuth() {
  admin ??= await signUpAdmin(s.server, ADMIN, { via: "mailbox" });
  return { cookie: admin.cookie };
}

async function generate(cookie: string, prompt: string): Promise<string> {
  const r = await s.api.post("/api/generator/generate", { ...IMAGE, prompt }, { cookie });
  expect(r.body.code).toBe(0);
  return r.body.data.gen_id as string;
}

async function completed(cookie: string, prompt: string): Promise<{ genId: string; urls: string[] }> {
  const genId = await generate(cookie, prompt);
  const urls = await until(`task ${genId} completed`, async () => {
    const q = await s.api.post("/api/generator/query", { gen_id: genId }, { cookie });
    return q.body.data?.status === "completed" ? (q.body.data.result_urls as string[]) : undefined;
  });
  expect(urls.length).toBeGreaterThan(0);
  return { genId, urls };
}

const report = (cookie: string, body: Record<string, unknown>) => s.api.post("/api/reports", body, { cookie });
const reportsOf = (userId: string) =>
  countIn(s.server.dataDir, "SELECT count(*) AS n FROM reports WHERE reporter_id = $1", userId);
const status = async (url: string) => (await fetch(url)).status;

describe("filing a report", () => {
  test("own task: code 0 with report_id; another user's task: generation not found; twice: the same report", async () => {
    const alice = await s.api.signUp(uniqueEmail("alice"));
    const bob = await s.api.signUp(uniqueEmail("bob"));
    const mine = await generate(alice.cookie, "a fox");
    const theirs = await generate(bob.cookie, "a badger");

    const first = await report(alice.cookie, { gen_id: mine, reason: "copyright", details: "my own photo" });
    expect(first.body.code).toBe(0);
    expect(first.body.data.report_id).toBeString();
    expect(first.body.data).toMatchObject({ gen_id: mine, reason: "copyright", status: "open" });

    const other = await report(alice.cookie, { gen_id: theirs, reason: "hate" });
    expect(other.body).toEqual({ code: 1, message: "generation not found", data: null });
    const missing = await report(alice.cookie, { gen_id: "no-such-task", reason: "hate" });
    expect(missing.body.message).toBe("generation not found");

    const again = await report(alice.cookie, { gen_id: mine, reason: "other" });
    expect(again.body.code).toBe(0);
    expect(again.body.data.report_id).toBe(first.body.data.report_id);
    expect(again.body.data.reason).toBe("copyright");
    expect(await reportsOf(alice.userId)).toBe(1);
    // Bob's own report of his task is his, apart from Alice's.
    expect((await report(bob.cookie, { gen_id: theirs, reason: "other" })).body.code).toBe(0);
    expect(await reportsOf(bob.userId)).toBe(1);
    // Without a session: no auth.
    expect((await s.api.post("/api/reports", { gen_id: mine, reason: "hate" })).body.message).toBe(
      "no auth, please sign-in",
    );
  });

  test("the reason list: each listed reason is accepted, anything else is code 1 and stores nothing", async () => {
    const u = await s.api.signUp(uniqueEmail("reasons"));
    for (const reason of REASONS) {
      const gen = await generate(u.cookie, `reason ${reason}`);
      const r = await report(u.cookie, { gen_id: gen, reason });
      expect(r.body.code).toBe(0);
      expect(r.body.data.reason).toBe(reason);
    }
    const gen = await generate(u.cookie, "bad reasons");
    for (const reason of ["", "spam", "SEXUAL", "sexual ", "sexual_minor", 3, null]) {
      const r = await report(u.cookie, { gen_id: gen, reason });
      expect(r.body.code).toBe(1);
      expect(r.body.message).toBe(`invalid params: reason must be one of ${REASONS.join(", ")}`);
    }
    expect((await report(u.cookie, { gen_id: gen })).body.code).toBe(1);
    expect(await reportsOf(u.userId)).toBe(REASONS.length);
  });

  test("details: 1999 and 2000 characters (code points) are accepted, 2001 is refused", async () => {
    const u = await s.api.signUp(uniqueEmail("details"));
    const under = await report(u.cookie, {
      gen_id: await generate(u.cookie, "d1"),
      reason: "other",
      details: "x".repeat(1999),
    });
    expect(under.body.code).toBe(0);
    // 2000 emoji: 4000 UTF-16 units, still 2000 characters.
    const at = await report(u.cookie, {
      gen_id: await generate(u.cookie, "d2"),
      reason: "other",
      details: "🦊".repeat(2000),
    });
    expect(at.body.code).toBe(0);
    const over = await report(u.cookie, {
      gen_id: await generate(u.cookie, "d3"),
      reason: "other",
      details: "x".repeat(2001),
    });
    expect(over.body).toEqual({
      code: 1,
      message: "invalid params: details must be at most 2000 characters",
      data: null,
    });
    expect(await reportsOf(u.userId)).toBe(2);
    const [row] = await queryServerDb<{ details: string }>(
      s.server.dataDir,
      "SELECT details FROM reports WHERE reporter_id = $1 AND details LIKE 'x%'",
      u.userId,
    );
    expect(row?.details.length).toBe(1999);
  });

  test("at most 20 new reports an hour per user; a repeat of a filed one is still answered; others unaffected", async () => {
    const u = await s.api.signUp(uniqueEmail("flood"));
    const gens: string[] = [];
    for (let i = 0; i < 21; i++) gens.push(await generate(u.cookie, `flood ${i}`));
    for (let i = 0; i < 20; i++)
      expect((await report(u.cookie, { gen_id: gens[i], reason: "other" })).body.code).toBe(0);
    const limited = await report(u.cookie, { gen_id: gens[20], reason: "other" });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe(1);
    expect(await reportsOf(u.userId)).toBe(20);
    expect((await report(u.cookie, { gen_id: gens[0], reason: "other" })).body.code).toBe(0);
    const calm = await s.api.signUp(uniqueEmail("calm"));
    expect(
      (await report(calm.cookie, { gen_id: await generate(calm.cookie, "calm"), reason: "other" })).body.code,
    ).toBe(0);
  });
});

describe("the admin queue", () => {
  test("non-admins get code 1 forbidden on list and resolve, and nothing changes", async () => {
    const u = await s.api.signUp(uniqueEmail("nosy"));
    const gen = await generate(u.cookie, "nosy");
    const filed = await report(u.cookie, { gen_id: gen, reason: "violence" });
    expect((await s.api.post("/api/admin/reports/list", {}, { cookie: u.cookie })).body).toEqual(FORBIDDEN);
    const resolve = await s.api.post(
      "/api/admin/reports/resolve",
      { report_id: filed.body.data.report_id, action: "dismiss" },
      { cookie: u.cookie },
    );
    expect(resolve.body).toEqual(FORBIDDEN);
    expect(
      await countIn(
        s.server.dataDir,
        "SELECT count(*) AS n FROM reports WHERE id = $1 AND status = 'open'",
        filed.body.data.report_id,
      ),
    ).toBe(1);
    expect(
      (await fetch(`${s.server.url}/admin/reports`, { headers: { cookie: u.cookie }, redirect: "manual" })).status,
    ).toBe(404);
  });

  test("list: each report with due_at 48 h after created_at, earliest due first; bad input is code 1", async () => {
    const auth = await adminAuth();
    const u = await s.api.signUp(uniqueEmail("queue"));
    const a = (await report(u.cookie, { gen_id: await generate(u.cookie, "q1"), reason: "hate" })).body.data;
    const list = await s.api.post("/api/admin/reports/list", {}, auth);
    expect(list.body.code).toBe(0);
    const reports = list.body.data.reports as Record<string, any>[];
    const mine = reports.find((r) => r.report_id === a.report_id)!;
    expect(mine).toMatchObject({
      report_id: a.report_id,
      gen_id: a.gen_id,
      reason: "hate",
      status: "open",
      overdue: false,
    });
    expect(Date.parse(mine.due_at) - Date.parse(mine.created_at)).toBe(48 * 3_600_000);
    expect(mine.prompt).toBe("q1");
    const due = reports.map((r) => Date.parse(r.due_at));
    expect(due).toEqual([...due].sort((x, y) => x - y));
    expect(reports.every((r) => r.status === "open")).toBe(true);
    expect((await s.api.post("/api/admin/reports/list", { status: "gone" }, auth)).body.code).toBe(1);
    expect((await s.api.post("/api/admin/reports/list", { limit: 0 }, auth)).body.code).toBe(1);
    expect(
      (await s.api.post("/api/admin/reports/resolve", { report_id: a.report_id, action: "delete" }, auth)).body.code,
    ).toBe(1);
    expect(
      (await s.api.post("/api/admin/reports/resolve", { report_id: "nope", action: "dismiss" }, auth)).body.message,
    ).toBe("report not found");
    const page = await fetch(`${s.server.url}/admin/reports`, { headers: { cookie: auth.cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(a.gen_id);
  });
});

describe("decisions", () => {
  test("remove: every result URL answers 410 within 2 s; files, gallery entry and history results go; another user's stay", async () => {
    const auth = await adminAuth();
    const owner = await s.api.signUp(uniqueEmail("owner"));
    const other = await s.api.signUp(uniqueEmail("bystander"));
    const bad = await completed(owner.cookie, "to be removed");
    const kept = await completed(owner.cookie, "kept by its owner");
    const theirs = await completed(other.cookie, "another user's");
    for (const u of [...bad.urls, ...kept.urls, ...theirs.urls]) expect(await status(u)).toBe(200);
    // The history and the studio have been read (and remembered) before the takedown.
    expect(
      (await s.api.post("/api/generator/history", {}, { cookie: owner.cookie })).body.data.generations.length,
    ).toBe(2);
    const filed = (await report(other.cookie, { gen_id: theirs.genId, reason: "other" })).body.data;
    const r = (await report(owner.cookie, { gen_id: bad.genId, reason: "non_consensual_intimate" })).body.data;

    const started = Date.now();
    const resolved = await s.api.post(
      "/api/admin/reports/resolve",
      { report_id: r.report_id, action: "remove", note: "NCII" },
      auth,
    );
    expect(resolved.body.code).toBe(0);
    expect(resolved.body.data.report.status).toBe("removed");
    expect(resolved.body.data.quarantined).toBe(false);
    for (const u of bad.urls) {
      await until(`${u} answers 410`, async () => ((await status(u)) === 410 ? true : undefined), 2_000);
      expect(await status(u)).toBe(410);
    }
    expect(Date.now() - started).toBeLessThan(2_000 + 1_000);
    for (const u of [...kept.urls, ...theirs.urls]) expect(await status(u)).toBe(200);
    expect(existsSync(join(s.server.dataDir, "media", bad.genId))).toBe(false);
    expect(existsSync(join(s.server.dataDir, "media", kept.genId))).toBe(true);

    const q = await s.api.post("/api/generator/query", { gen_id: bad.genId }, { cookie: owner.cookie });
    expect(q.body.data.result_urls).toEqual([]);
    const history = (await s.api.post("/api/generator/history", {}, { cookie: owner.cookie })).body.data.generations;
    expect(history.find((g: any) => g.gen_id === bad.genId).result_urls).toBe("[]");
    expect(history.find((g: any) => g.gen_id === kept.genId).result_urls).toBe(JSON.stringify(kept.urls));
    expect(
      await countIn(s.server.dataDir, "SELECT count(*) AS n FROM gallery_entries WHERE gen_id = $1", bad.genId),
    ).toBe(0);
    const studio = await (await fetch(`${s.server.url}/studio`, { headers: { cookie: owner.cookie } })).text();
    expect(studio).not.toContain(bad.urls[0]!);
    const detail = await (
      await fetch(`${s.server.url}/studio/${bad.genId}`, { headers: { cookie: owner.cookie } })
    ).text();
    expect(detail).toContain("removed-notice");

    // A second decision is refused; the other user's report is untouched.
    expect(
      (await s.api.post("/api/admin/reports/resolve", { report_id: r.report_id, action: "dismiss" }, auth)).body
        .message,
    ).toBe("report already resolved");
    expect(
      await countIn(
        s.server.dataDir,
        "SELECT count(*) AS n FROM reports WHERE id = $1 AND status = 'open'",
        filed.report_id,
      ),
    ).toBe(1);
  });

  test("remove for the minors reason keeps the bytes in quarantine (0600, SHA-256 recorded) while the URLs answer 410", async () => {
    const auth = await adminAuth();
    const owner = await s.api.signUp(uniqueEmail("evidence"));
    const bad = await completed(owner.cookie, "evidence");
    const original = new Uint8Array(await (await fetch(bad.urls[0]!)).arrayBuffer());
    const r = (await report(owner.cookie, { gen_id: bad.genId, reason: "sexual_minors" })).body.data;
    const resolved = await s.api.post("/api/admin/reports/resolve", { report_id: r.report_id, action: "remove" }, auth);
    expect(resolved.body.data.quarantined).toBe(true);
    for (const u of bad.urls) expect(await status(u)).toBe(410);
    const dir = join(s.server.dataDir, "quarantine", bad.genId);
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    expect(manifest.files.length).toBe(bad.urls.length);
    const kept = readFileSync(join(dir, manifest.files[0].file));
    expect(new Uint8Array(kept)).toEqual(original);
    expect(manifest.files[0].sha256).toBe(createHash("sha256").update(original).digest("hex"));
    expect(statSync(join(dir, manifest.files[0].file)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [row] = await queryServerDb<{ quarantined: number }>(
      s.server.dataDir,
      "SELECT quarantined FROM takedowns WHERE gen_id = $1",
      bad.genId,
    );
    expect(Number(row?.quarantined)).toBe(1);
    expect(existsSync(join(s.server.dataDir, "media", bad.genId))).toBe(false);
  });

  test("dismiss keeps the result; the studio's report form works without JavaScript; the admin page resolves", async () => {
    const auth = await adminAuth();
    const owner = await s.api.signUp(uniqueEmail("formuser"));
    const task = await completed(owner.cookie, "reported by form");
    const posted = await postPageForm(`${s.server.url}/studio/${task.genId}`, owner.cookie, [
      ["intent", "report"],
      ["reason", "harassment"],
      ["details", "from the page"],
    ]);
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain("report-received");
    const [row] = await queryServerDb<{ id: string; reason: string }>(
      s.server.dataDir,
      "SELECT id, reason FROM reports WHERE reporter_id = $1",
      owner.userId,
    );
    expect(row?.reason).toBe("harassment");
    const refused = await postPageForm(`${s.server.url}/studio/${task.genId}`, owner.cookie, [
      ["intent", "report"],
      ["reason", "spam"],
    ]);
    expect(await refused.text()).toContain("reason must be one of");

    const page = await postPageForm(`${s.server.url}/admin/reports`, auth.cookie, [
      ["report_id", row!.id],
      ["action", "dismiss"],
    ]);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Dismissed the report");
    expect(
      await countIn(
        s.server.dataDir,
        "SELECT count(*) AS n FROM reports WHERE id = $1 AND status = 'dismissed'",
        row!.id,
      ),
    ).toBe(1);
    for (const u of task.urls) expect(await status(u)).toBe(200);
  });
});
