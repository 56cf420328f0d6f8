/**
 * Bad input against EVERY endpoint of app/routes.ts, with a session, with an
 * API key, as an admin and anonymously: missing and extra fields, wrong types,
 * huge strings, 10k-deep JSON, invalid UTF-8, wrong content types, empty
 * bodies, other methods — table-driven, then property-based (fast-check).
 * Always the envelope (code 1) or a 4xx, never a 5xx; and when a call fails,
 * nothing in the database changed.
 *
 * The endpoint table below must name every route of app/routes.ts: adding an
 * endpoint without adding it here fails the first test.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Db } from "#db/client";
import routes from "~/routes";
import { Client, uniqueEmail } from "../../support/client";
import { openServerDb } from "../../support/db";
import { signUpAdmin } from "../../support/fixtures";
import { startServer, type TestServer } from "../../support/server";

type Body = Record<string, unknown> | undefined;
interface Endpoint {
  /** Methods the endpoint answers besides POST (GET for health). */
  get?: boolean;
  /** A valid body (mutated field by field); undefined: the endpoint reads no body. */
  valid?: Body;
  /** better-auth's own API: answers in its own format, so only "never 5xx, nothing written" is checked. */
  foreign?: boolean;
  /** A success is a text stream, not the envelope (errors still are envelopes). */
  stream?: boolean;
}

