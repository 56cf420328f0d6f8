/**
 * The daily check-in (spec 4.10, docs/design.md §3): the first call of a UTC day adds
 * one credit valid 365 days. The (user_id, day) primary key of `checkins`
 * decides which call is first, so concurrent calls — in one process or many —
 * add exactly one credit.
 */
import { and, eq, sql } from "drizzle-orm";
import { type Db, run } from "#db/client";
import { prepared } from "#db/prepared";
import { checkins } from "#db/schema";
import { type Clock, DAY_MS, utcDay } from "~/lib/clock";
import { type Credits, getCredits, grantCredits } from "./ledger.server";

export const CHECKIN_CREDITS = 1;
export const CHECKIN_VALID_DAYS = 365;

export interface CheckInResult extends Credits {
  /** True for the first check-in of the UTC day (a credit was added). */
  added: boolean;
  /** The UTC day, YYYY-MM-DD. */
  day: string;
}

export function checkIn(db: Db, userId: string, clock: Clock): Promise<CheckInResult> {
  return db.tx(function* (tx) {
    // One instant for the whole check-in: its day, the grant's creation and its expiry.
    const now = clock.now();
    const at: Clock = { now: () => now };
    const day = utcDay(now);
    const added =
      (yield* run(
        tx
          .insert(checkins)
          .values({ userId, day, createdAt: new Date(now) })
          .onConflictDoNothing(),
      )) === 1;
    if (added) {
      yield* grantCredits(
        tx,
        { userId, amount: CHECKIN_CREDITS, source: "checkin", expiresAt: now + CHECKIN_VALID_DAYS * DAY_MS, note: day },
        at,
      );
    }
    return { added, day, ...(yield* getCredits(tx, userId, at)) };
  });
}

/** Whether the user has already checked in on the current UTC day. */
export async function checkedInToday(db: Db, userId: string, clock: Clock): Promise<boolean> {
  const day = utcDay(clock.now());
  // Prepared once: the studio asks on every visit, and building a drizzle query costs more than running it.
  const row = await db.one(
    prepared(db, "checkins.today", (d) =>
      d
        .select({ day: checkins.day })
        .from(checkins)
        .where(and(eq(checkins.userId, sql.placeholder("userId")), eq(checkins.day, sql.placeholder("day")))),
    ),
    { userId, day },
  );
  return row !== undefined;
}
