import { beforeEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { type Db, openDatabase } from "#db/client";
import { type Decision, type Policy, rateLimitHeaders } from "~/domain/rate-limits/decide";
import { leases, take } from "~/domain/rate-limits/limiter.server";
import {
  keyCreationBucket,
  keyCreationPolicy,
  keyPolicy,
  keyTier,
  sessionBucket,
  sessionPolicy,
  userBucket,
} from "~/domain/rate-limits/policy.server";
import { manualClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { insertUser, makePremium } from "../../support/services";

const config = parseConfig({});
const MIN = 60_000;

type Take = (db: Db, bucket: string, policy: Pick<Policy, "limit" | "windowMs">, nowMs: number) => Promise<Decision>;
const LIMITERS: [string, Take][] = [
  ["take (a statement per request)", take],
  ["leases (per-process leases, local denials)", (db, bucket, policy, nowMs) => leases(db).take(bucket, policy, nowMs)],
];

// The spec's behaviour at the limit in one process is the same with both: each test below runs against each.
describe.each(LIMITERS)("limiter (GCRA, one row per bucket) on SQLite with an injected clock: %s", (_name, take) => {
  let db: Db;
  let clock: ReturnType<typeof manualClock>;
  beforeEach(async () => {
    db = openDatabase(":memory:");
    clock = manualClock();
  });
  const std = { name: "standard", limit: 100, windowMs: MIN };
  const check = (bucket: string, p = std) => take(db, bucket, p, clock.now());
  const rows = () => (db.sqlite!.query("SELECT count(*) AS n FROM rate_limits").get() as { n: number }).n;

  test("a burst of 100 passes, the 101st is denied; one more fits every 600 ms", async () => {
    const t0 = clock.now();
    for (let i = 0; i < 100; i++) expect(await check("user:a")).toMatchObject({ allowed: true, remaining: 99 - i });
    const over = await check("user:a");
    expect(over).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 600 });
    clock.set(t0 + 599);
    expect((await check("user:a")).allowed).toBe(false);
    clock.set(t0 + 600);
    expect(await check("user:a")).toMatchObject({ allowed: true, remaining: 0 });
    expect((await check("user:a")).allowed).toBe(false);
    clock.set(t0 + 600 + MIN); // a whole window idle: the whole quota is back
    for (let i = 0; i < 100; i++) expect((await check("user:a")).allowed).toBe(true);
    expect((await check("user:a")).allowed).toBe(false);
    expect(rows()).toBe(1); // one row per bucket, however many requests
  });

  test("denied requests are not counted and write nothing", async () => {
    const p = { name: "t", limit: 2, windowMs: MIN };
    await check("b", p);
    await check("b", p);
    const tat = () => db.sqlite!.query("SELECT tat FROM rate_limits WHERE bucket = 'b'").get();
    const before = tat();
    for (let i = 0; i < 50; i++) expect((await check("b", p)).allowed).toBe(false);
    expect(tat()).toEqual(before);
    clock.advance(30_000); // one interval (60 s / 2)
    expect((await check("b", p)).allowed).toBe(true);
  });

  test("headers: IETF draft RateLimit-Policy / RateLimit and X-RateLimit-*; Retry-After only when denied", async () => {
    const now = clock.now();
    for (let i = 0; i < 10; i++) await check("h");
    clock.advance(500);
    const ok = await check("h"); // 11 × 600 ms in use, 500 ms drained: 6,100 ms of the window
    expect(rateLimitHeaders(std, ok)).toEqual({
      "RateLimit-Policy": '"standard";q=100;w=60',
      RateLimit: '"standard";r=89;t=7',
      "X-RateLimit-Limit": "100",
      "X-RateLimit-Remaining": "89",
      "X-RateLimit-Reset": String(Math.ceil((now + 500 + 6_100) / 1000)),
    });
    for (let i = 0; i < 89; i++) await check("h");
    const no = rateLimitHeaders(std, await check("h"));
    expect(no["Retry-After"]).toBe("1");
    expect(no.RateLimit).toBe('"standard";r=0;t=1');
    expect(no["X-RateLimit-Remaining"]).toBe("0");
  });

  test("the request that takes the last slot says the next one fits in one interval (600 ms), not a whole window", async () => {
    const t0 = clock.now(); // 2026-11-22T10:00:00.000Z
    for (let i = 0; i < 99; i++) await check("last");
    const last = await check("last");
    expect(last).toMatchObject({ allowed: true, remaining: 0, resetMs: 600, retryAfterMs: null });
    expect(rateLimitHeaders(std, last)).toEqual({
      "RateLimit-Policy": '"standard";q=100;w=60',
      RateLimit: '"standard";r=0;t=1',
      "X-RateLimit-Limit": "100",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(t0 / 1000 + 1), // 600 ms later, rounded up to the second
    });
  });

  test("Retry-After and X-RateLimit-Reset at the second boundaries: 60 s, then 1,001 ms → 2, 1,000 ms → 1, 999 ms → 1", async () => {
    const one = { name: "one", limit: 1, windowMs: MIN };
    const t0 = clock.now();
    expect(await check("r", one)).toMatchObject({ allowed: true, remaining: 0, resetMs: 60_000 });
    const denied = await check("r", one);
    expect(denied).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 60_000, resetMs: 60_000 });
    expect(rateLimitHeaders(one, denied)).toEqual({
      "RateLimit-Policy": '"one";q=1;w=60',
      RateLimit: '"one";r=0;t=60',
      "X-RateLimit-Limit": "1",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(t0 / 1000 + 60),
      "Retry-After": "60",
    });
    for (const [elapsed, retryAfter] of [
      [58_999, "2"],
      [59_000, "1"],
      [59_001, "1"],
    ] as const) {
      clock.set(t0 + elapsed);
      const d = await check("r", one);
      expect({
        elapsed,
        allowed: d.allowed,
        retryAfterMs: d.retryAfterMs,
        header: rateLimitHeaders(one, d)["Retry-After"],
      }).toEqual({
        elapsed,
        allowed: false,
        retryAfterMs: 60_000 - elapsed,
        header: retryAfter,
      });
    }
    clock.set(t0 + 60_000);
    expect(rateLimitHeaders(one, await check("r", one))["Retry-After"]).toBeUndefined();
  });

  test("a limit finer than 1 µs per request (T rounded up to 1 µs) still reports at most limit − 1 remaining", async () => {
    // 600 per 1 ms: T = 1 µs, so the window holds 1,000 intervals; the headers never promise more than the limit.
    const fine = { name: "fine", limit: 600, windowMs: 1 };
    expect(await check("fine", fine)).toMatchObject({ allowed: true, remaining: 599 });
  });

  test("premium 500 and admin 1000 (config defaults), tier read from the database each time", async () => {
    const u = insertUser(db);
    expect(await keyTier(db, { userId: u.id, isAdmin: false }, clock)).toBe("standard");
    makePremium(db, u.id);
    expect(await keyTier(db, { userId: u.id, isAdmin: false }, clock)).toBe("premium");
    expect(await keyTier(db, { userId: u.id, isAdmin: true }, clock)).toBe("admin");
    for (const [tier, limit] of [
      ["premium", 500],
      ["admin", 1000],
    ] as const) {
      const p = keyPolicy(config, tier);
      expect(p).toEqual({ name: tier, limit, windowMs: MIN });
      for (let i = 0; i < limit; i++) expect((await check(`user:${tier}`, p)).allowed).toBe(true);
      expect((await check(`user:${tier}`, p)).allowed).toBe(false);
    }
  });

  test("a tier change keeps the fraction of the window used: a standard user at the limit becoming premium gets 400 more", async () => {
    const u = insertUser(db);
    const policyNow = async () => keyPolicy(config, await keyTier(db, { userId: u.id, isAdmin: false }, clock));
    for (let i = 0; i < 100; i++) expect((await check("user:k", await policyNow())).allowed).toBe(true);
    expect((await check("user:k", await policyNow())).allowed).toBe(false);
    makePremium(db, u.id);
    // 100 × 600 ms = the whole 60 s window in use: premium (120 ms per request) is full too.
    expect(await check("user:k", await policyNow())).toMatchObject({ allowed: false, limit: 500 });
    clock.advance(12_000); // 12 s drained = 100 premium requests (standard: 20)
    let n = 0;
    while ((await check("user:k", await policyNow())).allowed) n++;
    expect(n).toBe(100);
  });

  test("configured limits and window are used", async () => {
    const c = parseConfig({
      RATE_LIMIT_STANDARD: "7",
      RATE_LIMIT_PREMIUM: "8",
      RATE_LIMIT_ADMIN: "9",
      RATE_LIMIT_WINDOW_MS: "2000",
    });
    expect(keyPolicy(c, "standard")).toEqual({ name: "standard", limit: 7, windowMs: 2000 });
    expect(keyPolicy(c, "premium").limit).toBe(8);
    expect(keyPolicy(c, "admin").limit).toBe(9);
    // A limit that does not divide the window: the whole burst still fits, and no more.
    const p = keyPolicy(c, "standard");
    for (let i = 0; i < 7; i++) expect(await check("odd", p)).toMatchObject({ allowed: true, remaining: 6 - i });
    expect((await check("odd", p)).allowed).toBe(false);
  });

  test("two connections (as two processes would) on one database file share one count", async () => {
    const file = `/tmp/atelier-rl-${crypto.randomUUID()}.db`;
    const a = openDatabase(file);
    const b = openDatabase(file);
    const p = { name: "t", limit: 10, windowMs: MIN };
    let allowed = 0;
    for (let i = 0; i < 20; i++) if ((await take(i % 2 ? a : b, "shared", p, clock.now())).allowed) allowed++;
    expect(allowed).toBe(10);
    void a.close();
    void b.close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  });
});

