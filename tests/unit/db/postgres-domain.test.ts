/**
 * The same domain functions on PostgreSQL (docs/decisions/050-async-domain-sync-sqlite.md): the data interface's
 * PostgreSQL runner drives the transaction bodies the SQLite runner drives.
 * Needs PostgreSQL's binaries (scripts/test.ts installs them); skipped, saying
 * so, when they are missing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { type Db, one, openPostgres, run, toDollarParams } from "#db/client";
import { prepared } from "#db/prepared";
import { generations, user } from "#db/schema";
import { authenticateApiKey } from "~/domain/api-keys/authenticate.server";
import { createApiKey, listApiKeys, revokeApiKey } from "~/domain/api-keys/keys.server";
import { KEY_SCOPES } from "~/domain/api-keys/scopes";
import { findOffering } from "~/domain/catalog";
import { checkIn } from "~/domain/credits/checkin.server";
import { debitForGeneration, getCredits, grantCredits } from "~/domain/credits/ledger.server";
import { createGeneration } from "~/domain/generations/create.server";
import { historyPageJson } from "~/domain/generations/history.server";
import { getOwnGeneration, queryGeneration, toHistoryEntry } from "~/domain/generations/views.server";
import { LeaseLimiter, take } from "~/domain/rate-limits/limiter.server";
import { manualClock } from "~/lib/clock";
import { type Postgres, skipWithoutPostgres, startPostgres } from "../../support/postgres";
import { addUserRow } from "../../support/services";

/** A task's links as the views show them (no PUBLIC_URL set in unit tests: relative). */
const linksOf = (id: string) => ({
  get: `/api/generator/query?gen_id=${id}`,
  cancel: `/api/generator/cancel?gen_id=${id}`,
  stream: `/api/generator/stream?gen_id=${id}`,
  web: `/studio/${id}`,
});

test("? parameters become $n, quoted ones stay", () => {
  expect(toDollarParams("SELECT a FROM t WHERE b = ? AND c = '?' AND d = ?")).toBe(
    "SELECT a FROM t WHERE b = $1 AND c = '?' AND d = $2",
  );
});

