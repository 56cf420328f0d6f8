#!/usr/bin/env bun
/**
 * `bun run bench:keypath-pieces`: where the CPU of the shared JSON API path goes, piece by piece, in process
 * (`process.cpuUsage`, median of 3 runs, µs per call) on a WAL file database like the server's: 20 users with a
 * key, a session and 200 finished tasks each, requests rotating over the users as `bun run bench` does. The route
 * actions are called with a real `Request` and the response read as text, without the HTTP server; the server's
 * own per-request steps (request id, URL, AsyncLocalStorage, headers, the access log line) are timed alone.
 * docs/performance.md, "Session 5: the shared key path".
 *
 *   bun run bench:keypath-pieces [calls per run, default 5000]
 */
import { createHmac, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "#db/client";
import { authenticateApiKey, hashApiKey } from "~/domain/api-keys/authenticate.server";
import { getCredits } from "~/domain/credits/ledger.server";
import { historyPageJson } from "~/domain/generations/history.server";
import { queryGeneration } from "~/domain/generations/views.server";
import { type Decision, rateLimitHeaders } from "~/domain/rate-limits/decide";
import * as limiter from "~/domain/rate-limits/limiter.server";
import { keyPolicy, keyTier, userBucket } from "~/domain/rate-limits/policy.server";
import * as usersDomain from "~/domain/users/users.server";
import { findUserById, isAdmin } from "~/domain/users/users.server";
import { api, readJsonBody } from "~/http/api.server";
import { createAuth } from "~/http/auth.server";
import { requireSameSiteJson } from "~/http/csrf.server";
import { setBaselineHeaders } from "~/http/security-headers.server";
import { sessionUserId } from "~/http/session-lookup.server";
import { systemClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { envelopeResponse, okBody } from "~/lib/envelope";
import { requestContext } from "~/lib/log.server";
import { cpuPerCall, seedBenchUsers } from "./harness";

const dir = mkdtempSync(join(tmpdir(), "keypath-pieces-"));
const config = {
  ...parseConfig({ DATA_DIR: dir, LOG_LEVEL: "silent", RATE_LIMIT_STANDARD: "10000000", NODE_ENV: "production" }),
  authSecret: "unit-test-secret-unit-test-secret-0123",
};
const db = openDatabase(join(dir, "atelier.db"), { checkpointer: {} });
const clock = systemClock;
const auth = createAuth(config, db, clock);
(globalThis as Record<symbol, unknown>)[Symbol.for("atelier.services")] = { config, db, clock, auth };
const { action: creditsAction } = await import("~/routes/api/get-user-credits");
const { action: queryAction } = await import("~/routes/api/generator/query");
const { action: historyAction } = await import("~/routes/api/generator/history");
const ctx = await auth.$context;
const cookieName = ctx.authCookies.sessionToken.name;

// Optional pieces (absent in older checkouts): run this file in an older checkout for a before/after.
const usersModule = usersDomain as typeof usersDomain & {
  findKeyOwner?: (db: unknown, id: string, now: number) => Promise<unknown>;
};
// The guard's limiter: this process's leases where they exist (most checks without a statement), else one statement per check.
const leasesOf = (limiter as Record<string, unknown>).leases as
  | ((db: unknown) => { take: (...a: unknown[]) => Promise<Decision> })
  | undefined;
const take = (d: typeof db, bucket: string, p: { limit: number; windowMs: number }, now: number) =>
  leasesOf ? leasesOf(d).take(bucket, p, now) : limiter.take(d, bucket, p, now);
const USERS = 20;
const users: { id: string; key: string; cookie: string; genId: string }[] = [];
for (const u of await seedBenchUsers(db, clock, { users: USERS })) {
  const token = randomUUID().replaceAll("-", "");
  const now = Date.now();
  await db
    .raw("INSERT INTO session (id, expires_at, token, created_at, updated_at, user_id) VALUES (?, ?, ?, ?, ?, ?)")
    .run(randomUUID(), now + 7 * 86_400_000, token, now, now, u.id);
  const cookie = `${cookieName}=${encodeURIComponent(`${token}.${createHmac("sha256", config.authSecret).update(token).digest("base64")}`)}`;
  users.push({ id: u.id, key: u.key, cookie, genId: u.lastGenId });
}

const results: Array<{ name: string; us: number }> = [];
async function measure(name: string, n: number, f: (i: number) => unknown) {
  const runs = await cpuPerCall(name, n, f, { warmup: Math.min(n, 500), pad: 58, digits: 2 });
  results.push({ name, us: runs[1]! });
}

const N = Number(process.argv[2] ?? 5000);
const u = (i: number) => users[i % USERS]!;
const URL_BASE = "http://127.0.0.1:3000";
const keyRequest = (i: number, path: string, body?: string) =>
  new Request(URL_BASE + path, {
    method: "POST",
    headers:
      body === undefined ? { "x-api-key": u(i).key } : { "x-api-key": u(i).key, "content-type": "application/json" },
    body,
  });
const sessionRequest = (i: number, path: string) =>
  new Request(URL_BASE + path, { method: "POST", headers: { cookie: u(i).cookie } });
const text = async (r: Response | Promise<Response>) => (await r).text();
const queryBody = (i: number) => JSON.stringify({ gen_id: u(i).genId });
const HISTORY_BODY = JSON.stringify({ page: 1, page_size: 20 });

console.log(
  `${N} calls × 3 runs (median), ${USERS} users rotating; load average ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}`,
);
console.log("\n— whole route actions (Request in, response text out; no HTTP server)");
await measure("get-user-credits (key)", N, (i) =>
  text(creditsAction({ request: keyRequest(i, "/api/get-user-credits") } as never)),
);
await measure("get-user-credits (session)", N, (i) =>
  text(creditsAction({ request: sessionRequest(i, "/api/get-user-credits") } as never)),
);
await measure("generator/query (key)", N, (i) =>
  text(queryAction({ request: keyRequest(i, "/api/generator/query", queryBody(i)) } as never)),
);
await measure("generator/history p20 (key)", N, (i) =>
  text(historyAction({ request: keyRequest(i, "/api/generator/history", HISTORY_BODY) } as never)),
);

if (process.env.KEYPATH_ONLY_ACTIONS) process.exit(0);
console.log("\n— the HTTP server's own steps (app/server/http.server.ts)");
await measure("new Request (what Bun builds per request, for scale)", N, (i) => keyRequest(i, "/api/get-user-credits"));
const req0 = keyRequest(0, "/api/get-user-credits");
await measure("crypto.randomUUID (request id)", N * 4, () => crypto.randomUUID());
await measure("headers.get x-request-id", N * 4, () => req0.headers.get("x-request-id"));
await measure("new URL(request.url)", N * 4, () => new URL(req0.url));
await measure("requestContext.run (AsyncLocalStorage) around an await", N * 4, () =>
  requestContext.run({ requestId: "x" }, async () => 1),
);
await measure("envelopeResponse(okBody) + text", N * 4, () =>
  envelopeResponse(okBody({ left_credits: 1, total_credits: 2 })).text(),
);
await measure("envelopeResponse(okBody) (no read)", N * 4, () =>
  envelopeResponse(okBody({ left_credits: 1, total_credits: 2 })),
);
const noneAction = api({ route: "/x", auth: "none", handler: () => ({ data: { left_credits: 1, total_credits: 2 } }) });
await measure("api() auth none + the server's X-Request-Id and baseline headers", N * 2, async (i) => {
  const r = await noneAction({ request: keyRequest(i, "/x") });
  r.headers.set("X-Request-Id", "abc");
  setBaselineHeaders(r.headers);
  return r;
});
await measure("access log line (JSON.stringify, not written)", N * 4, (i) =>
  JSON.stringify({
    t: new Date().toISOString(),
    level: "info",
    msg: "request",
    request_id: "6f1c2b4e-0000-4000-8000-000000000000",
    method: "POST",
    path: "/api/get-user-credits",
    status: 200,
    ms: i / 100,
  }),
);

console.log("\n— the guard's pieces (app/http/api.server.ts guard, identity, rate limit)");
await measure("SHA-256 of the key", N * 4, (i) => hashApiKey(u(i).key));
await measure("authenticateApiKey (cached; hash included)", N * 4, (i) => authenticateApiKey(db, u(i).key, clock));
await measure("findUserById (whole row)", N * 4, (i) => findUserById(db, u(i).id));
if (usersModule.findKeyOwner)
  await measure("findKeyOwner (whole row + premium, one statement)", N * 4, (i) =>
    usersModule.findKeyOwner!(db, u(i).id, Date.now()),
  );
await measure("isAdmin", N * 4, () => isAdmin(config, { role: "user", email: "a@b.c", emailVerified: true }));
await measure("keyTier (premium? one statement)", N * 4, (i) =>
  keyTier(db, { userId: u(i).id, isAdmin: false }, clock),
);
const policy = keyPolicy(config, "standard");
await measure(`the guard's limiter (${leasesOf ? "leased" : "one statement"}; lease's)`, N, (i) =>
  take(db, userBucket(u(i).id), policy, Date.now()),
);
const d = await take(db, userBucket(u(0).id), policy, Date.now());
await measure("rateLimitHeaders", N * 4, () => rateLimitHeaders(policy, d));
await measure("sessionUserId (remembered cookie)", N * 4, (i) =>
  sessionUserId(auth, db, sessionRequest(i, "/").headers, Date.now()),
);
const sreq = sessionRequest(0, "/api/get-user-credits");
await measure("requireSameSiteJson", N * 4, () => requireSameSiteJson(sreq, config));
await measure("readJsonBody (query body)", N, (i) => readJsonBody(keyRequest(i, "/api/generator/query", queryBody(i))));
const { ENDPOINTS } = await import("~/http/endpoints.server");
await measure("zod: query body schema", N * 4, (i) =>
  ENDPOINTS["/api/generator/query"].body!.safeParse({ gen_id: u(i).genId }),
);

console.log("\n— the key guard composed by hand (what a key request's database work costs together)");
// The guard's reads as the checkout does them: owner row and tier in one statement where findKeyOwner exists.
const guardReads = async (i: number) => {
  const id = await authenticateApiKey(db, u(i).key, clock);
  if (usersModule.findKeyOwner) return usersModule.findKeyOwner(db, id.userId, Date.now());
  const user = (await findUserById(db, id.userId))!;
  return keyTier(db, { userId: user.id, isAdmin: false }, clock);
};
await measure("key + user + tier", N, guardReads);
await measure("key + user + tier + getCredits", N, async (i) => {
  await guardReads(i);
  return db.exec(getCredits(db, u(i).id, clock));
});
await measure("key + user + tier + take", N, async (i) => {
  await guardReads(i);
  return take(db, userBucket(u(i).id), policy, Date.now());
});
await measure("key + user + tier + take + getCredits", N, async (i) => {
  await guardReads(i);
  await take(db, userBucket(u(i).id), policy, Date.now());
  return db.exec(getCredits(db, u(i).id, clock));
});
await measure("take + getCredits", N, async (i) => {
  await take(db, userBucket(u(i).id), policy, Date.now());
  return db.exec(getCredits(db, u(i).id, clock));
});

console.log("\n— the endpoints' own work");
await measure("getCredits", N, (i) => db.exec(getCredits(db, u(i).id, clock)));
await measure("queryGeneration", N, (i) => queryGeneration(db, u(i).id, u(i).genId));
await measure("historyPageJson p20", N, (i) => historyPageJson(db, u(i).id, { page: 1, pageSize: 20 }));
await measure("api() with auth none (method, envelope), text", N * 2, (i) =>
  text(noneAction({ request: keyRequest(i, "/x") })),
);

await db.close();
rmSync(dir, { recursive: true, force: true });