describe("session limits (spec 8.2 recommendations, opt-in)", () => {
  test("ping 1/day, get-user-info 100/hour, generate 10/minute, others 60/minute", async () => {
    expect(sessionPolicy("/api/ping")).toMatchObject({ limit: 1, windowMs: 86_400_000 });
    expect(sessionPolicy("/api/get-user-info")).toMatchObject({ limit: 100, windowMs: 3_600_000 });
    expect(sessionPolicy("/api/generator/generate")).toMatchObject({ limit: 10, windowMs: MIN });
    expect(sessionPolicy("/api/get-user-credits")).toMatchObject({ limit: 60, windowMs: MIN });
  });
  test("each policy is named in the RateLimit headers; trailing slashes do not make another endpoint", async () => {
    expect(sessionPolicy("/api/ping")).toEqual({ name: "session-ping", limit: 1, windowMs: 86_400_000 });
    expect(sessionPolicy("/api/get-user-info")).toEqual({ name: "session-user-info", limit: 100, windowMs: 3_600_000 });
    expect(sessionPolicy("/api/generator/generate")).toEqual({ name: "session-generate", limit: 10, windowMs: MIN });
    expect(sessionPolicy("/api/get-user-credits")).toEqual({ name: "session", limit: 60, windowMs: MIN });
    expect(sessionPolicy("/api/ping/").name).toBe("session-ping");
    expect(sessionPolicy("/api/ping//").name).toBe("session-ping");
    expect(sessionPolicy("/api/generator/generate///").name).toBe("session-generate");
  });

  test("session buckets: one per user and endpoint, the same with a trailing slash", async () => {
    expect(sessionBucket("u1", "/api/ping")).toBe(sessionBucket("u1", "/api/ping/"));
    expect(sessionBucket("u1", "/api/ping")).toBe(sessionBucket("u1", "/api/ping//"));
    const all = [
      sessionBucket("u1", "/api/ping"),
      sessionBucket("u2", "/api/ping"),
      sessionBucket("u1", "/api/get-user-info"),
      sessionBucket("u1", "/api/pin"),
    ];
    expect(new Set(all).size).toBe(4);
  });

  test("off by default", async () => {
    expect(config.SESSION_RATE_LIMITS).toBe(false);
  });
});

