/**
 * Resource bounds of status streams (docs/design.md §10, SSE): a user holds at most MAX_STREAMS_PER_USER
 * open status streams per process (one more is RATE_LIMITED before anything is
 * sent; a closed stream gives its slot back), and each stream ends after its
 * lifetime even while the task is unfinished.
 */
import { expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { type Db, openDatabase } from "#db/client";
import { generations } from "#db/schema";
import { MAX_STREAMS_PER_USER, statusStream } from "~/domain/generations/stream.server";
import { createUser } from "../../support/fixtures";

const T0 = Date.now();

async function pendingTask(db: Db) {
  const userId = randomUUID();
  await createUser(db, { id: userId, at: T0 });
  const genId = randomUUID();
  await db.run(
    db.insert(generations).values({
      id: genId,
      userId,
      aiType: "image",
      provider: "openai",
      model: "dall-e-3",
      prompt: "a fox",
      status: "pending",
      creditsCost: 1,
      deadlineAt: T0 + 600_000,
      createdAt: new Date(T0),
    }),
  );
  return { userId, genId };
}

test("the stream of an unfinished task closes after its lifetime", async () => {
  const db = openDatabase(":memory:");
  const { userId, genId } = await pendingTask(db);
  const started = Date.now();
  const text = await new Response(await statusStream(db, userId, genId, { pollMs: 20, maxLifetimeMs: 300 })).text();
  expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  expect(text).toStartWith("retry: 1000\n\n");
  expect(text).toContain('"status":"pending"');
});

test(`a user holds at most ${MAX_STREAMS_PER_USER} open streams; a closed one frees its slot; other users are unaffected`, async () => {
  const db = openDatabase(":memory:");
  const a = await pendingTask(db);
  const b = await pendingTask(db);
  const streams = [];
  for (let i = 0; i < MAX_STREAMS_PER_USER; i++)
    streams.push(await statusStream(db, a.userId, a.genId, { pollMs: 20 }));
  await expect(statusStream(db, a.userId, a.genId, { pollMs: 20 })).rejects.toMatchObject({ code: "RATE_LIMITED" });
  const other = await statusStream(db, b.userId, b.genId, { pollMs: 20 });
  await streams.pop()!.cancel();
  streams.push(await statusStream(db, a.userId, a.genId, { pollMs: 20 }));
  await Promise.all([...streams, other].map((s) => s.cancel()));
  // all released: a full set opens again
  for (let i = 0; i < MAX_STREAMS_PER_USER; i++) streams[i] = await statusStream(db, a.userId, a.genId, { pollMs: 20 });
  await Promise.all(streams.map((s) => s.cancel()));
});
