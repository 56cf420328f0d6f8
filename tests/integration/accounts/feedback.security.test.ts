/**
 * Feedback is the one free write of an unbounded size class (docs/decisions/069-feedback-limit.md). Session requests are not
 * rate limited (docs/api.md §8.2), so without a bound one signed-in account could store 5,000-character feedback
 * rows as fast as the server answers (about 1 MB per 200 requests, in the database and the admin's inbox). Each
 * user may send FEEDBACK_PER_HOUR an hour (session, key or the page alike); past that the answer is 429
 * "Too Many Requests" with Retry-After, and nothing is stored.
 */
import { expect, test } from "bun:test";
import { type Client, uniqueEmail } from "../../support/client";
import { countIn, insertApiKey, openServerDb } from "../../support/db";
import { serverForFile } from "../../support/file-server";

/** The documented bound (docs/decisions/069-feedback-limit.md). */
const BOUND = 10;

const s = serverForFile();

const stored = (userId: string) =>
  countIn(s.server.dataDir, "SELECT count(*) AS n FROM feedback WHERE user_id = $1", userId);

test("60 feedback posts of one session store at most 10 rows; the rest answer 429 with Retry-After", async () => {
  const u = await s.api.signUp(uniqueEmail("flood"));
  const auth = { cookie: u.cookie };
  const init = { headers: { origin: s.server.url } };
  const codes: number[] = [];
  let limited: Awaited<ReturnType<Client["post"]>> | undefined;
  for (let i = 0; i < 60; i++) {
    const r = await s.api.post("/api/add-feedback", { content: "x".repeat(5000), rating: 3 }, auth, init);
    codes.push(r.status);
    if (r.status === 429) limited ??= r;
  }
  const n = await stored(u.userId);
  console.log(`feedback rows stored from 60 posts: ${n}; statuses ${[...new Set(codes)].join(",")}`);
  expect(n).toBeLessThanOrEqual(BOUND);
  expect(n).toBeGreaterThan(0);
  expect(limited?.body).toEqual({ code: 1, message: "Too Many Requests", data: null });
  expect(Number(limited?.headers.get("retry-after"))).toBeGreaterThan(0);

  // The same user's API key shares the bound; the page form too.
  const db = await openServerDb(s.server.dataDir);
  const key = await insertApiKey(db, u.userId);
  await db.close();
  expect((await s.api.post("/api/add-feedback", { content: "by key", rating: 4 }, { apiKey: key })).status).toBe(429);
  const page = await fetch(`${s.server.url}/feedback`, {
    method: "POST",
    headers: { cookie: u.cookie, origin: s.server.url, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ content: "by form", rating: "4" }),
  });
  expect(page.status).toBeLessThan(500);
  expect(await page.text()).toContain("a lot of feedback");
  expect(await stored(u.userId)).toBe(n);

  // Another user is not affected.
  const other = await s.api.signUp(uniqueEmail("calm"));
  expect(
    (await s.api.post("/api/add-feedback", { content: "fine", rating: 5 }, { cookie: other.cookie }, init)).body.code,
  ).toBe(0);
});
