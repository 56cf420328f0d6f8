import { beforeEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { openDatabase, type Db } from "#db/client";
import { rateLimitHeaders } from "~/domain/rate-limits/decide";
import { take } from "~/domain/rate-limits/limiter.server";
import { keyPolicy, keyTier, sessionPolicy } from "~/domain/rate-limits/policy.server";
import { manualClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { insertUser, makePremium } from "../support/services";

const config = parseConfig({});
const MIN = 60_000;

describe("limiter (GCRA, one row per bucket) on SQLite with an injected clock", () => {
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
    for (let i = 0; i < 100; i++) expect((await check("user:a"))).toMatchObject({ allowed: true, remaining: 99 - i });
    const over = await check("user:a");
    expect(over).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 600 });
    clock.set(t0 + 599);
    expect((await check("user:a")).allowed).toBe(false);
    clock.set(t0 + 600);
    expect((await check("user:a"))).toMatchObject({ allowed: true, remaining: 0 });
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
    for (let i = 0; i < 10; i++) (await check("h"));
    clock.advance(500);
    const ok = (await check("h")); // 11 × 600 ms in use, 500 ms drained: 6,100 ms of the window
    expect(rateLimitHeaders(std, ok)).toEqual({
      "RateLimit-Policy": '"standard";q=100;w=60',
      RateLimit: '"standard";r=89;t=7',
      "X-RateLimit-Limit": "100",
      "X-RateLimit-Remaining": "89",
      "X-RateLimit-Reset": String(Math.ceil((now + 500 + 6_100) / 1000)),
    });
    for (let i = 0; i < 89; i++) (await check("h"));
    const no = rateLimitHeaders(std, (await check("h")));
    expect(no["Retry-After"]).toBe("1");
    expect(no.RateLimit).toBe('"standard";r=0;t=1');
    expect(no["X-RateLimit-Remaining"]).toBe("0");
  });

  test("premium 500 and admin 1000 (config defaults), tier read from the database each time", async () => {
    const u = insertUser(db);
    expect((await keyTier(db, { userId: u.id, isAdmin: false }, clock))).toBe("standard");
    makePremium(db, u.id);
    expect((await keyTier(db, { userId: u.id, isAdmin: false }, clock))).toBe("premium");
    expect((await keyTier(db, { userId: u.id, isAdmin: true }, clock))).toBe("admin");
    for (const [tier, limit] of [["premium", 500], ["admin", 1000]] as const) {
      const p = keyPolicy(config, tier);
      expect(p).toEqual({ name: tier, limit, windowMs: MIN });
      for (let i = 0; i < limit; i++) expect((await check(`user:${tier}`, p)).allowed).toBe(true);
      expect((await check(`user:${tier}`, p)).allowed).toBe(false);
    }
  });

  test("a tier change keeps the fraction of the window used: a standard user at the limit becoming premium gets 400 more", async () => {
    const u = insertUser(db);
    const policyNow = async () => keyPolicy(config, await keyTier(db, { userId: u.id, isAdmin: false }, clock));
    for (let i = 0; i < 100; i++) expect((await check("user:k", (await policyNow()))).allowed).toBe(true);
    expect((await check("user:k", (await policyNow()))).allowed).toBe(false);
    makePremium(db, u.id);
    // 100 × 600 ms = the whole 60 s window in use: premium (120 ms per request) is full too.
    expect((await check("user:k", (await policyNow())))).toMatchObject({ allowed: false, limit: 500 });
    clock.advance(12_000); // 12 s drained = 100 premium requests (standard: 20)
    let n = 0;
    while ((await check("user:k", (await policyNow()))).allowed) n++;
    expect(n).toBe(100);
  });

  test("configured limits and window are used", async () => {
    const c = parseConfig({ RATE_LIMIT_STANDARD: "7", RATE_LIMIT_PREMIUM: "8", RATE_LIMIT_ADMIN: "9", RATE_LIMIT_WINDOW_MS: "2000" });
    expect(keyPolicy(c, "standard")).toEqual({ name: "standard", limit: 7, windowMs: 2000 });
    expect(keyPolicy(c, "premium").limit).toBe(8);
    expect(keyPolicy(c, "admin").limit).toBe(9);
    // A limit that does not divide the window: the whole burst still fits, and no more.
    const p = keyPolicy(c, "standard");
    for (let i = 0; i < 7; i++) expect((await check("odd", p))).toMatchObject({ allowed: true, remaining: 6 - i });
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
  test("off by default", async () => {
    expect(config.SESSION_RATE_LIMITS).toBe(false);
  });
});