describe.skipIf(skipWithoutPostgres())("the domain on PostgreSQL", () => {
  let pg: Postgres;
  let db: Db;
  const clock = manualClock();
  const CONFIG = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
  const flux = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!; // 3 credits

  beforeAll(async () => {
    pg = await startPostgres();
    db = await openPostgres(pg.url, { poolMax: 20 });
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await pg?.stop();
  });

  const addUser = () => addUserRow(db, clock.now());

  test("rows read back with the SQLite types: Dates, booleans, numbers", async () => {
    const id = await addUser();
    const row = (await db.one(db.select().from(user)))!;
    expect(row.id).toBe(id);
    expect(row.createdAt).toEqual(new Date(clock.now()));
    expect(row.isAffiliate).toBe(false);
    expect(await db.engine).toBe("postgres");
  });

  test("grants, balance, debit once per gen_id", async () => {
    const u = await addUser();
    await db.exec(grantCredits(db, { userId: u, amount: 10, source: "admin", expiresAt: clock.now() + 1e9 }, clock));
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 10, total_credits: 10 });
    const first = await db.tx((t) => debitForGeneration(t, { genId: "g-1", userId: u, amount: 4 }, clock));
    const again = await db.tx((t) => debitForGeneration(t, { genId: "g-1", userId: u, amount: 4 }, clock));
    expect([first.applied, again.applied]).toEqual([true, false]);
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 6, total_credits: 10 });
  });

  test("20 concurrent check-ins add one credit (unique (user, day))", async () => {
    const u = await addUser();
    const out = await Promise.all(Array.from({ length: 20 }, () => checkIn(db, u, clock)));
    expect(out.filter((r) => r.added)).toHaveLength(1);
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 1, total_credits: 1 });
  });

  test("30 concurrent creates against a balance for 25 accept exactly 25", async () => {
    const u = await addUser();
    await db.exec(grantCredits(db, { userId: u, amount: 75, source: "admin" }, clock));
    const out = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        createGeneration(
          db,
          { userId: u, input: { offering: flux, prompt: `t${i}`, options: {} }, mode: "simulated", config: CONFIG },
          clock,
        ),
      ),
    );
    expect(out.filter((r) => r.status === "fulfilled")).toHaveLength(25);
    const refused = out
      .filter((r): r is PromiseRejectedResult => r.status === "rejected")
      .map((r) => (r.reason as Error).message);
    expect(new Set(refused)).toEqual(new Set(["insufficient credits: need 3, have 0"]));
    // Byte for byte JSON.stringify of toHistoryEntry of drizzle's full rows, newest first (created_at, then id).
    const rows = (await db.many(db.select().from(generations).where(eq(generations.userId, u)))).sort(
      (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1),
    );
    const text = await historyPageJson(db, u, { page: 1, pageSize: 100 });
    expect(text).toBe(JSON.stringify({ generations: rows.map(toHistoryEntry), total: 25, page: 1, page_size: 100 }));
    const page = JSON.parse(text);
    expect(page.total).toBe(25);
    expect((await getOwnGeneration(db, u, page.generations[0]!.gen_id)).status).toBe("pending");
    // Counted (a full page) and read off a partial one, on this engine too; the query's plain statement.
    expect(JSON.parse(await historyPageJson(db, u, { page: 1, pageSize: 10 })).total).toBe(25);
    expect(JSON.parse(await historyPageJson(db, u, { page: 3, pageSize: 10 }))).toMatchObject({
      total: 25,
      generations: { length: 5 },
    });
    expect(await queryGeneration(db, u, page.generations[0]!.gen_id)).toEqual({
      gen_id: page.generations[0]!.gen_id,
      status: "pending",
      created_at: page.generations[0]!.created_at,
      urls: linksOf(page.generations[0]!.gen_id),
    });
  });

  test("a hot statement is built once per pool and runs on each transaction's own connection", async () => {
    const u = await addUser();
    let builds = 0;
    const byId = (t: Parameters<typeof prepared>[0]) =>
      prepared(
        t,
        "test.userName",
        (t) => (
          builds++,
          t
            .select({ name: user.name })
            .from(user)
            .where(eq(user.id, sql.placeholder("id")))
        ),
      );
    const rename = (t: Parameters<typeof prepared>[0]) =>
      prepared(
        t,
        "test.rename",
        (t) => (
          builds++,
          t
            .update(user)
            .set({ name: sql`${sql.placeholder("name")}` })
            .where(eq(user.id, sql.placeholder("id")))
        ),
      );
    expect(await db.one(byId(db), { id: u })).toEqual({ name: "u" });
    // Inside a transaction: its own uncommitted write is what the statement sees, and a rollback undoes the statement's write.
    const seen = await db
      .tx(function* (t) {
        yield* run(rename(t), { id: u, name: "inside" });
        const row = yield* one(byId(t), { id: u });
        throw Object.assign(new Error("roll back"), { row });
      })
      .catch((e) => (e as { row?: unknown }).row);
    expect(seen).toEqual({ name: "inside" });
    expect(await db.one(byId(db), { id: u })).toEqual({ name: "u" });
    await Promise.all(Array.from({ length: 20 }, (_, i) => db.tx((t) => run(rename(t), { id: u, name: `n${i}` }))));
    expect(builds).toBe(2);
  });

  test("API keys: create, authenticate, revoke", async () => {
    const u = await addUser();
    const k = await createApiKey(db, { userId: u, name: "k" }, clock);
    expect(await authenticateApiKey(db, k.key, clock)).toEqual({ keyId: k.key_id, userId: u, scopes: KEY_SCOPES });
    await revokeApiKey(db, { userId: u, keyId: k.key_id }, clock);
    expect((await listApiKeys(db, u, clock))[0]!.status).toBe("revoked");
    // Listed for 30 days after the revocation (docs/decisions/088-revoked-keys-listed-30-days.md), then not.
    const later = manualClock(clock.now() + 30 * 86_400_000);
    expect(await listApiKeys(db, u, later)).toHaveLength(1);
    later.advance(1);
    expect(await listApiKeys(db, u, later)).toEqual([]);
  });

  test("the GCRA limiter's one statement: concurrent takes never pass the limit", async () => {
    const policy = { limit: 10, windowMs: 60_000 };
    const out = await Promise.all(Array.from({ length: 40 }, () => take(db, "user:pg-test", policy, clock.now())));
    expect(out.filter((d) => d.allowed)).toHaveLength(10);
  });

  test("leases: concurrent requests, the give-back when no one wrote since and none when someone did, the fallback to one token", async () => {
    const policy = { limit: 1000, windowMs: 60_000 }; // T = 60 ms
    const t0 = clock.now();
    const tat = async (bucket: string) =>
      Number((await db.raw<{ tat: string }>("SELECT tat FROM rate_limits WHERE bucket = ?").one(bucket))!.tat);
    const a = new LeaseLimiter(db);
    const b = new LeaseLimiter(db);
    const ten = await Promise.all(
      Array.from({ length: 30 }, () => a.take("pg-lease-10", { limit: 10, windowMs: 60_000 }, t0)),
    );
    expect(ten.filter((d) => d.allowed)).toHaveLength(10);
    for (let i = 0; i < 16; i++) await a.take("pg-lease", policy, t0); // leases 1, 2, 4, 8, 16: 15 unused
    expect(await tat("pg-lease")).toBe((t0 + 31 * 60) * 1000);
    await a.take("pg-lease", policy, t0 + 250); // expired: 15 go back, a lease of 8
    expect(await tat("pg-lease")).toBe((t0 + (16 + 8) * 60) * 1000);
    await b.take("pg-lease", policy, t0 + 260); // another process writes the row
    await a.take("pg-lease", policy, t0 + 500); // A's 7 unused stay counted
    expect(await tat("pg-lease")).toBe((t0 + (16 + 8 + 1 + 4) * 60) * 1000);
    await db.raw("UPDATE rate_limits SET tat = ? WHERE bucket = ?").run((t0 + 500 + 59_940) * 1000, "pg-lease"); // one token left
    for (let i = 0; i < 3; i++) await a.take("pg-lease", policy, t0 + 500); // A's lease of 4: 3 left
    expect(await b.take("pg-lease", policy, t0 + 500)).toMatchObject({ allowed: true, remaining: 0 }); // B: k = 2 refused, then 1
    expect((await b.take("pg-lease", policy, t0 + 500)).allowed).toBe(false);
  });
});
