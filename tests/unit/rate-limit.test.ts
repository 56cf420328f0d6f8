import { beforeEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { openDatabase, type Db } from "#db/client";
import { decide, rateLimitHeaders } from "~/domain/rate-limits/decide";
import { createLimiter, readWindow, sweepHits, tryRecordHit } from "~/domain/rate-limits/limiter.server";
import { keyPolicy, keyTier, sessionPolicy } from "~/domain/rate-limits/policy.server";
import { manualClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { insertUser, makePremium } from "../support/services";

const config = parseConfig({});
const MIN = 60_000;

describe("decide (pure)", () => {
  const policy = { limit: 3, windowMs: MIN };
  test("room left: allowed, remaining after this request, reset when the oldest counted hit leaves", () => {
    expect(decide({ count: 0, oldest: null, pivot: null }, policy, 1000)).toEqual({
      allowed: true, limit: 3, remaining: 2, resetMs: MIN, retryAfterMs: null, now: 1000,
    });
    expect(decide({ count: 2, oldest: 500, pivot: null }, policy, 1000)).toMatchObject({ allowed: true, remaining: 0, resetMs: MIN - 500 });
  });
  test("full: denied until the pivot hit leaves the window", () => {
    expect(decide({ count: 3, oldest: 400, pivot: 400 }, policy, 1000)).toEqual({
      allowed: false, limit: 3, remaining: 0, resetMs: MIN - 600, retryAfterMs: MIN - 600, now: 1000,
    });
    // Over the limit (a tier just went down): wait for the (count-limit+1)-th oldest.
    expect(decide({ count: 5, oldest: 100, pivot: 900 }, policy, 1000).retryAfterMs).toBe(MIN - 100);
  });
  test("headers: IETF draft RateLimit-Policy / RateLimit and X-RateLimit-*; Retry-After only when denied", () => {
    const p = { name: "standard", limit: 100, windowMs: MIN };
    const now = Date.parse("2026-11-22T10:00:00.000Z");
    const ok = rateLimitHeaders(p, decide({ count: 10, oldest: now - 15_500, pivot: null }, p, now));
    expect(ok).toEqual({
      "RateLimit-Policy": '"standard";q=100;w=60',
      RateLimit: '"standard";r=89;t=45',
      "X-RateLimit-Limit": "100",
      "X-RateLimit-Remaining": "89",
      "X-RateLimit-Reset": String(Math.ceil((now + 44_500) / 1000)),
    });
    const no = rateLimitHeaders(p, decide({ count: 100, oldest: now - 59_000, pivot: now - 59_000 }, p, now));
    expect(no["Retry-After"]).toBe("1");
    expect(no.RateLimit).toBe('"standard";r=0;t=1');
  });
});

describe("limiter on SQLite with an injected clock", () => {
  let db: Db;
  let clock: ReturnType<typeof manualClock>;
  beforeEach(() => {
    db = openDatabase(":memory:");
    clock = manualClock();
  });

  const std = { name: "standard", limit: 100, windowMs: MIN };

  test("100 pass, the 101st is denied, with retry after the oldest leaves", () => {
    const l = createLimiter(db, clock, { maxWindowMs: MIN });
    for (let i = 0; i < 100; i++) {
      const d = l.check("key:a", std);
      expect(d.allowed).toBe(true);
      expect(d.remaining).toBe(99 - i);
      clock.advance(100); // 100 requests over 10 s
    }
    const denied = l.check("key:a", std);
    expect(denied).toMatchObject({ allowed: false, remaining: 0 });
    expect(denied.retryAfterMs).toBe(MIN - 10_000);
    // Another key has its own budget.
    expect(l.check("key:b", std).allowed).toBe(true);
  });

  test("the window rolls: requests pass again as the oldest ones leave it, one by one", () => {
    const l = createLimiter(db, clock, { maxWindowMs: MIN });
    const t0 = clock.now();
    for (let i = 0; i < 100; i++) {
      expect(l.check("key:a", std).allowed).toBe(true);
      clock.advance(100);
    }
    clock.set(t0 + MIN - 1); // first hit still inside
    expect(l.check("key:a", std).allowed).toBe(false);
    clock.set(t0 + MIN); // first hit (at t0) has left: exactly one slot
    expect(l.check("key:a", std)).toMatchObject({ allowed: true, remaining: 0 });
    expect(l.check("key:a", std).allowed).toBe(false);
    clock.set(t0 + 2 * MIN + 10_000); // everything has left
    for (let i = 0; i < 100; i++) expect(l.check("key:a", std).allowed).toBe(true);
    expect(l.check("key:a", std).allowed).toBe(false);
  });

  test("denied requests are not counted (a client that keeps knocking gets in when the window rolls)", () => {
    const l = createLimiter(db, clock, { maxWindowMs: MIN });
    const p = { name: "t", limit: 2, windowMs: MIN };
    l.check("b", p);
    l.check("b", p);
    for (let i = 0; i < 50; i++) expect(l.check("b", p).allowed).toBe(false);
    expect(readWindow(db, "b", p, clock.now()).count).toBe(2);
    clock.advance(MIN);
    expect(l.check("b", p).allowed).toBe(true);
  });

  test("premium 500 and admin 1000 (config defaults), tier read from the database each time", () => {
    const u = insertUser(db);
    expect(keyTier(db, { userId: u.id, isAdmin: false }, clock)).toBe("standard");
    makePremium(db, u.id);
    expect(keyTier(db, { userId: u.id, isAdmin: false }, clock)).toBe("premium");
    expect(keyTier(db, { userId: u.id, isAdmin: true }, clock)).toBe("admin");
    const l = createLimiter(db, clock, { maxWindowMs: MIN });
    for (const [tier, limit] of [["premium", 500], ["admin", 1000]] as const) {
      const p = keyPolicy(config, tier);
      expect(p).toEqual({ name: tier, limit, windowMs: MIN });
      for (let i = 0; i < limit; i++) expect(l.check(`key:${tier}`, p).allowed).toBe(true);
      expect(l.check(`key:${tier}`, p).allowed).toBe(false);
    }
  });

  test("a standard key at its limit gets the premium budget as soon as the owner becomes premium", () => {
    const u = insertUser(db);
    const l = createLimiter(db, clock, { maxWindowMs: MIN });
    const policyNow = () => keyPolicy(config, keyTier(db, { userId: u.id, isAdmin: false }, clock));
    for (let i = 0; i < 100; i++) expect(l.check("key:k", policyNow()).allowed).toBe(true);
    expect(l.check("key:k", policyNow()).allowed).toBe(false);
    makePremium(db, u.id);
    expect(l.check("key:k", policyNow())).toMatchObject({ allowed: true, limit: 500, remaining: 399 });
  });

  test("configured limits and window are used", () => {
    const c = parseConfig({ RATE_LIMIT_STANDARD: "7", RATE_LIMIT_PREMIUM: "8", RATE_LIMIT_ADMIN: "9", RATE_LIMIT_WINDOW_MS: "2000" });
    expect(keyPolicy(c, "standard")).toEqual({ name: "standard", limit: 7, windowMs: 2000 });
    expect(keyPolicy(c, "premium").limit).toBe(8);
    expect(keyPolicy(c, "admin").limit).toBe(9);
  });

  test("the guarded insert never exceeds the limit, whatever the caller decided", () => {
    const p = { name: "t", limit: 3, windowMs: MIN };
    const results = Array.from({ length: 10 }, () => tryRecordHit(db, "g", p, clock.now()));
    expect(results.filter(Boolean)).toHaveLength(3);
  });

  test("two limiters (two processes) on one database file share one count", () => {
    const file = `/tmp/atelier-rl-${crypto.randomUUID()}.db`;
    const a = openDatabase(file);
    const b = openDatabase(file);
    const la = createLimiter(a, clock, { maxWindowMs: MIN });
    const lb = createLimiter(b, clock, { maxWindowMs: MIN });
    const p = { name: "t", limit: 10, windowMs: MIN };
    let allowed = 0;
    for (let i = 0; i < 20; i++) if ((i % 2 ? la : lb).check("shared", p).allowed) allowed++;
    expect(allowed).toBe(10);
    a.$client.close();
    b.$client.close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  });

  test("the sweep deletes only hits older than the cutoff, and the limiter sweeps as time passes", () => {
    const p = { name: "t", limit: 1000, windowMs: MIN };
    for (let i = 0; i < 50; i++) {
      tryRecordHit(db, `b${i % 5}`, p, clock.now());
      clock.advance(1000);
    }
    const total = () => (db.$client.query("SELECT count(*) AS n FROM rate_limit_hits").get() as { n: number }).n;
    expect(total()).toBe(50);
    expect(sweepHits(db, clock.now() - 20_500)).toBe(30);
    expect(total()).toBe(20);
    expect(sweepHits(db, clock.now() + 1)).toBe(20);
    const l = createLimiter(db, clock, { maxWindowMs: MIN });
    l.check("x", p);
    clock.advance(MIN + 1001);
    l.check("y", p);
    expect(db.$client.query("SELECT bucket FROM rate_limit_hits").all()).toEqual([{ bucket: "y" }]);
  });
});

describe("session limits (spec 8.2 recommendations, opt-in)", () => {
  test("ping 1/day, get-user-info 100/hour, generate 10/minute, others 60/minute", () => {
    expect(sessionPolicy("/api/ping")).toMatchObject({ limit: 1, windowMs: 86_400_000 });
    expect(sessionPolicy("/api/get-user-info")).toMatchObject({ limit: 100, windowMs: 3_600_000 });
    expect(sessionPolicy("/api/generator/generate")).toMatchObject({ limit: 10, windowMs: MIN });
    expect(sessionPolicy("/api/get-user-credits")).toMatchObject({ limit: 60, windowMs: MIN });
  });
  test("off by default", () => {
    expect(config.SESSION_RATE_LIMITS).toBe(false);
  });
});

