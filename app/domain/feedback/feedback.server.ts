/** Feedback (spec 2.7, 4.12): stored with its author and time. */
import { randomUUID } from "node:crypto";
import type { Db } from "#db/client";
import { feedback } from "#db/schema";
import type { Clock } from "~/lib/clock";

export async function addFeedback(db: Db, userId: string, input: { content: string; rating: number }, clock: Clock) {
  const row = { id: randomUUID(), userId, content: input.content, rating: input.rating, createdAt: new Date(clock.now()) };
  await db.run(db.insert(feedback).values(row));
  return row;
}
