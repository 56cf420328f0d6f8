import { beforeEach, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { type Db, openDatabase } from "#db/client";
import { creditAllocations, creditDebits, creditGrants, generations } from "#db/schema";
import { checkedInToday, checkIn } from "~/domain/credits/checkin.server";
import {
  assertCanReserve,
  availableCredits,
  balanceOf,
  clawBackGrant,
  debitForGeneration,
  getCredits,
  getCreditsMany,
  grantCredits,
  listDebits,
  listGrants,
  reservedCredits,
  voidDebit,
} from "~/domain/credits/ledger.server";
import { DAY_MS, manualClock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { createUserSync } from "../../support/fixtures";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const HOUR = 3_600_000;

let db: Db;
let clock: ReturnType<typeof manualClock>;

function addUser(d: Db = db): string {
  const id = randomUUID();
  createUserSync(d, { id, at: T0 });
  return id;
}

function addGeneration(userId: string, cost: number, status = "pending", d: Db = db): string {
  const id = randomUUID();
  d.insert(generations)
    .values({
      id,
      userId,
      aiType: "image",
      provider: "openai",
      model: "dall-e-3",
      prompt: "a fox",
      status,
      creditsCost: cost,
      deadlineAt: clock.now() + 600_000,
      createdAt: new Date(clock.now()),
    })
    .run();
  return id;
}

const grant = (
  userId: string,
  amount: number,
  expiresAt: number | null,
  source: "signup" | "checkin" | "admin" | "order" = "admin",
) => db.exec(grantCredits(db, { userId, amount, source, expiresAt }, clock));

const debit = (userId: string, amount: number, genId: string = randomUUID()) =>
  db.tx((tx) => debitForGeneration(tx, { genId, userId, amount }, clock));

const remainingOf = (id: string) => db.select().from(creditGrants).where(eq(creditGrants.id, id)).get()!.remaining;

beforeEach(async () => {
  db = openDatabase(":memory:");
  clock = manualClock(T0);
});

describe("grants and balances (docs/design.md §3)", () => {
  test("left = Σ remaining of unexpired grants; total = Σ amount of every grant", async () => {
    const u = addUser();
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 0, total_credits: 0 });
    await grant(u, 10, T0 + 365 * DAY_MS, "signup");
    await grant(u, 5, null);
    await grant(u, 3, T0 + HOUR);
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 18, total_credits: 18 });
    await debit(u, 4);
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 14, total_credits: 18 });
    clock.advance(2 * HOUR); // the 3-credit grant (which paid 3 of the 4) has expired
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 14, total_credits: 18 });
    clock.advance(365 * DAY_MS);
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 5, total_credits: 18 });
  });

  test("expiry at the exact boundary: spendable 1 ms before, gone at the instant", async () => {
    const u = addUser();
    const g = await grant(u, 7, T0 + DAY_MS);
    clock.set(T0 + DAY_MS - 1);
    expect((await db.exec(getCredits(db, u, clock))).left_credits).toBe(7);
    await db.tx((tx) => assertCanReserve(tx, u, 7, clock));
    clock.set(T0 + DAY_MS);
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 0, total_credits: 7 });
    await expect(db.tx((tx) => assertCanReserve(tx, u, 1, clock))).rejects.toThrow(
      "insufficient credits: need 1, have 0",
    );
    const r = await debit(u, 2);
    expect(r.charged).toBe(0);
    expect(remainingOf(g.id)).toBe(7);
    expect((await db.exec(listGrants(db, u, clock)))[0]!.expired).toBe(true);
  });

  test("a grant must be a positive integer with a future expiry", async () => {
    const u = addUser();
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      await expect(grant(u, bad, null)).rejects.toThrow(
        new AppError("INVALID_PARAMS", { reason: "credits must be a positive integer" }),
      );
    }
    await expect(grant(u, 1, T0)).rejects.toThrow("invalid params: expiry must be in the future");
    expect((await db.exec(getCredits(db, u, clock))).total_credits).toBe(0);
  });

  test("balances are per user", async () => {
    const a = addUser();
    const b = addUser();
    await grant(a, 4, null);
    await grant(b, 9, null);
    await debit(a, 1);
    expect((await db.exec(getCredits(db, a, clock))).left_credits).toBe(3);
    expect((await db.exec(getCredits(db, b, clock))).left_credits).toBe(9);
    const many = await db.exec(getCreditsMany(db, [a, b, addUser()], clock));
    expect(many.get(a)).toEqual({ left_credits: 3, total_credits: 4 });
    expect(many.get(b)).toEqual({ left_credits: 9, total_credits: 9 });
    expect(many.size).toBe(2);
  });
});

