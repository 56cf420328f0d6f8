/**
 * The leased limiter (limiter.server.ts `LeaseLimiter`, bounds in decide.ts):
 * lease sizes, the fallback to one token, lease expiry and give-backs, the
 * local memory of denials, headers, tier changes, concurrent requests in one
 * process. Two limiters on one database file stand for two processes. The
 * cross-process exactness bound is tests/integration/limits/rate-limit-bound.test.ts.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { type Db, openDatabase } from "#db/client";
import { type Policy, rateLimitHeaders } from "~/domain/rate-limits/decide";
import { LeaseLimiter, take } from "~/domain/rate-limits/limiter.server";
import { keyPolicy, keyTier } from "~/domain/rate-limits/policy.server";
import { manualClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { insertUser, makePremium } from "../../support/services";

const MIN = 60_000;
const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const std: Policy = { name: "standard", limit: 100, windowMs: MIN }; // T = 600 ms
const thousand: Policy = { name: "t", limit: 1000, windowMs: MIN }; // T = 60 ms
const fast: Policy = { name: "f", limit: 100_000, windowMs: MIN }; // T = 600 µs

let file: string;
let dbs: Db[];
beforeEach(() => {
  file = `/tmp/atelier-leases-${crypto.randomUUID()}.db`;
  dbs = [];
});
afterEach(async () => {
  for (const db of dbs) await db.close();
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
});
/** A process: its own connection to the shared file and its own limiter. */
function proc(options = {}): { db: Db; l: LeaseLimiter } {
  const db = openDatabase(file);
  dbs.push(db);
  return { db, l: new LeaseLimiter(db, options) };
}
const tatOf = (db: Db, bucket: string) =>
  (db.sqlite!.query("SELECT tat FROM rate_limits WHERE bucket = ?").get(bucket) as { tat: number } | null)?.tat ?? 0;
const us = (ms: number) => ms * 1000;

describe("lease sizes", () => {
  test("k starts at 1 and doubles to 16 while each lease is used up within its lifetime: 100 requests, 10 statements", async () => {
    const { db, l } = proc();
    const sizes: number[] = [];
    let last = 0;
    for (let i = 0; i < 100; i++) {
      const before = l.statements;
      expect((await l.take("b", fast, T0)).allowed).toBe(true);
      if (l.statements > before) {
        const tat = tatOf(db, "b");
        sizes.push(Math.round((tat - (last || us(T0))) / 600));
        last = tat;
      }
    }
    expect(sizes).toEqual([1, 2, 4, 8, 16, 16, 16, 16, 16, 16]);
    expect(l.statements).toBe(10);
  });

  test("a used-up lease needed again after its lifetime: the next is half the size", async () => {
    const { db, l } = proc();
    for (let i = 0; i < 15; i++) await l.take("b", fast, T0); // leases of 1, 2, 4, 8: all used
    const before = tatOf(db, "b");
    await l.take("b", fast, T0 + 250); // the lifetime (250 ms) is over: 8 → 4
    expect(tatOf(db, "b")).toBe(us(T0 + 250) + 4 * 600); // the bucket had drained (15 × 0.6 ms): clamped to now
    expect(before).toBe(us(T0) + 15 * 600);
  });

  test("slow traffic (one request per lifetime or less) takes one token per statement: nothing is wasted", async () => {
    const { db, l } = proc();
    for (let i = 0; i < 20; i++) expect((await l.take("b", std, T0 + i * 300)).allowed).toBe(true);
    // Each request is counted once: 20 × 600 ms over 20 × 300 ms of time.
    expect(tatOf(db, "b")).toBe(us(T0) + 20 * us(600));
    expect(l.statements).toBe(20);
  });

  test("near the limit a lease takes at most a quarter of what fits: the last tokens are single", async () => {
    const { db, l } = proc();
    let last = us(T0);
    const sizes: number[] = [];
    for (let i = 0; i < 100; i++) {
      const before = l.statements;
      expect(await l.take("b", std, T0)).toMatchObject({ allowed: true, remaining: 99 - i });
      if (l.statements > before) {
        sizes.push((tatOf(db, "b") - last) / us(600));
        last = tatOf(db, "b");
      }
    }
    expect(sizes.slice(0, 5)).toEqual([1, 2, 4, 8, 16]);
    expect(sizes.slice(-4)).toEqual([1, 1, 1, 1]);
    expect(sizes.reduce((a, b) => a + b)).toBe(100);
    expect(
      sizes.every((k, i) => k <= Math.max(1, Math.floor((100 - sizes.slice(0, i).reduce((a, b) => a + b, 0)) / 4))),
    ).toBe(true);
  });
});

