/**
 * The daily check-in (spec 4.10, DESIGN §3): the first call of a UTC day adds
 * one credit valid 365 days. The (user_id, day) primary key of `checkins`
 * decides which call is first, so concurrent calls — in one process or many —
 * add exactly one credit.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { checkins } from "#db/schema";
import { DAY_MS, utcDay, type Clock } from "~/lib/clock";
import { changes, getCredits, grantCredits, type Credits } from "./ledger.server";

export const CHECKIN_CREDITS = 1;
export const CHECKIN_VALID_DAYS = 365;

export interface CheckInResult extends Credits {
  /** True for the first check-in of the UTC day (a credit was added). */
  added: boolean;
  /** The UTC day, YYYY-MM-DD. */
  day: string;
}

export function checkIn(db: Db, userId: string, clock: Clock): CheckInResult {
  return db.transaction(
    (tx) => {
      // One instant for the whole check-in: its day, the grant's creation and its expiry.
      const now = clock.now();
      const at: Clock = { now: () => now };
      const day = utcDay(now);
      const res = tx.insert(checkins).values({ userId, day, createdAt: new Date(now) }).onConflictDoNothing().run();
      const added = changes(res) === 1;
      if (added) {
        grantCredits(
          tx,
          { userId, amount: CHECKIN_CREDITS, source: "checkin", expiresAt: now + CHECKIN_VALID_DAYS * DAY_MS, note: day },
          at,
        );
      }
      return { added, day, ...getCredits(tx, userId, at) };
    },
    { behavior: "immediate" },
  );
}

/** Whether the user has already checked in on the current UTC day. */
export function checkedInToday(db: Pick<Db, "select">, userId: string, clock: Clock): boolean {
  const day = utcDay(clock.now());
  return (
    db
      .select({ day: checkins.day })
      .from(checkins)
      .where(and(eq(checkins.userId, userId), eq(checkins.day, day)))
      .get() !== undefined
  );
}
