/**
 * The admin dashboard on /admin: charts drawn on the server as SVG, and figures equal to sums computed by hand from
 * fixtures with known tasks, payments, refunds, grants and provider costs (a fresh database, so nothing else counts).
 */
import { describe, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { serverSql } from "../../support/db";
import { serverForFile } from "../../support/file-server";
import { databaseEnv, runAtelier } from "../../support/server";

const DAY = 86_400_000;
const it = serverForFile({
  env: { JOBS: "off", SIGNUP_CREDITS: "10", PROVIDER_COSTS: "openai:dall-e-3=4,kling:kling-v1=20" },
});

let adminCookie = "";
let memberCookie = "";

async function promote(email: string) {
  const r = await runAtelier(["admin", "promote", "--email", email], {
    cwd: it.server.dataDir,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? "/tmp",
      DATA_DIR: it.server.dataDir,
      LOG_LEVEL: "warn",
      ...databaseEnv(it.server),
    },
    // promote asks for the account's password (the one api.signUp gives every account).
    stdin: "correct-horse-battery\n",
  });
  expect(r.code).toBe(0);
}

/** Tasks, a payment with a partial refund, and a grant that expires soon, all for `userId`, all within the week. */
async function seed(userId: string) {
  const db = await serverSql(it.server.dataDir);
  const now = Date.now();
  let n = 0;
  const task = async (provider: string, model: string, status: string, cost: number, error?: string) => {
    const created = now - DAY - n * 1000;
    await db.all(
      `INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, credits_cost, mode, deadline_at,
         created_at, completed_at, error_message) VALUES (?, ?, 'image', ?, ?, 'fixture', ?, ?, 'simulated', ?, ?, ?, ?)`,
      `dash-${n++}-${crypto.randomUUID()}`,
      userId,
      provider,
      model,
      status,
      status === "failed" ? 0 : cost,
      created + 600_000,
      created,
      status === "completed" ? created + 2_000 : created + 500,
      error ?? null,
    );
  };
  for (let i = 0; i < 3; i++) await task("openai", "dall-e-3", "completed", 5);
  for (let i = 0; i < 2; i++) await task("replicate", "black-forest-labs/flux-schnell", "completed", 3);
  await task("kling", "kling-v1", "failed", 4, "provider refused the prompt");
  await task("kling", "kling-v1", "failed", 4, "canceled");
  // No PROVIDER_COSTS entry: its cost comes from the catalog ($0.039 a task).
  await task("google", "gemini-2.5-flash-image", "completed", 4);
  await db.all(
    `INSERT INTO orders (order_no, user_id, product_id, product_name, interval, amount, status, sub_id, created_at, kind,
       provider, currency, credits) VALUES (?, ?, 'pack-200', '200 credits', 'one-time', 1000, 'paid', '', ?, 'pack', 'stripe', 'usd', 200)`,
    `ord-dash-${userId}`,
    userId,
    now - DAY,
  );
  await db.all(
    `INSERT INTO order_payments (id, ref, order_no, user_id, amount, currency, credits, refunded_amount, created_at)
       VALUES (?, ?, ?, ?, 1000, 'usd', 200, 200, ?)`,
    `pay-dash-${userId}`,
    `ref-dash-${userId}`,
    `ord-dash-${userId}`,
    userId,
    now - DAY,
  );
  await db.all(
    `INSERT INTO credit_grants (id, user_id, amount, remaining, source, expires_at, created_at)
       VALUES (?, ?, 50, 50, 'admin', ?, ?)`,
    `grant-dash-${userId}`,
    userId,
    now + 10 * DAY,
    now,
  );
  await db.close();
}

const page = async (path: string, cookie: string) => fetch(`${it.server.url}${path}`, { headers: { cookie } });

describe("admin dashboard", () => {
  test("setup: an admin, a member, fixtures", async () => {
    const admin = uniqueEmail("dash-admin");
    adminCookie = (await it.api.signUp(admin)).cookie;
    await promote(admin);
    const member = await it.api.signUp(uniqueEmail("dash-member"));
    memberCookie = member.cookie;
    await seed(member.userId);
  });

  test("/admin draws at least three charts on the server, each an svg role=img with a title and a data table", async () => {
    const res = await page("/admin?range=7", adminCookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    const svgs = [...html.matchAll(/<svg[^>]*role="img"[^>]*>([\s\S]*?)<\/svg>/g)];
    expect(svgs.length).toBeGreaterThanOrEqual(3);
    for (const [, body] of svgs) expect(body).toMatch(/^<title id="[^"]+">[^<]+<\/title><desc/);
    for (const title of [
      "Generations per day by model",
      "Time to result per provider",
      "Revenue, provider cost and margin by month",
      "Sign-ups and active users per day",
    ])
      expect(html).toContain(`>${title}</title>`);
    expect(html.match(/Data table/g)?.length).toBeGreaterThanOrEqual(3);
  });

  test("the figures equal the fixtures' sums: credits, success rate, revenue, cost (PROVIDER_COSTS or the catalog) and margin per model", async () => {
    const csv = await page("/admin/dashboard.csv?range=7", adminCookie);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const rows = (await csv.text())
      .trim()
      .split("\n")
      .map((l) => l.split(","));
    const row = (first: string) => rows.find((r) => r[0] === first);
    // Two sign-up bonuses (10 each) + the 50-credit grant; the grant expires within 30 days.
    expect(row("credits outstanding")).toEqual(["credits outstanding", "70"]);
    expect(row("credits expiring within 30 days")).toEqual(["credits expiring within 30 days", "50"]);
    // openai: 3 completed; kling: 1 failed + 1 canceled (success rate counts the failure only).
    expect(row("openai")).toEqual(["openai", "3", "3", "0", "0", "1", "2", "2"]);
    expect(row("kling")).toEqual(["kling", "2", "0", "1", "1", "0", "", ""]);
    // Net revenue 1000 - 200 = 800 cents for 200 credits sold: 4 cents a credit.
    // dall-e-3: 15 credits → 60 cents; cost 3 × 4 = 12; margin 48. flux: 6 credits → 24 cents, cost not set.
    expect(row("openai/dall-e-3")).toEqual(["openai/dall-e-3", "3", "15", "60", "12", "48"]);
    expect(row("replicate/black-forest-labs/flux-schnell")).toEqual([
      "replicate/black-forest-labs/flux-schnell",
      "2",
      "6",
      "24",
      "",
      "",
    ]);
    // gemini: 4 credits → 16 cents; the catalog's cost 3.9 cents; margin 12.1.
    expect(row("google/gemini-2.5-flash-image")).toEqual([
      "google/gemini-2.5-flash-image",
      "1",
      "4",
      "16",
      "3.9",
      "12.1",
    ]);
    const month = new Date(Date.now() - DAY).toISOString().slice(0, 7);
    expect(row(month)).toEqual([month, "800", "15.9", "784.1"]);
  });

  test("a member gets the same 404 as a missing page, for the page and the export", async () => {
    expect((await page("/admin", memberCookie)).status).toBe(404);
    expect((await page("/admin/dashboard.csv", memberCookie)).status).toBe(404);
    expect((await fetch(`${it.server.url}/admin/dashboard.csv`, { redirect: "manual" })).status).toBeGreaterThanOrEqual(
      300,
    );
  });
});
