/**
 * The scale-out of docs/self-hosting.md §8 as a self-hoster builds it: one PostgreSQL, two
 * web nodes started with JOBS=off, one `atelier worker`, results in S3 (the s3rver fake), and the documented
 * two-node nginx block in front (a real nginx terminating TLS; only the name, port, certificate paths and the
 * upstream addresses are replaced). Through the proxy, with requests spread over both nodes:
 * sessions and keys, the shared key rate limit, the status stream (SSE: events arrive as they happen, not
 * buffered), webhooks sent by the worker, results served from S3, and a sign-out refused by both nodes.
 *
 * PostgreSQL only (the ATELIER_TEST_PG run; alone: `ATELIER_TEST_PG=1 bun test --timeout 60000 tests/integration/ops/multi-node-proxy.test.ts`).
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { createHmac } from "node:crypto";
import type { Subprocess } from "bun";
import { type S3Fake, startS3Fake } from "../../fakes/s3";
import { sessionCookie, uniqueEmail } from "../../support/client";
import { createTestDatabase, dropTestDatabase, onPostgres, postgresOnly } from "../../support/engine";
import { documentedNginx, type Nginx, onLocalhost, startNginx } from "../../support/nginx";
import { atelierCommand, freePort, startServer, type TestServer } from "../../support/server";
import { until } from "../../support/until";

const test = postgresOnly("several nodes share one database only on PostgreSQL");
const KEY_LIMIT = 10;
const FLUX = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" } as const;

let s3: S3Fake;
let databaseUrl: string;
let a: TestServer;
let b: TestServer;
let worker: Subprocess | undefined;
let workerLog = "";
let nginx: Nginx;
let site: string;
let receiver: ReturnType<typeof Bun.serve> | undefined;
const received: { headers: Headers; body: string }[] = [];

beforeAll(async () => {
  if (!onPostgres) return;
  s3 = await startS3Fake();
  databaseUrl = await createTestDatabase("proxy");
  const tlsPort = await freePort();
  site = `https://localhost:${tlsPort}`;
  const env = {
    ...s3.env,
    NODE_ENV: "production",
    PUBLIC_URL: site,
    TRUST_PROXY: "true",
    JOBS: "off",
    SIMULATOR_DELAY_MS: "1500",
    RATE_LIMIT_STANDARD: String(KEY_LIMIT),
    WEBHOOK_ALLOW_PRIVATE: "true",
    LOG_LEVEL: "info",
  };
  [a, b] = await Promise.all([startServer({ databaseUrl, env }), startServer({ databaseUrl, env })]);
  // The worker: the same settings (BETTER_AUTH_SECRET is not needed by it), the job runner and webhook dispatcher on.
  const { BETTER_AUTH_SECRET: _, ...workerEnv } = a.env;
  worker = Bun.spawn([...atelierCommand(), "worker"], {
    env: { ...workerEnv, JOBS: "on", JOB_TICK_MS: "50" },
    stdout: "pipe",
    stderr: "pipe",
  });
  for (const s of [worker.stdout, worker.stderr]) {
    void (async () => {
      const dec = new TextDecoder();
      const reader = (s as ReadableStream<Uint8Array>).getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read())
        workerLog += dec.decode(r.value, { stream: true });
    })();
  }
  nginx = await startNginx(
    documentedNginx("nginx two nodes"),
    (block, t) =>
      onLocalhost(block, t).replace(/upstream atelier \{[^}]*?server [^;]+;\s*server [^;]+;/, (m) => {
        const lines = m.split("\n");
        let n = 0;
        return lines
          .map((l) => (/^\s*server /.test(l) ? l.replace(/server \S+;/, `server 127.0.0.1:${[a, b][n++]!.port};`) : l))
          .join("\n");
      }),
    { port: tlsPort },
  );
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      received.push({ headers: req.headers, body: await req.text() });
      return new Response("ok");
    },
  });
}, 90_000);

afterAll(async () => {
  await nginx?.stop();
  receiver?.stop(true);
  worker?.kill();
  await worker?.exited;
  await a?.dispose();
  await b?.dispose();
  await s3?.stop();
  if (databaseUrl) await dropTestDatabase(databaseUrl).catch(() => {});
});

/** A request through nginx as the browser on the site sends it (Origin = the site), JSON body. */
function via(path: string, init: { body?: unknown; cookie?: string; key?: string; method?: string } = {}) {
  const headers: Record<string, string> = { origin: site };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  if (init.cookie) headers.cookie = init.cookie;
  if (init.key) headers["x-api-key"] = init.key;
  return fetch(site + path, {
    method: init.method ?? "POST",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    tls: { ca: nginx.ca },
  });
}

/** How many requests to `path` each node answered (their request log lines). */
const served = (path: string) =>
  [a, b].map(
    (s) =>
      s
        .logs()
        .split("\n")
        .filter((l) => l.includes(`"path":"${path}"`)).length,
  );

/** Both nodes logged requests to `path` since `before` (access lines are written off the request path: waited for). */
const bothNodesServed = (path: string, before: number[]) =>
  until(
    `access lines of ${path} from both nodes`,
    async () => {
      const after = served(path);
      return after.every((n, i) => n > before[i]!) ? true : undefined;
    },
    5_000,
  );

let cookie = "";
let key = "";