describe("debits", () => {
  test("spending order: soonest-expiring first, never-expiring last, then oldest first", async () => {
    const u = addUser();
    const never1 = await grant(u, 2, null);
    clock.advance(1);
    const later = await grant(u, 2, T0 + 30 * DAY_MS);
    clock.advance(1);
    const soonNewer = await grant(u, 2, T0 + 5 * DAY_MS);
    clock.advance(1);
    const never2 = await grant(u, 2, null);
    clock.set(T0 - 10); // an older grant with the same expiry as soonNewer
    const soonOlder = await grant(u, 2, T0 + 5 * DAY_MS);
    clock.set(T0 + 10);

    const order = [soonOlder, soonNewer, later, never1, never2];
    // Spend one grant and a half at a time and watch the grants drain in order.
    const r1 = await debit(u, 3);
    expect(order.map((g) => remainingOf(g.id))).toEqual([0, 1, 2, 2, 2]);
    const r2 = await debit(u, 4);
    expect(order.map((g) => remainingOf(g.id))).toEqual([0, 0, 0, 1, 2]);
    const r3 = await debit(u, 2);
    expect(order.map((g) => remainingOf(g.id))).toEqual([0, 0, 0, 0, 1]);
    expect([r1.charged, r2.charged, r3.charged]).toEqual([3, 4, 2]);

    const alloc = db.select().from(creditAllocations).where(eq(creditAllocations.debitId, r2.debitId)).all();
    expect(Object.fromEntries(alloc.map((a) => [a.grantId, a.amount]))).toEqual({
      [soonNewer.id]: 1,
      [later.id]: 2,
      [never1.id]: 1,
    });
  });

  test("expired grants are skipped even when they sort first", async () => {
    const u = addUser();
    const old = await grant(u, 5, T0 + HOUR);
    const fresh = await grant(u, 5, T0 + 2 * DAY_MS);
    clock.advance(HOUR);
    expect((await debit(u, 3)).charged).toBe(3);
    expect(remainingOf(old.id)).toBe(5);
    expect(remainingOf(fresh.id)).toBe(2);
  });

  test("a debit applied twice for one gen_id is counted once", async () => {
    const u = addUser();
    await grant(u, 10, null);
    const gen = addGeneration(u, 4, "completed");
    const first = await debit(u, 4, gen);
    const second = await debit(u, 4, gen);
    expect(first.applied).toBe(true);
    expect(second).toEqual({ debitId: first.debitId, amount: 4, charged: 4, applied: false });
    expect((await db.exec(getCredits(db, u, clock))).left_credits).toBe(6);
    expect(db.select().from(creditDebits).all()).toHaveLength(1);
    // A rolled-back outer transaction leaves no trace either.
    const gen2 = addGeneration(u, 2, "completed");
    await expect(
      db.tx(function* (tx) {
        yield* debitForGeneration(tx, { genId: gen2, userId: u, amount: 2 }, clock);
        throw new Error("completion failed");
      }),
    ).rejects.toThrow("completion failed");
    expect((await db.exec(getCredits(db, u, clock))).left_credits).toBe(6);
    expect((await debit(u, 2, gen2)).applied).toBe(true);
    expect((await db.exec(getCredits(db, u, clock))).left_credits).toBe(4);
  });

  test("a debit larger than what is left takes what is left, never below zero", async () => {
    const u = addUser();
    await grant(u, 3, null);
    const r = await debit(u, 10);
    expect(r).toMatchObject({ amount: 10, charged: 3, applied: true });
    expect((await db.exec(getCredits(db, u, clock))).left_credits).toBe(0);
    expect((await debit(u, 1)).charged).toBe(0);
    expect((await db.exec(getCredits(db, u, clock))).left_credits).toBe(0);
  });

  test("statements: grants and debits with the generation they paid for", async () => {
    const u = addUser();
    await grant(u, 10, T0 + 365 * DAY_MS, "signup");
    const gen = addGeneration(u, 5, "completed");
    clock.advance(1000);
    await debit(u, 5, gen);
    clock.advance(1000);
    await debit(u, 1, "gen-deleted");
    const grants = await db.exec(listGrants(db, u, clock));
    expect(grants).toEqual([
      {
        id: expect.any(String),
        source: "signup",
        amount: 10,
        remaining: 4,
        note: null,
        created_at: "2026-11-22T10:00:00.000Z",
        expires_at: "2027-11-22T10:00:00.000Z",
        expired: false,
      },
    ]);
    const debits = await db.exec(listDebits(db, u));
    // Newest first; a debit whose generation row is gone still lists, without details.
    expect(debits.map((d) => [d.gen_id, d.amount, d.charged, d.created_at, d.generation])).toEqual([
      ["gen-deleted", 1, 1, "2026-11-22T10:00:02.000Z", null],
      [
        gen,
        5,
        5,
        "2026-11-22T10:00:01.000Z",
        { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "a fox" },
      ],
    ]);
    expect(await db.exec(listDebits(db, addUser()))).toEqual([]);
  });
});

