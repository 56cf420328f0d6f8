/**
 * Idempotency-Key on generate (docs/design.md §10), at the domain: createOrReplay with
 * the same key replays the first task without reserving again; another body is
 * IDEMPOTENCY_MISMATCH; a key is kept exactly 24 h; keys are per user.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { type Db, openDatabase } from "#db/client";
import { generations, idempotencyKeys } from "#db/schema";
import { findOffering } from "~/domain/catalog";
import { grantCredits, reservedCredits } from "~/domain/credits/ledger.server";
import { createOrReplay } from "~/domain/generations/create.server";
import { manualClock } from "~/lib/clock";
import { createUser } from "../../support/fixtures";

const DAY = 24 * 60 * 60 * 1000;
const offering = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!; // 3 credits (spec 8.1)
const config = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
let db: Db;
let clock: ReturnType<typeof manualClock>;

async function addUser(credits = 30): Promise<string> {
  const id = randomUUID();
  await createUser(db, { id, at: clock.now() });
  if (credits) await db.exec(grantCredits(db, { userId: id, amount: credits, source: "admin" }, clock));
  return id;
}

const create = (userId: string, key?: string, requestHash = "hash-a", prompt = "a fox") =>
  createOrReplay(
    db,
    {
      userId,
      input: { offering, prompt, options: {} },
      mode: "simulated",
      config,
      idempotency: key ? { key, requestHash } : undefined,
    },
    clock,
  );

const taskCount = async (userId: string) =>
  (await db.many(db.select().from(generations).where(eq(generations.userId, userId)))).length;

beforeEach(() => {
  db = openDatabase(":memory:");
  clock = manualClock();
});

describe("createOrReplay with an Idempotency-Key", () => {
  test("the same key and body replays the first task: same row, replayed, nothing reserved again", async () => {
    const u = await addUser();
    const first = await create(u, "k1");
    expect(first.replayed).toBe(false);
    clock.advance(1000);
    const again = await create(u, "k1");
    expect(again.replayed).toBe(true);
    expect(again.row.id).toBe(first.row.id);
    expect(await taskCount(u)).toBe(1);
    expect(await db.exec(reservedCredits(db, u))).toBe(3);
  });

  test("the same key with another body is IDEMPOTENCY_MISMATCH and creates nothing", async () => {
    const u = await addUser();
    await create(u, "k1", "hash-a");
    await expect(create(u, "k1", "hash-b", "another prompt")).rejects.toThrow(
      "invalid params: Idempotency-Key reused with a different request",
    );
    expect(await taskCount(u)).toBe(1);
  });

  test("a key is remembered for 24 h: one millisecond before it replays, at 24 h it is forgotten and a new task is made", async () => {
    const u = await addUser();
    const first = await create(u, "k1");
    clock.advance(DAY - 1);
    expect((await create(u, "k1")).row.id).toBe(first.row.id);
    clock.advance(1);
    const fresh = await create(u, "k1");
    expect(fresh.replayed).toBe(false);
    expect(fresh.row.id).not.toBe(first.row.id);
    expect(await taskCount(u)).toBe(2);
    // The forgotten entry was replaced by the new one.
    const keys = await db.many(db.select().from(idempotencyKeys).where(eq(idempotencyKeys.userId, u)));
    expect(keys.map((k) => k.genId)).toEqual([fresh.row.id]);
  });

  test("keys are per user: another user's same key makes their own task", async () => {
    const a = await addUser();
    const b = await addUser();
    const ta = await create(a, "shared");
    const tb = await create(b, "shared");
    expect(tb.replayed).toBe(false);
    expect(tb.row.id).not.toBe(ta.row.id);
    expect(tb.row.userId).toBe(b);
  });

  test("without a key every call is a new task; a replay is answered even when the balance is now too low", async () => {
    const u = await addUser(6);
    await create(u);
    await create(u, "k2");
    expect(await taskCount(u)).toBe(2);
    await expect(create(u)).rejects.toThrow("insufficient credits: need 3, have 0");
    expect((await create(u, "k2")).replayed).toBe(true);
  });

  test("a refused create stores no key: retrying after the balance is topped up creates the task", async () => {
    const u = await addUser(0);
    await expect(create(u, "k3")).rejects.toThrow("insufficient credits: need 3, have 0");
    await db.exec(grantCredits(db, { userId: u, amount: 3, source: "admin" }, clock));
    expect((await create(u, "k3")).replayed).toBe(false);
  });
});