describe("two nodes and a worker on one PostgreSQL behind the documented nginx block", () => {
  test("the nginx block names two upstream nodes and keeps buffering off", () => {
    const block = documentedNginx("nginx two nodes");
    expect(block.match(/^\s*server \d+\.\d+\.\d+\.\d+:\d+;/gm)?.length).toBe(2);
    expect(block).toContain("proxy_buffering off;");
  });

  test("a session made through the proxy works on both nodes; a key made with it too", async () => {
    const res = await via("/api/auth/sign-up/email", {
      body: { name: "Two Nodes", email: uniqueEmail("proxy-nodes"), password: "correct-horse-battery" },
    });
    expect(res.status).toBe(200);
    cookie = sessionCookie(res);
    expect(cookie).toStartWith("__Host-atelier.session_token=");
    const before = served("/api/get-user-info");
    for (let i = 0; i < 6; i++) {
      const info = await via("/api/get-user-info", { body: {}, cookie });
      expect((await info.json()).data.nickname).toBe("Two Nodes");
    }
    await bothNodesServed("/api/get-user-info", before);

    const made = await (await via("/api/keys/create", { body: { name: "proxy" }, cookie })).json();
    expect(made.code).toBe(0);
    key = made.data.key;
    const info = await via("/api/get-user-info", { key });
    expect(info.status).toBe(200);
  });

  test("one key's rate limit holds across both nodes through the proxy", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < KEY_LIMIT + 6; i++) statuses.push((await via("/api/get-user-credits", { key })).status);
    const passed = statuses.filter((s) => s === 200).length;
    // The first request of the previous test used one; leases may strand a few for 250 ms, never add any.
    expect(passed).toBeLessThanOrEqual(KEY_LIMIT);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(6);
    expect(served("/api/get-user-credits").every((n) => n > 0)).toBe(true);
  });

  test("the status stream through nginx: the first event at once, the completion when the worker finishes (not buffered); the webhook sent by the worker; the result in S3", async () => {
    const hook = await (
      await via("/api/webhooks/create", { body: { url: `http://127.0.0.1:${receiver!.port}/hook` }, cookie })
    ).json();
    expect(hook.code).toBe(0);
    const gen = await (
      await via("/api/generator/generate", { body: { ...FLUX, prompt: "through the proxy" }, cookie })
    ).json();
    expect(gen.code).toBe(0);
    const started = Date.now();
    const stream = await fetch(`${site}/api/generator/stream?gen_id=${gen.data.gen_id}`, {
      headers: { cookie, origin: site },
      tls: { ca: nginx.ca },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toStartWith("text/event-stream");
    const events: { at: number; status: string; data: any }[] = [];
    const reader = stream.body!.getReader();
    const dec = new TextDecoder();
    let text = "";
    while (!events.some((e) => e.status === "completed" || e.status === "failed")) {
      const { done, value } = await reader.read();
      if (done) break;
      text += dec.decode(value, { stream: true });
      for (let i = text.indexOf("\n\n"); i >= 0; i = text.indexOf("\n\n")) {
        const chunk = text.slice(0, i);
        text = text.slice(i + 2);
        const data = /^data: (.*)$/m.exec(chunk)?.[1];
        if (data) events.push({ at: Date.now() - started, status: JSON.parse(data).status, data: JSON.parse(data) });
      }
    }
    await reader.cancel().catch(() => {});
    const first = events[0]!;
    const last = events.at(-1)!;
    expect(["pending", "processing"]).toContain(first.status);
    expect(last.status).toBe("completed");
    // Simulated tasks take SIMULATOR_DELAY_MS = 1.5 s: a buffering proxy would hand both events over together at the end.
    expect(last.at - first.at).toBeGreaterThan(700);

    // The worker ran it (the web nodes run no jobs) and sent the webhook, signed with the endpoint's secret.
    const delivery = await until(
      "the webhook",
      async () => received.find((r) => r.body.includes(gen.data.gen_id)),
      20_000,
    );
    const id = delivery.headers.get("webhook-id")!;
    const ts = delivery.headers.get("webhook-timestamp")!;
    const secret = Buffer.from(String(hook.data.secret).slice("whsec_".length), "base64");
    const expected = createHmac("sha256", secret).update(`${id}.${ts}.${delivery.body}`).digest("base64");
    expect(delivery.headers.get("webhook-signature")!.split(" ")).toContain(`v1,${expected}`);
    expect(JSON.parse(delivery.body)).toMatchObject({
      type: "generation.completed",
      data: { gen_id: gen.data.gen_id, status: "completed" },
    });

    const url = last.data.result_urls[0] as string;
    expect(url).toStartWith(`${s3.endpoint}/${s3.bucket}/`);
    const file = await fetch(url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(workerLog).toContain('"msg":"worker started"');
  }, 60_000);

  test("a sign-out through the proxy is refused by both nodes within a second", async () => {
    const out = await via("/api/auth/sign-out", { body: {}, cookie });
    expect(out.status).toBe(200);
    await Bun.sleep(1100);
    const before = served("/api/get-user-info");
    for (let i = 0; i < 4; i++)
      expect((await (await via("/api/get-user-info", { body: {}, cookie })).json()).message).toBe(
        "no auth, please sign-in",
      );
    await bothNodesServed("/api/get-user-info", before);
  });
});