describe("reservations", () => {
  test("available = left − credits of pending and processing tasks; finished tasks hold nothing", async () => {
    const u = addUser();
    await grant(u, 20, null);
    addGeneration(u, 5, "pending");
    addGeneration(u, 4, "processing");
    addGeneration(u, 3, "failed");
    addGeneration(u, 2, "completed");
    addGeneration(addUser(), 7, "pending"); // another user's task
    expect(await db.exec(reservedCredits(db, u))).toBe(9);
    expect(await db.exec(availableCredits(db, u, clock))).toBe(11);
    await db.tx((tx) => assertCanReserve(tx, u, 11, clock));
    await expect(db.tx((tx) => assertCanReserve(tx, u, 12, clock))).rejects.toThrow(
      new AppError("INSUFFICIENT_CREDITS", { need: 12, have: 11 }),
    );
  });

  test("a grant expiring between reservation and debit: the debit takes what is left", async () => {
    const u = addUser();
    const expiring = await grant(u, 10, T0 + HOUR);
    const keep = await grant(u, 3, null);
    const gen = await db.tx(function* (tx) {
      yield* assertCanReserve(tx, u, 8, clock);
      return addGeneration(u, 8, "pending", tx as unknown as Db);
    });
    expect(await db.exec(availableCredits(db, u, clock))).toBe(5);
    clock.advance(2 * HOUR);
    // While the task runs, the shortfall shows as 0 available, not a negative number.
    expect(await db.exec(availableCredits(db, u, clock))).toBe(-5);
    await expect(db.tx((tx) => assertCanReserve(tx, u, 1, clock))).rejects.toThrow(
      "insufficient credits: need 1, have 0",
    );
    db.update(generations).set({ status: "completed" }).where(eq(generations.id, gen)).run();
    const r = await debit(u, 8, gen);
    expect(r).toMatchObject({ amount: 8, charged: 3, applied: true });
    expect(remainingOf(expiring.id)).toBe(10);
    expect(remainingOf(keep.id)).toBe(0);
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 0, total_credits: 13 });
  });
});

describe("daily check-in (spec 4.10)", () => {
  test("first call of the UTC day adds 1 credit valid 365 days; later calls that day add nothing", async () => {
    const u = addUser();
    clock.set(Date.parse("2026-11-22T00:00:00.000Z"));
    expect(await checkedInToday(db, u, clock)).toBe(false);
    expect(await checkIn(db, u, clock)).toEqual({ added: true, day: "2026-11-22", left_credits: 1, total_credits: 1 });
    expect(await checkedInToday(db, u, clock)).toBe(true);
    clock.set(Date.parse("2026-11-22T23:59:59.999Z"));
    expect(await checkIn(db, u, clock)).toEqual({ added: false, day: "2026-11-22", left_credits: 1, total_credits: 1 });
    clock.set(Date.parse("2026-11-23T00:00:00.000Z"));
    expect(await checkedInToday(db, u, clock)).toBe(false);
    expect(await checkIn(db, u, clock)).toEqual({ added: true, day: "2026-11-23", left_credits: 2, total_credits: 2 });
    const grants = await db.exec(listGrants(db, u, clock));
    expect(grants.map((g) => [g.source, g.amount, g.created_at, g.expires_at])).toEqual([
      ["checkin", 1, "2026-11-23T00:00:00.000Z", "2027-11-23T00:00:00.000Z"],
      ["checkin", 1, "2026-11-22T00:00:00.000Z", "2027-11-22T00:00:00.000Z"],
    ]);
    // …and the credit expires 365 days later.
    clock.set(Date.parse("2027-11-22T00:00:00.000Z"));
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 1, total_credits: 2 });
  });

  test("one instant per check-in: the credit expires exactly 365 days after it was granted", async () => {
    const u = addUser();
    let t = Date.parse("2026-11-22T23:59:59.999Z");
    const ticking = { now: () => t++ }; // a clock that moves on every read
    expect((await checkIn(db, u, ticking)).day).toBe("2026-11-22");
    const g = db.select().from(creditGrants).where(eq(creditGrants.userId, u)).get()!;
    expect(g.createdAt.toISOString()).toBe("2026-11-22T23:59:59.999Z");
    expect(g.expiresAt!.getTime() - g.createdAt.getTime()).toBe(365 * DAY_MS);
  });

  test("check-ins are per user", async () => {
    const a = addUser();
    const b = addUser();
    expect((await checkIn(db, a, clock)).added).toBe(true);
    expect((await checkIn(db, b, clock)).added).toBe(true);
    expect((await checkIn(db, a, clock)).added).toBe(false);
  });
});

