/**
 * Races that really race: worker threads, each with its own connection to one
 * database, call the real domain functions at the same instant (a shared
 * gate). Each invariant is checked over several rounds, so a decision taken
 * outside its transaction (check-then-insert) is caught, not just possible.
 * The same races run on SQLite (one file) and on a throwaway PostgreSQL
 * cluster (every worker opens its own pool, every attempt its own
 * connection: dozens of transactions at once).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { type Db, openDatabase, openPostgres } from "#db/client";
import { creditDebits, generations } from "#db/schema";
import { findOffering } from "~/domain/catalog";
import { getCredits, grantCredits, reservedCredits } from "~/domain/credits/ledger.server";
import { createGeneration } from "~/domain/generations/create.server";
import { createUser } from "../../support/fixtures";
import { type Postgres, skipWithoutPostgres, startPostgres } from "../../support/postgres";
import type { RaceJob, RaceResult, WorkerMessage } from "../support/race-worker";

const NOW = Date.UTC(2026, 10, 22, 12);
const clock = { now: () => NOW };

async function addUser(db: Db): Promise<string> {
  const id = randomUUID();
  await createUser(db, { id, at: NOW, name: "racer" });
  return id;
}

/** Worker threads that each hold their own connection (SQLite) or pool (PostgreSQL) to one database, raced round after round. */
async function crew(path: string, workers: number, poolMax: number) {
  const threads = Array.from(
    { length: workers },
    () => new Worker(new URL("../support/race-worker.ts", import.meta.url).href),
  );
  // A worker that throws (an unexpected error from the domain) fails the race at once.
  const failed = Promise.race(
    threads.map((w) => new Promise<never>((_, reject) => (w.onerror = (e) => reject(new Error(e.message))))),
  );
  failed.catch(() => {});
  const reply = (w: Worker, key: "opened" | "ready" | "done" | "closed") =>
    new Promise<any>((resolve) => {
      const on = (m: MessageEvent) => {
        if (!m.data[key]) return;
        w.removeEventListener("message", on);
        resolve(m.data);
      };
      w.addEventListener("message", on);
    });
  const all = <T>(ps: Promise<T>[]) => Promise.race([Promise.all(ps), failed]);
  const opened = threads.map((w) => reply(w, "opened"));
  threads.forEach((w) => w.postMessage({ kind: "open", path, poolMax } satisfies WorkerMessage));
  await all(opened);
  return {
    /** Every worker runs `attempts` of `op` for `userId`, all released at one instant. */
    async race(op: RaceJob["op"], userId: string, attempts: number): Promise<RaceResult[]> {
      const gate = new SharedArrayBuffer(4);
      const ready = threads.map((w) => reply(w, "ready"));
      const results = threads.map((w) => reply(w, "done") as Promise<RaceResult>);
      threads.forEach((w, i) =>
        w.postMessage({
          kind: "race",
          op,
          userId,
          attempts,
          now: NOW,
          owner: `worker-${i}`,
          gate,
        } satisfies WorkerMessage),
      );
      await all(ready);
      const flag = new Int32Array(gate);
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      return all(results);
    },
    async stop() {
      const closed = threads.map((w) => reply(w, "closed"));
      threads.forEach((w) => w.postMessage({ kind: "close" } satisfies WorkerMessage));
      await all(closed);
      threads.forEach((w) => w.terminate());
    },
  };
}

const sum = (rs: RaceResult[], k: "ok" | "refused") => rs.reduce((a, r) => a + r[k], 0);
/** 4 rounds; RACE_ROUNDS=1 is the quick mode `bun run mutate` uses (one round still fails on a check outside the transaction). */
const ALL_ROUNDS = Number(process.env.RACE_ROUNDS ?? 4);

/** A fresh database for one test: its path or URL (what the workers open) and the test's own connection. */
type Open = (name: string) => Promise<{ path: string; db: Db }>;

