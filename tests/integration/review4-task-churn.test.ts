/**
 * A canceled or failed task costs nothing, so generate + cancel would be a free write with no bound (tasks are
 * kept forever, each an event for up to 10 webhook endpoints, and session requests are not rate limited,
 * docs/api.md §8.2). Every task that ends without a charge takes a slot of a per-user bucket; while the bucket is
 * empty, generate answers HTTP 429 `Too Many Requests` with Retry-After and creates nothing. Cancels are never
 * refused for it, replays of an Idempotency-Key still answer, and tasks that complete (paid) never count
 * (docs/decisions/094-unpaid-task-limit.md).
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../support/client";
import { serverForFile } from "../support/file-server";

setDefaultTimeout(120_000);

const UNPAID_PER_HOUR = 100; // docs/decisions/094-unpaid-task-limit.md
const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" }; // 3 credits (spec 8.1)

// JOBS=off: tasks stay pending until canceled.
const s = serverForFile({ env: { JOBS: "off", SIGNUP_CREDITS: "3" } });

test("create + cancel: 100 unpaid tasks an hour, then generate answers 429 and creates nothing", async () => {
  const { cookie } = await s.api.signUp(uniqueEmail("churn"));
  for (let i = 0; i < UNPAID_PER_HOUR; i++) {
    const g = await s.api.post(
      "/api/generator/generate",
      { ...IMAGE, prompt: `churn ${i}` },
      { cookie },
      { headers: { "idempotency-key": `k-${i}` } },
    );
    expect({ i, code: g.body.code }).toEqual({ i, code: 0 });
    const c = await s.api.post("/api/generator/cancel", { gen_id: g.body.data.gen_id }, { cookie });
    expect({ i, status: c.body.data?.status }).toEqual({ i, status: "failed" });
  }
  const refused = await s.api.post("/api/generator/generate", { ...IMAGE, prompt: "one more" }, { cookie });
  expect({ http: refused.status, body: refused.body }).toEqual({
    http: 429,
    body: { code: 1, message: "Too Many Requests", data: null },
  });
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  // A replay creates nothing, so it still answers the first task.
  const replay = await s.api.post(
    "/api/generator/generate",
    { ...IMAGE, prompt: "churn 7" },
    { cookie },
    { headers: { "idempotency-key": "k-7" } },
  );
  expect(replay.body.code).toBe(0);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  // Nothing was stored by the refused create; the reservation is free (3 credits).
  const history = (await s.api.post("/api/generator/history", { page_size: 1 }, { cookie })).body.data;
  expect(history.total).toBe(UNPAID_PER_HOUR);
  expect((await s.api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits).toBe(3);
  // Another user is not affected.
  const other = await s.api.signUp(uniqueEmail("churn-other"));
  expect(
    (await s.api.post("/api/generator/generate", { ...IMAGE, prompt: "mine" }, { cookie: other.cookie })).body.code,
  ).toBe(0);
});