describe("guards of the ledger (each would let bad numbers into the books)", () => {
  test("a reservation cost must be a non-negative integer; 0 passes even with no balance", async () => {
    const u = addUser();
    for (const bad of [-1, 1.5, Number.NaN]) {
      await expect(db.exec(assertCanReserve(db, u, bad, clock))).rejects.toThrow(`ledger: invalid cost ${bad}`);
    }
    await db.exec(assertCanReserve(db, u, 0, clock));
    await expect(db.exec(assertCanReserve(db, u, 1, clock))).rejects.toThrow("insufficient credits: need 1, have 0");
  });

  test("a debit amount must be a non-negative integer; a debit of 0 is recorded and charges nothing", async () => {
    const u = addUser();
    await grant(u, 5, null);
    for (const bad of [-1, 2.5]) await expect(debit(u, bad)).rejects.toThrow(`ledger: invalid debit amount ${bad}`);
    const zero = await debit(u, 0);
    expect([zero.applied, zero.charged, zero.amount]).toEqual([true, 0, 0]);
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 5, total_credits: 5 });
  });

  test("a grant needs a known source; a grant without a note stores null", async () => {
    const u = addUser();
    await expect(db.exec(grantCredits(db, { userId: u, amount: 1, source: "gift" as never }, clock))).rejects.toThrow(
      "ledger: unknown grant source gift",
    );
    const g = await db.exec(grantCredits(db, { userId: u, amount: 1, source: "admin" }, clock));
    expect(db.select().from(creditGrants).where(eq(creditGrants.id, g.id)).get()!.note).toBeNull();
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 1, total_credits: 1 });
  });

  test("a never-expiring grant is listed as not expired", async () => {
    const u = addUser();
    await grant(u, 2, null);
    expect((await db.exec(listGrants(db, u, clock))).map((g) => [g.amount, g.expires_at, g.expired])).toEqual([
      [2, null, false],
    ]);
  });

  test("balanceOf: available is what remains minus what running tasks hold, never below 0; held is shown beside it", async () => {
    const u = addUser();
    await grant(u, 10, T0 + HOUR);
    addGeneration(u, 3, "pending");
    addGeneration(u, 5, "processing");
    addGeneration(u, 4, "failed");
    expect(await db.exec(balanceOf(db, u, clock))).toEqual({ available: 2, held: 8 });
    clock.set(T0 + HOUR); // the grant expired under the running tasks
    expect(await db.exec(balanceOf(db, u, clock))).toEqual({ available: 0, held: 8 });
  });

  test("a grant is expired in the list from its exact expiry instant, not a millisecond before", async () => {
    const u = addUser();
    await grant(u, 2, T0 + HOUR);
    clock.set(T0 + HOUR - 1);
    expect((await db.exec(listGrants(db, u, clock)))[0]!.expired).toBe(false);
    clock.set(T0 + HOUR);
    expect((await db.exec(listGrants(db, u, clock)))[0]!.expired).toBe(true);
  });
});

