/**
 * GET /metrics: Prometheus text for operators, behind METRICS_TOKEN. The counters follow real traffic (a task that
 * completes, a key over its rate limit) and the route label stays bounded however many paths a client sprays.
 */
import { describe, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";
import { startServer } from "../../support/server";
import { until } from "../../support/until";

const TOKEN = "metrics-token-for-tests-0123456789";
const it = serverForFile({
  env: { METRICS_TOKEN: TOKEN, SIMULATOR_DELAY_MS: "50", RATE_LIMIT_STANDARD: "3", JOB_TICK_MS: "25" },
});

const scrape = async (token: string | null = TOKEN) => {
  const res = await fetch(`${it.server.url}/metrics`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
  return { res, text: await res.text() };
};

/** The value of one sample line (`name{labels} value`), or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.lastIndexOf("}"));
    const has = Object.entries(labels).every(([k, v]) => body.includes(`${k}="${v}"`));
    if (has) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

async function userWithKey() {
  const { cookie } = await it.api.signUp(uniqueEmail("metrics"));
  const created = await it.api.post("/api/keys/create", { name: "metrics" }, { cookie });
  expect(created.body.code).toBe(0);
  return { cookie, key: created.body.data.key as string };
}

describe("access", () => {
  test("no token, a wrong token or another scheme → 401; the token → Prometheus text", async () => {
    expect((await scrape(null)).res.status).toBe(401);
    expect((await scrape("wrong-token-wrong-token-wrong")).res.status).toBe(401);
    const basic = await fetch(`${it.server.url}/metrics`, {
      headers: { authorization: `Basic ${btoa(`x:${TOKEN}`)}` },
    });
    expect(basic.status).toBe(401);
    expect(basic.headers.get("www-authenticate")).toContain("Bearer");
    const { res, text } = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    for (const name of [
      "atelier_http_requests_total",
      "atelier_http_request_duration_seconds",
      "atelier_jobs_queue_depth",
      "atelier_jobs_oldest_pending_seconds",
      "atelier_webhook_backlog",
      "atelier_process_cpu_user_seconds_total",
    ])
      expect(text).toContain(`# TYPE ${name}`);
  });

  test("off without METRICS_TOKEN: /metrics is not there", async () => {
    const server = await startServer({ env: { JOBS: "off" } });
    try {
      const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain("atelier_");
    } finally {
      await server.dispose();
    }
  });
});

describe("counters follow traffic", () => {
  test("a completed task is counted under status=completed with its duration; a 429 under its status", async () => {
    const { key, cookie } = await userWithKey();
    const before = sample((await scrape()).text, "atelier_generations_total", {
      provider: "openai",
      model: "dall-e-3",
      status: "completed",
    });
    const created = await it.api.post(
      "/api/generator/generate",
      { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "a lighthouse" },
      { apiKey: key },
    );
    expect(created.body.code).toBe(0);
    const genId = created.body.data.gen_id as string;
    await until("the task completes", async () => {
      // With the session: the key has only three requests a minute (RATE_LIMIT_STANDARD) and the 429s come below.
      const q = await it.api.post("/api/generator/query", { gen_id: genId }, { cookie });
      return q.body.data?.status === "completed" ? true : undefined;
    });
    const text = (await scrape()).text;
    expect(
      sample(text, "atelier_generations_total", { provider: "openai", model: "dall-e-3", status: "completed" }),
    ).toBe((before ?? 0) + 1);
    expect(
      sample(text, "atelier_generation_duration_seconds_count", { provider: "openai", model: "dall-e-3" }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, "atelier_http_requests_total", { route: "/api/generator/generate", method: "POST", status: "200" }),
    ).toBeGreaterThanOrEqual(1);

    // RATE_LIMIT_STANDARD=3 a minute: the fourth key request of this user is refused.
    let limited = 0;
    for (let i = 0; i < 6; i++) {
      const r = await it.api.post("/api/get-user-credits", {}, { apiKey: key });
      if (r.status === 429) limited++;
    }
    expect(limited).toBeGreaterThan(0);
    const after = (await scrape()).text;
    expect(
      sample(after, "atelier_http_requests_total", { route: "/api/get-user-credits", method: "POST", status: "429" }),
    ).toBe(limited);
  });

  test("a canceled task is counted under status=canceled", async () => {
    const { key } = await userWithKey();
    const created = await it.api.post(
      "/api/generator/generate",
      { ai_type: "video", provider: "kling", model: "kling-v1", prompt: "waves [simulate:slow]" },
      { apiKey: key },
    );
    expect(created.body.code).toBe(0);
    const canceled = await it.api.post("/api/generator/cancel", { gen_id: created.body.data.gen_id }, { apiKey: key });
    expect(canceled.body.code).toBe(0);
    expect(
      sample((await scrape()).text, "atelier_generations_total", {
        provider: "kling",
        model: "kling-v1",
        status: "canceled",
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  test("a client spraying paths and methods does not grow the label set", async () => {
    for (let i = 0; i < 300; i++) {
      const path = i % 3 === 0 ? `/api/nope-${i}` : i % 3 === 1 ? `/studio/${crypto.randomUUID()}` : `/x${i}/y/${i}`;
      await fetch(`${it.server.url}${path}`, { method: i % 2 ? "GET" : "PROPFIND" }).then((r) => r.arrayBuffer());
    }
    const routes = new Set<string>();
    const methods = new Set<string>();
    for (const line of (await scrape()).text.split("\n")) {
      if (!line.startsWith("atelier_http_requests_total{")) continue;
      routes.add(/route="([^"]*)"/.exec(line)![1]);
      methods.add(/method="([^"]*)"/.exec(line)![1]);
    }
    expect([...routes].some((r) => r.startsWith("/api/nope") || r.startsWith("/x"))).toBe(false);
    expect(routes.has("/studio/:genId")).toBe(true);
    expect(routes.has("/api/*")).toBe(true);
    expect(routes.size).toBeLessThan(25);
    expect(methods.has("PROPFIND")).toBe(false);
  });
});