describe("fallback, expiry and give-backs", () => {
  test("a lease of k > 1 refused (another process took the rest): one token is tried at once, then k = 1", async () => {
    const a = proc();
    for (let i = 0; i < 7; i++) await a.l.take("b", std, T0); // 1 + 2 + 4, all used: A's next lease would be 8
    a.db.sqlite!.query("UPDATE rate_limits SET tat = ? WHERE bucket = 'b'").run(us(T0) + 99 * us(600)); // another process took 92
    const before = a.l.statements;
    expect(await a.l.take("b", std, T0)).toMatchObject({ allowed: true, remaining: 0 });
    expect(a.l.statements - before).toBe(3); // the lease of 8 (refused), the read, the single token
    expect(tatOf(a.db, "b")).toBe(us(T0) + 100 * us(600));
  });

  test("a lease's tokens are not used after its lifetime; the unused ones go back with the next lease", async () => {
    const { db, l } = proc();
    for (let i = 0; i < 16; i++) await l.take("b", thousand, T0); // leases 1, 2, 4, 8 and one of 16 with 15 unused
    expect(tatOf(db, "b")).toBe(us(T0) + 31 * us(60));
    expect((await l.take("b", thousand, T0 + 249)).allowed).toBe(true); // still in the lease: no statement
    expect(tatOf(db, "b")).toBe(us(T0) + 31 * us(60));
    const before = l.statements;
    await l.take("b", thousand, T0 + 250); // expired with 14 unused: given back, and a lease of 8 (halved)
    expect(l.statements - before).toBe(1);
    expect(tatOf(db, "b")).toBe(us(T0) + (17 + 8) * us(60));
  });

  test("one process wastes nothing: bursts of 16 every 10 s at 100/min for 10 minutes leave a burst of 60 whole (as exact GCRA does)", async () => {
    const { l } = proc();
    for (let burst = 0; burst < 60; burst++)
      for (let i = 0; i < 16; i++) expect((await l.take("b", std, T0 + burst * 10_000 + i)).allowed).toBe(true);
    let passed = 0;
    for (let i = 0; i < 60; i++) if ((await l.take("b", std, T0 + 600_000 + i)).allowed) passed++;
    expect(passed).toBe(60); // never giving unused tokens back: 17 (44 with the quarter cap) — the waste had filled the bucket
  });

  test("the unused tokens stay counted when another process wrote the row since (no give-back past another's lease)", async () => {
    const a = proc();
    const b = proc();
    for (let i = 0; i < 16; i++) await a.l.take("b", thousand, T0); // A holds 15 unused
    await b.l.take("b", thousand, T0 + 10); // B's lease of 1 after A's
    await a.l.take("b", thousand, T0 + 250); // A's lease expired: the row moved, so nothing goes back
    expect(tatOf(a.db, "b")).toBe(us(T0) + (31 + 1 + 8) * us(60));
  });

  test("a tier change applies at the next request: the lease taken at the old price is given back, the new policy decides", async () => {
    const db = openDatabase(":memory:");
    dbs.push(db);
    const l = new LeaseLimiter(db);
    const clock = manualClock(T0);
    const config = parseConfig({});
    const u = insertUser(db);
    const policyNow = async () => keyPolicy(config, await keyTier(db, { userId: u.id, isAdmin: false }, clock));
    for (let i = 0; i < 20; i++) await l.take("user:x", await policyNow(), clock.now()); // standard: leases up to 16, 11 unused
    makePremium(db, u.id);
    const d = await l.take("user:x", await policyNow(), clock.now());
    // 20 standard requests' worth of the window (12 s) = 100 premium ones; this one the 101st.
    expect(rateLimitHeaders(await policyNow(), d)).toMatchObject({
      "RateLimit-Policy": '"premium";q=500;w=60',
      "X-RateLimit-Remaining": "399",
    });
    expect(tatOf(db, "user:x")).toBe(us(T0) + 20 * us(600) + us(120)); // the unused standard tokens went back
  });
});