const ENDPOINTS: Record<string, Endpoint> = {
  "/api/health": { get: true },
  "/api/models": {},
  "/api/get-user-info": {},
  "/api/get-user-credits": {},
  "/api/get-user-subscription": {},
  "/api/ping": {},
  "/api/keys/list": {},
  "/api/keys/create": { valid: { name: "k" } },
  "/api/keys/revoke": { valid: { key_id: "00000000-0000-0000-0000-000000000000" } },
  "/api/keys/update": { valid: { key_id: "00000000-0000-0000-0000-000000000000", scopes: ["read"] } },
  "/api/usage": { valid: { group_by: "day" } },
  "/api/update-invite": { valid: { is_affiliate: true } },
  "/api/add-feedback": { valid: { content: "nice", rating: 5 } },
  "/api/admin/grant-credits": { valid: { email: "nobody@example.test", credits: 5, expires_in_days: 30 } },
  "/api/admin/create-subscription": {
    valid: {
      email: "nobody@example.test",
      product_id: "pro",
      product_name: "Pro",
      interval: "month",
      amount: 990,
      sub_id: "s",
      period_end: "2030-01-01T00:00:00Z",
    },
  },
  "/api/admin/list-users": { valid: { page: 1, page_size: 20 } },
  "/api/admin/suspend-user": { valid: { email: "nobody@example.test", suspended: true, reason: "abuse" } },
  "/api/account/export": {},
  // The confirmation never matches the caller's address here: every call is refused and deletes nothing.
  "/api/account/delete": { valid: { confirm: "nobody@example.test", password: "correct-horse-battery" } },
  "/api/admin/models/list": {},
  // The generate rows use a Replicate model: changing kling-v1's image price or sale leaves them unaffected.
  "/api/admin/models/upsert": {
    valid: { ai_type: "image", provider: "kling", model: "kling-v1", credits: 6, enabled: true },
  },
  "/api/generator/quote": {
    valid: { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", options: {} },
  },
  "/api/admin/codes/create": { valid: { credits: 5, max_uses: 1 } },
  // No such code: every call is refused and grants nothing.
  "/api/redeem": { valid: { code: "NOPE-NOPE-NOPE" } },
  "/api/collections/create": { valid: { name: "c" } },
  "/api/collections/list": {},
  "/api/collections/add": { valid: { collection_id: "col_nope", gen_ids: ["00000000-0000-0000-0000-000000000000"] } },
  "/api/collections/remove": {
    valid: { collection_id: "col_nope", gen_ids: ["00000000-0000-0000-0000-000000000000"] },
  },
  "/api/collections/rename": { valid: { collection_id: "col_nope", name: "n" } },
  "/api/collections/delete": { valid: { collection_id: "col_nope" } },
  "/api/collections/items": { valid: { collection_id: "col_nope" } },
  // Multipart only: every JSON case is refused before anything is read.
  "/api/provenance/verify": {},
  "/api/billing/products": {},
  "/api/billing/checkout": { valid: { product_id: "pack-100" } },
  // No STRIPE_WEBHOOK_SECRET here: every call is a 400 that writes nothing (signatures: tests/integration/billing/stripe.test.ts).
  "/api/billing/webhook/stripe": {},
  "/api/generator/generate": {
    valid: {
      ai_type: "image",
      provider: "replicate",
      model: "black-forest-labs/flux-schnell",
      prompt: "a fox",
      options: {},
    },
  },
  "/api/generator/query": { valid: { gen_id: "00000000-0000-0000-0000-000000000000" } },
  "/api/generator/history": { valid: { page: 1, page_size: 20 } },
  "/api/generator/cancel": { valid: { gen_id: "00000000-0000-0000-0000-000000000000" } },
  // Uploads are multipart: every JSON case here is refused before anything is stored (uploads: tests/integration/files).
  "/api/files": {},
  "/api/files/list": { valid: { page: 1, page_size: 20 } },
  "/api/files/delete": { valid: { file_id: "file_nope" } },
  "/api/webhooks/create": { valid: { url: "http://127.0.0.1:9/hook", events: ["generation.completed"] } },
  "/api/webhooks/list": {},
  // GET with ?gen_id: every case here lacks it (or uses another method), so each answers an envelope.
  "/api/generator/stream": {},
  "/api/webhooks/delete": { valid: { webhook_id: "wh_nope" } },
  "/api/webhooks/rotate-secret": { valid: { webhook_id: "wh_nope" } },
  "/api/webhooks/deliveries": { valid: { webhook_id: "wh_nope" } },
  "/api/webhooks/resend": { valid: { delivery_id: "dlv_nope" } },
  "/api/webhooks/update": { valid: { webhook_id: "wh_nope", events: ["generation.failed"] } },
  "/api/webhooks/test": { valid: { webhook_id: "wh_nope" } },
  "/api/demo/gen-text": { valid: { provider: "openai", model: "gpt-4o-mini", prompt: "a haiku about foxes" } },
  "/api/demo/gen-image": { valid: { provider: "openai", model: "dall-e-3", prompt: "a lighthouse" } },
  "/api/demo/gen-stream-text": {
    stream: true,
    valid: { provider: "openai", model: "gpt-4o-mini", prompt: "a short story" },
  },
  // The OpenAPI document is not an envelope: only "never 5xx, nothing written" applies.
  "/api/openapi.json": { get: true, foreign: true },
  // Catch-alls of routes.ts, reached through sample paths.
  "/api/no-such-endpoint": {},
  "/api/auth/sign-up/email": {
    foreign: true,
    valid: { email: "x@example.test", password: "correct-horse-battery", name: "x" },
  },
  "/api/auth/sign-in/email": { foreign: true, valid: { email: "x@example.test", password: "correct-horse-battery" } },
  // No such task or report: every call is refused and stores nothing.
  "/api/reports": { valid: { gen_id: "gen_nope", reason: "other", details: "why" } },
  "/api/admin/reports/list": { valid: { status: "open", limit: 50 } },
  "/api/admin/reports/resolve": { valid: { report_id: "rpt_nope", action: "remove", note: "n" } },
};
/** Route pattern of routes.ts → the table entry that covers it. */
const COVERS: Record<string, string> = { "api/*": "/api/no-such-endpoint", "api/auth/*": "/api/auth/sign-up/email" };

let server: TestServer;
let c: Client;
let db: Db;
type AuthName = "anonymous" | "session" | "key" | "admin" | "bad key";
const auths: Record<AuthName, Record<string, string>> = {
  anonymous: {},
  session: {},
  key: {},
  admin: {},
  "bad key": { "x-api-key": "atl_not-a-real-key" },
};
const ADMIN = `admin-${Date.now()}@example.test`;
const userEmail = uniqueEmail("bad");

beforeAll(async () => {
  // JOBS=off: a task created by a valid request must not change the database under later comparisons.
  // A million credits: generate cases must reach validation, never stop at the balance check.
  server = await startServer({
    env: {
      JOBS: "off",
      DEMO_SIMULATOR_WORD_MS: "0",
      ADMIN_EMAILS: ADMIN,
      RATE_LIMIT_STANDARD: "10000000",
      RATE_LIMIT_ADMIN: "10000000",
      SIGNUP_CREDITS: "1000000",
    },
  });
  c = new Client(server.url);
  const user = await c.signUp(userEmail);
  auths.session = { cookie: user.cookie };
  auths.key = {
    "x-api-key": (await c.post("/api/keys/create", { name: "bad input" }, { cookie: user.cookie })).body.data.key,
  };
  const admin = await signUpAdmin(server, ADMIN, { via: "mailbox" });
  auths.admin = { cookie: admin.cookie };
  db = await openServerDb(server.dataDir);
});
afterAll(async () => {
  await db?.close();
  await server?.dispose();
});

let tables: string[] | undefined;
let changeCounter: Promise<void> | undefined;
/**
 * On PostgreSQL, re-reading every table around each of thousands of calls takes minutes: a trigger on every watched
 * table counts the row changes instead (a key's last-used stamp alone is not a change), and the snapshot is the count.
 */
async function pgChanges(): Promise<number> {
  changeCounter ??= (async () => {
    await db.raw("CREATE TABLE IF NOT EXISTS test_row_changes (n bigint NOT NULL)").run();
    await db.raw("INSERT INTO test_row_changes SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM test_row_changes)").run();
    await db
      .raw(
        `CREATE OR REPLACE FUNCTION test_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF TG_OP <> 'UPDATE' OR (to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at') THEN
             UPDATE test_row_changes SET n = n + 1;
           END IF;
           RETURN NULL;
         END $$`,
      )
      .run();
    for (const t of tables!) {
      await db
        .raw(
          `CREATE TRIGGER test_count_change AFTER INSERT OR UPDATE OR DELETE ON "${t}" FOR EACH ROW EXECUTE FUNCTION test_count_change()`,
        )
        .run();
    }
  })();
  await changeCounter;
  return (await db.raw<{ n: number }>("SELECT n FROM test_row_changes").one())!.n;
}
/** Everything in the database that a failed call must not touch — except the counters a failure is meant to move: the key limiter (rate_limits), better-auth's per-IP limiter (rate_limit), failed sign-ins (sign_in_attempts) — and key last-used stamps. */
async function snapshot(): Promise<string> {
  const skip = ["rate_limits", "rate_limit", "sign_in_attempts", "__drizzle_migrations"];
  tables ??= (
    await db
      .raw<{ name: string }>(
        db.engine === "postgres"
          ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
          : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
      )
      .many()
  )
    .map((t) => t.name)
    .filter((t) => !skip.includes(t))
    .sort();
  if (db.engine === "postgres") return `changes:${await pgChanges()}`;
  const parts: string[] = [];
  for (const t of tables) {
    const rows = await db.raw<Record<string, unknown>>(`SELECT * FROM "${t}"`).many();
    for (const r of rows) if (t === "api_keys") delete r.last_used_at;
    // Rows in a stable order whatever the engine returns them in.
    parts.push(
      `${t}:${rows
        .map((r) => JSON.stringify(r))
        .sort()
        .join(",")}`,
    );
  }
  return parts.join("\n");
}

interface Sent {
  method?: string;
  body?: BodyInit | null;
  contentType?: string | null;
  headers?: Record<string, string>;
}

const failures: string[] = [];
let calls = 0;

/** Sends one request and checks the invariants; returns the status and envelope. */
async function send(path: string, auth: AuthName, s: Sent, label: string) {
  const ep = ENDPOINTS[path]!;
  const before = await snapshot();
  const headers: Record<string, string> = { ...auths[auth], ...s.headers };
  if (ep.foreign) headers.origin = server.url;
  if (s.contentType !== null) headers["content-type"] = s.contentType ?? "application/json";
  const method = s.method ?? "POST";
  let res: Response;
  try {
    res = await fetch(server.url + path, {
      method,
      headers,
      body: method === "GET" || method === "HEAD" ? undefined : s.body,
    });
  } catch (e) {
    failures.push(`${label}: transport error ${(e as Error).message}`);
    return;
  }
  calls++;
  const text = await res.text();
  const where = `${method} ${path} as ${auth}: ${label}`;
  if (res.status >= 500) failures.push(`${where}: HTTP ${res.status} ${text.slice(0, 200)}`);
  let env: { code?: unknown; message?: unknown; data?: unknown } | undefined;
  // Bun's own transport limits (431 header too large, 413 body too large) answer before Atelier does.
  const transportLimit = res.status === 431 || res.status === 413;
  const streamed = ep.stream && res.ok && (res.headers.get("content-type") ?? "").startsWith("text/plain");
  if (!ep.foreign && method !== "HEAD" && !transportLimit && !streamed) {
    try {
      env = JSON.parse(text);
    } catch {
      failures.push(`${where}: not JSON: ${text.slice(0, 100)}`);
      return;
    }
    const isEnvelope = env && (env.code === 0 || env.code === 1) && typeof env.message === "string" && "data" in env;
    if (!isEnvelope) failures.push(`${where}: not the envelope: ${text.slice(0, 200)}`);
    if (env?.code === 1 && env.data !== null) failures.push(`${where}: error with data ${text.slice(0, 200)}`);
  }
  const failed = res.status >= 400 || env?.code === 1;
  if (failed && (await snapshot()) !== before)
    failures.push(`${where}: failed (HTTP ${res.status} ${text.slice(0, 120)}) but the database changed`);
  return { status: res.status, env };
}

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
const HUGE = "x".repeat(1024 * 1024 + 10);

/** The table: what every endpoint is sent. */
function cases(ep: Endpoint): [string, Sent][] {
  const json = (v: unknown): Sent => ({ body: JSON.stringify(v) });
  const out: [string, Sent][] = [
    ["empty body", { body: "" }],
    ["no content type, no body", { body: null, contentType: null }],
    ["null", { body: "null" }],
    ["array", { body: "[1,2]" }],
    ["number", { body: "42" }],
    ["string", { body: '"hello"' }],
    ["truncated JSON", { body: '{"a": ' }],
    ["not JSON", { body: "hello=world" }],
    ["invalid UTF-8", { body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) }],
    ["lone surrogate escape", { body: '{"name":"\\ud800","prompt":"\\udfff","content":"\\ud800"}' }],
    ["NUL bytes", { body: '{"name":"a\\u0000b","prompt":"\\u0000","content":"\\u0000","gen_id":"\\u0000"}' }],
    ["10k-deep array", { body: deep(10_000) }],
    ["10k-deep object", { body: deepObject(10_000) }],
    ["body over 1 MiB", { body: JSON.stringify({ x: HUGE }) }],
    ["text/plain content type", { body: JSON.stringify(ep.valid ?? {}), contentType: "text/plain" }],
    ["form content type", { body: "name=a&content=b&rating=5", contentType: "application/x-www-form-urlencoded" }],
    ["multipart content type", { body: "--x\r\n\r\n--x--", contentType: "multipart/form-data; boundary=x" }],
    ["GET", { method: "GET" }],
    ["PUT", { method: "PUT", body: "{}" }],
    ["DELETE", { method: "DELETE" }],
    ["PATCH", { method: "PATCH", body: "{}" }],
    ["HEAD", { method: "HEAD" }],
    ["OPTIONS", { method: "OPTIONS" }],
    ["prototype pollution keys", { body: '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}}}' }],
    ["huge header", { body: "{}", headers: { "x-junk": "y".repeat(64 * 1024) } }],
  ];
  if (ep.valid) {
    const v = ep.valid;
    out.push(["extra fields", json({ ...v, extra: 1, is_admin: true, user_id: "someone", credits: 1e9 })]);
    for (const k of Object.keys(v)) {
      const { [k]: _, ...rest } = v;
      out.push([`missing ${k}`, json(rest)]);
      for (const [name, bad] of [
        ["null", null],
        ["number", 12345],
        ["negative", -1],
        ["float", 1.5],
        ["huge number", 1e308],
        ["boolean", false],
        ["array", [v[k]]],
        ["object", { value: v[k] }],
        ["empty string", ""],
        ["900 KB string", "p".repeat(900_000)],
        ["unicode", "𝕏\u202e\u0000漢字"],
        ["10k-deep value", JSON.parse(deep(1000))],
      ] as const) {
        out.push([`${k} as ${name}`, json({ ...v, [k]: bad })]);
      }
    }
  }
  return out;
}

