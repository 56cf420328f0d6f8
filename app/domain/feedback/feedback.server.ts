/** Feedback (spec 2.7, 4.12): stored with its author and time. */
import { desc, eq } from "drizzle-orm";
import { randomUUID } from "node:crypto";
import type { Db } from "#db/client";
import { feedback, user } from "#db/schema";
import type { Clock } from "~/lib/clock";

export async function addFeedback(db: Db, userId: string, input: { content: string; rating: number }, clock: Clock) {
  const row = { id: randomUUID(), userId, content: input.content, rating: input.rating, createdAt: new Date(clock.now()) };
  await db.run(db.insert(feedback).values(row));
  return row;
}

/** The admin inbox: the latest feedback with who sent it, newest first. */
export function listFeedback(db: Db, opts: { limit: number }) {
  return db.many(
    db
    .select({ id: feedback.id, content: feedback.content, rating: feedback.rating, createdAt: feedback.createdAt, email: user.email, name: user.name })
    .from(feedback)
    .leftJoin(user, eq(user.id, feedback.userId))
    .orderBy(desc(feedback.createdAt), desc(feedback.id))
    .limit(opts.limit),
  );
}