describe("key buckets and key creation (per user)", () => {
  test("every key of one user shares one bucket; users and key creation have their own", async () => {
    const buckets = [
      userBucket("u1"),
      userBucket("u2"),
      keyCreationBucket("u1"),
      keyCreationBucket("u2"),
      sessionBucket("u1", "/api/ping"),
    ];
    expect(new Set(buckets).size).toBe(5);
    expect(buckets.every((b) => typeof b === "string" && b.includes("u1") !== b.includes("u2"))).toBe(true);
    expect(userBucket("u1")).toBe(userBucket("u1"));
  });

  test("key creation: KEY_CREATE_LIMIT per hour (default 30), named key-create", async () => {
    expect(keyCreationPolicy(config)).toEqual({ name: "key-create", limit: 30, windowMs: 3_600_000 });
    expect(keyCreationPolicy(parseConfig({ KEY_CREATE_LIMIT: "5" }))).toEqual({
      name: "key-create",
      limit: 5,
      windowMs: 3_600_000,
    });
  });

  test("a user at the request limit can still create keys, and another user is not limited", async () => {
    const db = openDatabase(":memory:");
    const now = Date.UTC(2026, 10, 22);
    const p = { name: "t", limit: 2, windowMs: MIN };
    for (let i = 0; i < 2; i++) expect((await take(db, userBucket("u1"), p, now)).allowed).toBe(true);
    expect((await take(db, userBucket("u1"), p, now)).allowed).toBe(false);
    expect((await take(db, userBucket("u2"), p, now)).allowed).toBe(true);
    expect((await take(db, keyCreationBucket("u1"), keyCreationPolicy(config), now)).allowed).toBe(true);
    void db.close();
  });
});
