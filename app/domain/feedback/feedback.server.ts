/**
 * Feedback (spec 2.7, 4.12): stored with its author and time.
 *
 * At most FEEDBACK_PER_HOUR per user: session requests are
 * not rate limited (spec 8.2) and feedback costs nothing, so without a bound one
 * account could store 5,000-character rows as fast as the server answers. The
 * count is the shared limiter's (every process and node), for the API with a
 * session or a key and for the page alike; past it: RATE_LIMITED (429) with
 * Retry-After, nothing stored.
 */

import { randomUUID } from "node:crypto";
import { desc, eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { feedback, user } from "#db/schema";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import type { Clock } from "~/lib/clock";

export const FEEDBACK_PER_HOUR = 10;
const FEEDBACK_POLICY = { name: "feedback", limit: FEEDBACK_PER_HOUR, windowMs: 3_600_000 };

export async function addFeedback(db: Db, userId: string, input: { content: string; rating: number }, clock: Clock) {
  await takeOrRefuse(db, `feedback:${userId}`, FEEDBACK_POLICY, clock.now());
  const row = {
    id: randomUUID(),
    userId,
    content: input.content,
    rating: input.rating,
    createdAt: new Date(clock.now()),
  };
  await db.run(db.insert(feedback).values(row));
  return row;
}

/** The admin inbox: the latest feedback with who sent it, newest first. */
export function listFeedback(db: Db, opts: { limit: number }) {
  return db.many(
    db
      .select({
        id: feedback.id,
        content: feedback.content,
        rating: feedback.rating,
        createdAt: feedback.createdAt,
        email: user.email,
        name: user.name,
      })
      .from(feedback)
      .leftJoin(user, eq(user.id, feedback.userId))
      .orderBy(desc(feedback.createdAt), desc(feedback.id))
      .limit(opts.limit),
  );
}
