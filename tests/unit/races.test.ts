/**
 * Races that really race: worker threads, each with its own connection to one
 * database file, call the real domain functions at the same instant (a shared
 * gate). Each invariant is checked over several rounds, so a decision taken
 * outside its transaction (check-then-insert) is caught, not just possible.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Db } from "#db/client";
import { creditDebits, generations, user } from "#db/schema";
import { eq, sql } from "drizzle-orm";
import { findOffering } from "~/domain/catalog";
import { getCredits, grantCredits, reservedCredits } from "~/domain/credits/ledger.server";
import { createGeneration } from "~/domain/generations/generations.server";
import type { RaceJob, RaceResult } from "./support/race-worker";

const NOW = Date.UTC(2026, 10, 22, 12);
const clock = { now: () => NOW };
const dir = mkdtempSync(join(tmpdir(), "atelier-races-"));
afterAll(async () => rmSync(dir, { recursive: true, force: true }));

async function addUser(db: Db): Promise<string> {
  const id = randomUUID();
  await db.insert(user).values({ id, name: "racer", email: `${id}@example.test`, createdAt: new Date(NOW), updatedAt: new Date(NOW), inviteCode: id.slice(0, 8) });
  return id;
}

async function race(op: RaceJob["op"], path: string, userId: string, workers: number, attempts: number): Promise<RaceResult[]> {
  const gate = new SharedArrayBuffer(4);
  const threads = Array.from({ length: workers }, () => new Worker(new URL("./support/race-worker.ts", import.meta.url).href));
  const results = threads.map(
    (w) =>
      new Promise<RaceResult>((resolve, reject) => {
        w.onerror = (e) => reject(e);
        w.addEventListener("message", (m) => m.data.done && resolve(m.data));
      }),
  );
  const ready = threads.map((w) => new Promise<void>((r) => w.addEventListener("message", (m) => m.data.ready && r())));
  threads.forEach((w, i) => w.postMessage({ op, path, userId, attempts, now: NOW, owner: `worker-${i}`, gate } satisfies RaceJob));
  await Promise.all(ready);
  const flag = new Int32Array(gate);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
  const out = await Promise.all(results);
  threads.forEach((w) => w.terminate());
  return out;
}

const sum = (rs: RaceResult[], k: "ok" | "refused") => rs.reduce((a, r) => a + r[k], 0);
const ROUNDS = 4;

describe("races between threads calling the real domain functions", () => {
  test(`createGeneration: ${ROUNDS} rounds of 4 threads × 12 creates against a balance for 10 accept exactly 10`, async () => {
    const path = join(dir, "create.db");
    const db = openDatabase(path);
    for (let round = 0; round < ROUNDS; round++) {
      const u = await addUser(db);
      await db.exec(grantCredits(db, { userId: u, amount: 30, source: "admin" }, clock)); // flux-schnell costs 3 (spec 8.1)
      const out = await race("create", path, u, 4, 12);
      expect({ round, accepted: sum(out, "ok"), refused: sum(out, "refused") }).toEqual({ round, accepted: 10, refused: 38 });
      expect(new Set(out.flatMap((r) => r.messages))).toEqual(new Set(["insufficient credits: need 3, have 0"]));
      expect(await db.exec(reservedCredits(db, u))).toBe(30);
    }
    void db.close();
  }, 120_000);

  test(`checkIn: ${ROUNDS} rounds of 8 threads × 3 check-ins add exactly one credit`, async () => {
    const path = join(dir, "checkin.db");
    const db = openDatabase(path);
    for (let round = 0; round < ROUNDS; round++) {
      const u = await addUser(db);
      const out = await race("checkin", path, u, 8, 3);
      expect({ round, added: sum(out, "ok"), already: sum(out, "refused") }).toEqual({ round, added: 1, already: 23 });
      expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 1, total_credits: 1 });
    }
    void db.close();
  }, 120_000);

  test("claimDue + completeGeneration: 4 threads drain 60 tasks; each is claimed once, completed once, debited once", async () => {
    const path = join(dir, "claims.db");
    const db = openDatabase(path);
    const u = await addUser(db);
    await db.exec(grantCredits(db, { userId: u, amount: 200, source: "admin" }, clock));
    const offering = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!;
    const config = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
    for (let i = 0; i < 60; i++) await createGeneration(db, { userId: u, input: { offering, prompt: `t${i}`, options: {} }, mode: "simulated", config }, clock);
    const out = await race("claim-complete", path, u, 4, 0);
    const claimed = out.flatMap((r) => r.claimed);
    expect(claimed.length).toBe(60);
    expect(new Set(claimed).size).toBe(60);
    expect(sum(out, "ok")).toBe(60);
    expect(sum(out, "refused")).toBe(0);
    const [{ n }] = await db.select({ n: sql<number>`count(*)` }).from(creditDebits).where(eq(creditDebits.userId, u));
    expect(Number(n)).toBe(60);
    const [{ done }] = await db.select({ done: sql<number>`count(*)` }).from(generations).where(eq(generations.status, "completed"));
    expect(Number(done)).toBe(60);
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 20, total_credits: 200 });
    void db.close();
  }, 120_000);
});
