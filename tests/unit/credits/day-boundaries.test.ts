/**
 * Day boundaries are UTC (docs/design.md §3): the daily check-in, expiry instants and the dates people read, and a
 * subscription's period end. `bun test` runs in UTC, where a local-time mistake (`getDate()` for `getUTCDate()`,
 * a local midnight) gives the same answers — so the last test runs this whole file again in a process whose TZ is
 * Asia/Shanghai (UTC+8: local midnight is 16:00 UTC), where such a mistake fails.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { type Db, openDatabase } from "#db/client";
import { user } from "#db/schema";
import { formatDate } from "~/components/ui/format";
import { checkedInToday, checkIn } from "~/domain/credits/checkin.server";
import { getCredits, grantCredits } from "~/domain/credits/ledger.server";
import { addMonthsUtc } from "~/domain/subscriptions/subscriptions.server";
import { manualClock, utcDay } from "~/lib/clock";

const NON_UTC_ZONE = "Asia/Shanghai";
const at = (isoTime: string) => Date.parse(isoTime);

let db: Db;
let clock: ReturnType<typeof manualClock>;
let userId: string;

beforeEach(() => {
  db = openDatabase(":memory:");
  clock = manualClock(at("2026-11-22T10:00:00.000Z"));
  userId = randomUUID();
  db.insert(user)
    .values({
      id: userId,
      name: "u",
      email: `${userId}@example.test`,
      createdAt: new Date(clock.now()),
      updatedAt: new Date(clock.now()),
      inviteCode: userId.slice(0, 8),
    })
    .run();
});

describe("the daily check-in counts UTC days", () => {
  test("15:30 and 16:30 UTC are one day (in UTC+8 they straddle local midnight)", async () => {
    clock.set(at("2026-11-22T15:30:00.000Z"));
    expect((await checkIn(db, userId, clock)).added).toBe(true);
    clock.set(at("2026-11-22T16:30:00.000Z"));
    const second = await checkIn(db, userId, clock);
    expect(second).toMatchObject({ added: false, day: "2026-11-22" });
    expect(await checkedInToday(db, userId, clock)).toBe(true);
  });

  test("23:59:59.999 and 00:00 UTC are two days (in UTC+8 both are the morning of the 23rd)", async () => {
    clock.set(at("2026-11-22T23:59:59.999Z"));
    expect(await checkIn(db, userId, clock)).toMatchObject({ added: true, day: "2026-11-22" });
    clock.set(at("2026-11-23T00:00:00.000Z"));
    expect(await checkedInToday(db, userId, clock)).toBe(false);
    expect(await checkIn(db, userId, clock)).toMatchObject({ added: true, day: "2026-11-23", left_credits: 2 });
  });

  test("utcDay is the UTC calendar day at both edges", () => {
    expect(utcDay(at("2026-11-22T00:00:00.000Z"))).toBe("2026-11-22");
    expect(utcDay(at("2026-11-22T23:59:59.999Z"))).toBe("2026-11-22");
    expect(utcDay(at("2026-12-31T20:00:00.000Z"))).toBe("2026-12-31");
  });
});

describe("expiry is an instant, shown as a UTC date", () => {
  test("a grant expiring at UTC midnight is spendable 1 ms before and gone at it", async () => {
    const expiresAt = at("2026-11-23T00:00:00.000Z");
    await db.exec(grantCredits(db, { userId, amount: 5, source: "admin", expiresAt }, clock));
    clock.set(expiresAt - 1);
    expect((await db.exec(getCredits(db, userId, clock))).left_credits).toBe(5);
    clock.set(expiresAt);
    expect((await db.exec(getCredits(db, userId, clock))).left_credits).toBe(0);
  });

  test("dates read the same in every zone: the UTC day, hour and year", () => {
    expect(formatDate("2026-11-22T16:30:00.000Z")).toBe("22 Nov 2026, 16:30 UTC");
    expect(formatDate("2026-12-31T23:59:00.000Z", { time: false })).toBe("31 Dec 2026");
    expect(formatDate("2027-01-01T00:00:00.000Z", { seconds: true })).toBe("1 Jan 2027, 00:00:00 UTC");
  });

  test("a month after the last evening of January is the last day of February, in UTC", () => {
    expect(new Date(addMonthsUtc(at("2027-01-31T20:00:00.000Z"), 1)).toISOString()).toBe("2027-02-28T20:00:00.000Z");
    expect(new Date(addMonthsUtc(at("2026-11-30T18:00:00.000Z"), 1)).toISOString()).toBe("2026-12-30T18:00:00.000Z");
  });
});

describe(`the same tests with TZ=${NON_UTC_ZONE}`, () => {
  const inChild = process.env.TZ === NON_UTC_ZONE;
  test.skipIf(inChild)(
    "pass in a process whose local midnight is not UTC midnight",
    () => {
      const child = Bun.spawnSync(["bun", "test", import.meta.path], {
        env: { ...process.env, TZ: NON_UTC_ZONE },
        stdout: "pipe",
        stderr: "pipe",
      });
      const out = `${child.stdout.toString()}${child.stderr.toString()}`;
      expect(out).toContain(" 0 fail");
      expect(out).toMatch(/ [1-9]\d* pass/);
      expect(child.exitCode).toBe(0);
    },
    60_000,
  );
  test.skipIf(!inChild)("this process runs in the other zone", () => {
    expect(new Date(at("2026-11-22T16:30:00.000Z")).getDate()).toBe(23);
  });
});
