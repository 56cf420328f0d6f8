/**
 * The spec pins its own numbers. Every figure below is copied by hand from
 * docs/api.md §8 (and docs/design.md §2 for the prices the spec leaves
 * open). Nothing here is computed from the code under test: if the catalog,
 * the API, the OpenAPI document or /docs drifts from these figures, a test
 * fails.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CATALOG } from "~/domain/catalog";
import { Client, uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { startServer, type TestServer } from "../../support/server";
import { PRICES } from "../../support/spec";

/** spec §8.2: API-key requests per minute by tier. */
const KEY_LIMITS = { standard: 100, premium: 500, admin: 1000, windowSeconds: 60 };
/** spec §8.3. */
const HISTORY = { defaultPageSize: 20, maxPageSize: 100, defaultPage: 1 };
const CHECKIN = { credits: 1, validityDays: 365 };
const RATING = { min: 1, max: 5 };

const DAY = 86_400_000;

let server: TestServer;
let c: Client;

beforeAll(async () => {
  // No sign-up bonus: every price shows up as "need <price>, have 0". Default limits (no RATE_LIMIT_* overrides).
  server = await startServer({ env: { SIGNUP_CREDITS: "0", JOBS: "off" } });
  c = new Client(server.url);
});
afterAll(async () => {
  await server?.dispose();
});