const AUTHS = Object.keys(auths) as AuthName[];
beforeEach(() => {
  failures.length = 0;
});

describe("bad input: never a 5xx, always the envelope or a 4xx, nothing written on failure", () => {
  test("the table covers every route of app/routes.ts", () => {
    const apiRoutes = (routes as { path?: string }[])
      .map((r) => r.path)
      .filter((p): p is string => !!p && p.startsWith("api"));
    expect(apiRoutes.length).toBeGreaterThan(10);
    for (const p of apiRoutes)
      expect({ route: p, covered: !!ENDPOINTS[COVERS[p] ?? `/${p}`] }).toEqual({ route: p, covered: true });
  });

  for (const path of Object.keys(ENDPOINTS)) {
    test(`${path}: table of bad requests × ${AUTHS.join(", ")}`, async () => {
      for (const auth of AUTHS) for (const [label, s] of cases(ENDPOINTS[path]!)) await send(path, auth, s, label);
      expect(failures).toEqual([]);
    }, 60_000);
  }

  test("10k-deep options in an otherwise valid generate request: refused by the body depth cap, nothing stored; history still answers", async () => {
    expect(
      (await c.post("/api/admin/grant-credits", { email: userEmail, credits: 100 }, { cookie: auths.admin.cookie }))
        .body.code,
    ).toBe(0);
    const before = (await send("/api/generator/history", "session", { body: "{}" }, "history before"))?.env?.data as {
      total: number;
    };
    const body = JSON.stringify({
      ai_type: "image",
      provider: "replicate",
      model: "black-forest-labs/flux-schnell",
      prompt: "deep",
      options: JSON.parse(deepObject(10_000)),
    });
    for (const auth of ["session", "key"] as const) {
      const r = await send("/api/generator/generate", auth, { body }, "10k-deep options");
      expect(r?.env?.code).toBe(1);
      // docs/decisions/086-json-depth-limit.md: the depth check answers before the 8 KB options cap.
      expect(r?.env?.message).toBe("invalid params: body nested too deeply (max 32 levels)");
    }
    const after = await send("/api/generator/history", "session", { body: "{}" }, "history with deep options");
    expect(after?.env?.code).toBe(0);
    expect((after?.env?.data as { total: number } | undefined)?.total).toBe(before.total);
    expect(failures).toEqual([]);
  });

  test("the media route: traversal, odd and huge paths, bad ranges → 4xx, never 5xx", async () => {
    const bad = [
      "/media/../atelier.db",
      "/media/..%2fatelier.db",
      "/media/%2e%2e/%2e%2e/etc/passwd",
      "/media/a/../../x",
      `/media/${"a".repeat(5000)}`,
      "/media/%00",
      "/media/x.png",
    ];
    for (const p of bad) {
      const r = await fetch(server.url + p, { headers: { range: "bytes=999999-1" } });
      expect({ p, status: r.status < 500 }).toEqual({ p, status: true });
    }
  });
});