describe("local memory of denials", () => {
  test("a refused bucket is refused without a statement until its Retry-After, then admitted", async () => {
    const { l } = proc();
    for (let i = 0; i < 100; i++) expect((await l.take("b", std, T0)).allowed).toBe(true);
    const statements = l.statements;
    const over = await l.take("b", std, T0);
    expect(over).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 600 });
    for (let i = 0; i < 1000; i++) expect((await l.take("b", std, T0 + (i % 600))).allowed).toBe(false); // an abusive client
    expect(l.statements).toBe(statements);
    expect((await l.take("b", std, T0 + 599)).retryAfterMs).toBe(1);
    expect(await l.take("b", std, T0 + 600)).toMatchObject({ allowed: true, remaining: 0 });
    expect(l.statements).toBe(statements + 1);
  });

  test("another process's denial memory does not outlive the bucket's own state: it asks the database once it may fit", async () => {
    const a = proc();
    const b = proc();
    const ten: Policy = { name: "t", limit: 10, windowMs: MIN };
    for (let i = 0; i < 10; i++) await a.l.take("b", ten, T0);
    expect((await b.l.take("b", ten, T0)).retryAfterMs).toBe(6000); // B read the tat
    expect((await b.l.take("b", ten, T0 + 5999)).allowed).toBe(false);
    expect((await a.l.take("b", ten, T0 + 6000)).allowed).toBe(true); // A takes the slot
    const before = b.l.statements;
    expect((await b.l.take("b", ten, T0 + 6000)).allowed).toBe(false); // B asks: refused
    expect(b.l.statements - before).toBe(2);
  });
});

describe("headers and concurrency", () => {
  test("one process, the bucket never empty: every decision and header equals the one-statement limiter's", async () => {
    const { l } = proc();
    const exact = openDatabase(":memory:");
    dbs.push(exact);
    // 150 requests 100 ms apart (a lease lives 250 ms: expiries and give-backs on the way), then 30 at one instant.
    const times = [
      ...Array.from({ length: 150 }, (_, i) => T0 + i * 100),
      ...Array.from({ length: 30 }, () => T0 + 15_000),
    ];
    for (const t of times) {
      const got = await l.take("b", std, t);
      const want = await take(exact, "b", std, t);
      expect({ t, headers: rateLimitHeaders(std, got) }).toEqual({ t, headers: rateLimitHeaders(std, want) });
    }
  });

  test("concurrent requests for one bucket in one process wait for the lease under way: exactly the limit passes, none wasted", async () => {
    const { l } = proc();
    for (let i = 0; i < 7; i++) await l.take("b", std, T0); // leases of 1, 2, 4: the next is 8
    const out = await Promise.all(Array.from({ length: 150 }, () => l.take("b", std, T0)));
    expect(out.filter((d) => d.allowed)).toHaveLength(93);
    expect(out.filter((d) => d.allowed).map((d) => d.remaining)).toEqual(Array.from({ length: 93 }, (_, i) => 92 - i));
  });

  test("idle buckets are forgotten past maxBuckets; a forgotten bucket's state comes back from the database", async () => {
    const { l } = proc({ maxBuckets: 100 });
    const one = { name: "one", limit: 1, windowMs: 1000 };
    for (let i = 0; i < 1000; i++) await l.take(`u${i}`, one, T0 + i * 10); // each drains after 1 s
    expect((l as unknown as { buckets: Map<string, unknown> }).buckets.size).toBeLessThanOrEqual(100);
    expect((await l.take("u999", one, T0 + 9990)).allowed).toBe(false); // still remembered or read back: refused
    expect((await l.take("u0", one, T0 + 9990)).allowed).toBe(true);
  });
});