describe("clawBackGrant (refunds)", () => {
  const claw = (u: string, grantId: string, amount: number, key: string = randomUUID()) =>
    db.tx((tx) => clawBackGrant(tx, { key, userId: u, grantId, amount }, clock));

  test("takes what remains of the grant, at most the amount, and records it as a keyed debit with its allocation", async () => {
    const u = addUser();
    const g = await grant(u, 10, null, "order");
    clock.advance(1000);
    await grant(u, 4, null);
    await debit(u, 7); // the order grant is drawn first (oldest), 3 left in it
    expect(remainingOf(g.id)).toBe(3);
    expect(await claw(u, g.id, 10, "refund-1")).toBe(3);
    expect(remainingOf(g.id)).toBe(0);
    const d = db.select().from(creditDebits).where(eq(creditDebits.genId, "refund-1")).get()!;
    expect([d.amount, d.charged, d.userId]).toEqual([10, 3, u]);
    expect(
      db
        .select()
        .from(creditAllocations)
        .where(eq(creditAllocations.debitId, d.id))
        .all()
        .map((a) => [a.grantId, a.amount]),
    ).toEqual([[g.id, 3]]);
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 4, total_credits: 14 });
  });

  test("a partial claw-back leaves the rest of the grant", async () => {
    const u = addUser();
    const g = await grant(u, 10, null, "order");
    expect(await claw(u, g.id, 4)).toBe(4);
    expect(remainingOf(g.id)).toBe(6);
  });

  test("the same key twice takes once", async () => {
    const u = addUser();
    const g = await grant(u, 10, null, "order");
    expect(await claw(u, g.id, 4, "refund-x")).toBe(4);
    expect(await claw(u, g.id, 4, "refund-x")).toBe(0);
    expect(remainingOf(g.id)).toBe(6);
    expect(db.select().from(creditDebits).where(eq(creditDebits.genId, "refund-x")).all().length).toBe(1);
  });

  test("nothing is taken or written for a zero, negative or fractional amount", async () => {
    const u = addUser();
    const g = await grant(u, 10, null, "order");
    for (const bad of [0, -3, 1.5]) expect(await claw(u, g.id, bad, `bad-${bad}`)).toBe(0);
    expect(remainingOf(g.id)).toBe(10);
    expect(db.select().from(creditDebits).all().length).toBe(0);
  });

  test("an emptied or unknown grant: the claw-back is recorded with nothing charged and no allocation", async () => {
    const u = addUser();
    const g = await grant(u, 2, null, "order");
    await debit(u, 2);
    expect(await claw(u, g.id, 2, "refund-empty")).toBe(0);
    expect(await claw(u, randomUUID(), 2, "refund-unknown")).toBe(0);
    for (const key of ["refund-empty", "refund-unknown"]) {
      const d = db.select().from(creditDebits).where(eq(creditDebits.genId, key)).get()!;
      expect(d.charged).toBe(0);
      expect(db.select().from(creditAllocations).where(eq(creditAllocations.debitId, d.id)).all()).toEqual([]);
    }
  });
});

describe("voidDebit (a paid demo call whose upstream failed)", () => {
  test("every allocation goes back to its grant, the debit and its allocations are gone, once", async () => {
    const u = addUser();
    const soon = await grant(u, 3, T0 + DAY_MS);
    const never = await grant(u, 10, null);
    await debit(u, 5, "demo:a"); // 3 from the expiring grant, 2 from the never-expiring one
    expect([remainingOf(soon.id), remainingOf(never.id)]).toEqual([0, 8]);
    await debit(u, 1, "demo:b");

    expect(await db.tx((tx) => voidDebit(tx, "demo:a"))).toBe(true);
    expect([remainingOf(soon.id), remainingOf(never.id)]).toEqual([3, 9]);
    expect(
      db
        .select()
        .from(creditDebits)
        .all()
        .map((d) => d.genId),
    ).toEqual(["demo:b"]);
    expect(db.select().from(creditAllocations).all().length).toBe(1);
    expect(await db.exec(getCredits(db, u, clock))).toEqual({ left_credits: 12, total_credits: 13 });

    // Twice, or an unknown id: nothing changes.
    expect(await db.tx((tx) => voidDebit(tx, "demo:a"))).toBe(false);
    expect(await db.tx((tx) => voidDebit(tx, "demo:none"))).toBe(false);
    expect([remainingOf(soon.id), remainingOf(never.id)]).toEqual([3, 9]);
  });
});