function races(engine: "sqlite" | "postgres", open: Open) {
  // On PostgreSQL every round is already 24–48 transactions at once (a check outside the transaction fails round 0).
  const ROUNDS = engine === "postgres" ? Math.min(2, ALL_ROUNDS) : ALL_ROUNDS;
  test(`createGeneration: ${ROUNDS} round${ROUNDS === 1 ? "" : "s"} of 4 threads × 12 creates against a balance for 10 accept exactly 10`, async () => {
    const { path, db } = await open("create");
    const threads = await crew(path, 4, 12);
    for (let round = 0; round < ROUNDS; round++) {
      const u = await addUser(db);
      await db.exec(grantCredits(db, { userId: u, amount: 30, source: "admin" }, clock)); // flux-schnell costs 3 (spec 8.1)
      const out = await threads.race("create", u, 12);
      expect({ round, accepted: sum(out, "ok"), refused: sum(out, "refused") }).toEqual({
        round,
        accepted: 10,
        refused: 38,
      });
      expect(new Set(out.flatMap((r) => r.messages))).toEqual(new Set(["insufficient credits: need 3, have 0"]));
      expect(await db.exec(reservedCredits(db, u))).toBe(30);
    }
    await threads.stop();
    await db.close();
  }, 120_000);

  test(`checkIn: ${ROUNDS} round${ROUNDS === 1 ? "" : "s"} of 8 threads × 3 check-ins add exactly one credit`, async () => {
    const { path, db } = await open("checkin");
    const threads = await crew(path, 8, 3);
    for (let round = 0; round < ROUNDS; round++) {
      const u = await addUser(db);
      const out = await threads.race("checkin", u, 3);
      expect({ round, added: sum(out, "ok"), already: sum(out, "refused") }).toEqual({ round, added: 1, already: 23 });
      expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 1, total_credits: 1 });
    }
    await threads.stop();
    await db.close();
  }, 120_000);

  test("claimDue + completeGeneration: 4 threads drain 60 tasks; each is claimed once, completed once, debited once", async () => {
    const { path, db } = await open("claims");
    const u = await addUser(db);
    await db.exec(grantCredits(db, { userId: u, amount: 200, source: "admin" }, clock));
    const offering = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!;
    const config = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        createGeneration(
          db,
          { userId: u, input: { offering, prompt: `t${i}`, options: {} }, mode: "simulated", config },
          clock,
        ),
      ),
    );
    const threads = await crew(path, 4, 2);
    const out = await threads.race("claim-complete", u, 0);
    await threads.stop();
    const claimed = out.flatMap((r) => r.claimed);
    expect(claimed.length).toBe(60);
    expect(new Set(claimed).size).toBe(60);
    expect(sum(out, "ok")).toBe(60);
    expect(sum(out, "refused")).toBe(0);
    const count = async (where: ReturnType<typeof eq>, table: typeof creditDebits | typeof generations) =>
      Number((await db.one(db.select({ n: sql<number>`count(*)` }).from(table).where(where)))!.n);
    expect(await count(eq(creditDebits.userId, u), creditDebits)).toBe(60);
    expect(await count(eq(generations.status, "completed"), generations)).toBe(60);
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 20, total_credits: 200 });
    await db.close();
  }, 120_000);
}

describe("races between threads calling the real domain functions: SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "atelier-races-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  races("sqlite", async (name) => {
    const path = join(dir, `${name}.db`);
    return { path, db: openDatabase(path) };
  });
});

/** RACE_ENGINES=sqlite leaves PostgreSQL out (`bun run mutate` does: a cluster per mutant would triple its time). */
const onPostgres = (process.env.RACE_ENGINES ?? "sqlite,postgres").split(",").includes("postgres");

describe.skipIf(skipWithoutPostgres() || !onPostgres)(
  "races between threads calling the real domain functions: PostgreSQL (skipped without its binaries or with RACE_ENGINES=sqlite)",
  () => {
    let pg: Postgres;
    beforeAll(async () => {
      pg = await startPostgres();
    }, 60_000);
    afterAll(async () => pg?.stop());
    races("postgres", async (name) => {
      const path = await pg.createDatabase(name);
      return { path, db: await openPostgres(path, { poolMax: 4 }) };
    });
  },
);