describe("spec §8.1 prices", () => {
  test("the catalog offers every priced model at the spec's price; models beyond them come from the added providers", () => {
    const offered = CATALOG.map((o) => [o.aiType, o.provider, o.model, o.credits]);
    for (const [t, p, m, cr] of PRICES) expect(offered).toContainEqual([t, p, m, cr]);
    const priced = new Set(PRICES.map(([t, p, m]) => `${t}|${p}|${m}`));
    const others = CATALOG.filter((o) => !priced.has(`${o.aiType}|${o.provider}|${o.model}`));
    // Beyond the spec: the fal and Google providers, and the image-input models of the spec's own providers.
    const added = others.filter((o) => o.provider !== "fal" && o.provider !== "google").map((o) => o.model);
    expect([...new Set(others.map((o) => o.provider))].sort()).toEqual(["fal", "google", "replicate", "runway"]);
    expect(added.sort()).toEqual(["black-forest-labs/flux-kontext-pro", "gen4_turbo"]);
  });

  test("POST /api/models on a fresh install lists each priced model at the spec's price", async () => {
    const r = await c.post("/api/models", undefined);
    expect(r.body.code).toBe(0);
    const listed = r.body.data.models.map((m: any) => [m.ai_type, m.provider, m.model, m.credits]);
    for (const [t, p, m, cr] of PRICES) expect(listed).toContainEqual([t, p, m, cr]);
  });

  test("the API asks each price: a user with no credits is told `need <price>, have 0`", async () => {
    const u = await c.signUp(uniqueEmail("pins"));
    for (const [ai_type, provider, model, credits] of PRICES) {
      const r = await c.post(
        "/api/generator/generate",
        { ai_type, provider, model, prompt: "a lighthouse at dusk" },
        { cookie: u.cookie },
      );
      expect({ model: `${ai_type}/${provider}/${model}`, message: r.body.message }).toEqual({
        model: `${ai_type}/${provider}/${model}`,
        message: `insufficient credits: need ${credits}, have 0`,
      });
    }
  });

  test("the OpenAPI document and /docs state each price", async () => {
    const doc = await (await fetch(`${server.url}/api/openapi.json`)).text();
    const docs = await (await fetch(`${server.url}/docs`)).text();
    // /docs may be split into one page per endpoint: follow its links under /docs.
    const pages = [docs];
    for (const m of docs.matchAll(/href="(\/docs\/[^"#?]+)"/g))
      pages.push(await (await fetch(server.url + m[1])).text());
    const html = pages
      .join("\n")
      .replace(/<!--.*?-->/g, "")
      .replace(/<[^>]+>/g, " ")
      .replace(/&amp;/g, "&")
      .replace(/\s+/g, " ");
    for (const [ai_type, provider, model, credits] of PRICES) {
      // "<ai_type> · <provider> · <model> (<n> credits)" or a table row with the same cells in that order.
      const near = new RegExp(
        `${ai_type}\\W{1,12}${provider}\\W{1,12}${model.replace(/[./]/g, "\\$&")}\\W{1,12}\\(?${credits} credits`,
      );
      expect({ model, inOpenApi: near.test(doc) }).toEqual({ model, inOpenApi: true });
      expect({ model, inDocs: near.test(html) }).toEqual({ model, inDocs: true });
    }
  });
});

describe("spec §8.2 and §8.3 limits", () => {
  test("a standard user's key is limited to 100 requests per 60 s (headers)", async () => {
    const u = await c.signUp(uniqueEmail("pins-key"));
    const key = (await c.post("/api/keys/create", { name: "pins" }, { cookie: u.cookie })).body.data.key;
    const r = await c.post("/api/get-user-credits", undefined, { apiKey: key });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-ratelimit-limit")).toBe(String(KEY_LIMITS.standard));
    expect(r.headers.get("ratelimit-policy")).toContain(`q=${KEY_LIMITS.standard}`);
    expect(r.headers.get("ratelimit-policy")).toContain(`w=${KEY_LIMITS.windowSeconds}`);
  });

  test("the defaults of the premium and admin tiers are 500 and 1000 per minute", async () => {
    const { parseConfig } = await import("~/lib/config.server");
    const cfg = parseConfig({ NODE_ENV: "test", BETTER_AUTH_SECRET: "x".repeat(40) });
    expect([cfg.RATE_LIMIT_STANDARD, cfg.RATE_LIMIT_PREMIUM, cfg.RATE_LIMIT_ADMIN, cfg.RATE_LIMIT_WINDOW_MS]).toEqual([
      KEY_LIMITS.standard,
      KEY_LIMITS.premium,
      KEY_LIMITS.admin,
      KEY_LIMITS.windowSeconds * 1000,
    ]);
  });

  test("the OpenAPI document and /docs state the three key limits", async () => {
    const docs = (await (await fetch(`${server.url}/docs`)).text()).replace(/<[^>]+>/g, " ");
    for (const n of [KEY_LIMITS.standard, KEY_LIMITS.premium, KEY_LIMITS.admin]) expect(docs).toContain(String(n));
  });

  test("history: page defaults to 1, page_size to 20, and a page_size over 100 is clamped to 100", async () => {
    const u = await c.signUp(uniqueEmail("pins-history"));
    const plain = await c.post("/api/generator/history", {}, { cookie: u.cookie });
    expect([plain.body.data.page, plain.body.data.page_size]).toEqual([HISTORY.defaultPage, HISTORY.defaultPageSize]);
    const big = await c.post("/api/generator/history", { page_size: 1000 }, { cookie: u.cookie });
    expect(big.body.data.page_size).toBe(HISTORY.maxPageSize);
  });

  test("check-in: 1 credit, once per UTC day, valid 365 days", async () => {
    const u = await c.signUp(uniqueEmail("pins-ping"));
    const before = Date.now();
    const first = await c.post("/api/ping", undefined, { cookie: u.cookie });
    expect(first.body.code).toBe(0);
    const second = await c.post("/api/ping", undefined, { cookie: u.cookie });
    expect(second.body.code).toBe(0);
    const credits = await c.post("/api/get-user-credits", undefined, { cookie: u.cookie });
    expect(credits.body.data).toEqual({ left_credits: CHECKIN.credits, total_credits: CHECKIN.credits });
    // The grant's expiry, read from the database the server wrote.
    const g = await queryServerDb<{ amount: number; expires_at: number }>(
      server.dataDir,
      "SELECT amount, expires_at FROM credit_grants WHERE user_id = ? AND source = 'checkin'",
      u.userId,
    );
    expect(g.length).toBe(1);
    expect(g[0]!.amount).toBe(CHECKIN.credits);
    const days = (Number(g[0]!.expires_at) - before) / DAY;
    expect(days).toBeGreaterThan(CHECKIN.validityDays - 0.01);
    expect(days).toBeLessThan(CHECKIN.validityDays + 0.01);
  });

  test("feedback rating: 1 to 5 accepted, 0 and 6 refused", async () => {
    const u = await c.signUp(uniqueEmail("pins-feedback"));
    for (const rating of [RATING.min - 1, RATING.max + 1]) {
      const r = await c.post("/api/add-feedback", { content: "x", rating }, { cookie: u.cookie });
      expect({ rating, code: r.body.code }).toEqual({ rating, code: 1 });
    }
    for (const rating of [RATING.min, RATING.max]) {
      const r = await c.post("/api/add-feedback", { content: "x", rating }, { cookie: u.cookie });
      expect({ rating, code: r.body.code }).toEqual({ rating, code: 0 });
    }
  });
});