describe("bad input: properties (fast-check)", () => {
  const endpoints = Object.keys(ENDPOINTS);
  const runs = Number(process.env.BAD_INPUT_RUNS ?? 40);

  test("any JSON value as the body, to any endpoint, with any caller", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints),
        fc.constantFrom(...AUTHS),
        fc.jsonValue({ maxDepth: 6 }),
        async (path, auth, value) => {
          const before = failures.length;
          await send(
            path,
            auth,
            { body: JSON.stringify(value) },
            `property body ${JSON.stringify(value).slice(0, 80)}`,
          );
          return failures.length === before;
        },
      ),
      { numRuns: runs * 4 },
    );
    expect(failures).toEqual([]);
  }, 120_000);

  test("a valid body with one field replaced by any JSON value, or extra random fields", async () => {
    const withBodies = endpoints.filter((p) => ENDPOINTS[p]!.valid);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...withBodies),
        fc.constantFrom(...AUTHS),
        fc.nat(),
        fc.jsonValue({ maxDepth: 4 }),
        fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
        async (path, auth, i, value, extra) => {
          const v = ENDPOINTS[path]!.valid!;
          const keys = Object.keys(v);
          const body = { ...extra, ...v, [keys[i % keys.length]!]: value };
          const before = failures.length;
          await send(
            path,
            auth,
            { body: JSON.stringify(body) },
            `property mutated ${JSON.stringify(body).slice(0, 100)}`,
          );
          return failures.length === before;
        },
      ),
      { numRuns: runs * 4 },
    );
    expect(failures).toEqual([]);
  }, 120_000);

  test("arbitrary bytes as the body (invalid UTF-8, control characters) with any content type", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints),
        fc.constantFrom(...AUTHS),
        fc.uint8Array({ maxLength: 256 }),
        fc.constantFrom(
          "application/json",
          "text/plain",
          "application/octet-stream",
          "application/json; charset=latin1",
        ),
        async (path, auth, bytes, contentType) => {
          const before = failures.length;
          await send(
            path,
            auth,
            { body: bytes, contentType },
            `property bytes ${Buffer.from(bytes).toString("hex").slice(0, 60)}`,
          );
          return failures.length === before;
        },
      ),
      { numRuns: runs * 2 },
    );
    expect(failures).toEqual([]);
  }, 120_000);

  test("the server is still up and answered every call", async () => {
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    expect(calls).toBeGreaterThan(2000);
    console.log(`bad input: ${calls} calls, none answered 5xx`);
    expect(server.proc.exitCode).toBeNull();
    expect(server.logs()).not.toContain("unhandled error");
  });
});
