/**
 * Security review (docs/design.md §10, SSE): one account may hold any number of open
 * status streams. Each open stream re-reads the task row every 250 ms for as
 * long as the task is unfinished (no lifetime cap), so one session or key with
 * one queued task can pin an unbounded number of connections and DB reads.
 * Expected: a per-user bound on concurrent streams (the studio itself opens at
 * most 3), further opens refused with an envelope error.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";

const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" };
const OPENED = 40;
const BOUND = 10; // generous: 3 per studio page × a few tabs

let web: TestServer; // JOBS=off: the task stays pending, as a queued task does under load
let api: Client;
beforeAll(async () => {
  web = await startServer({ env: { JOBS: "off" } });
  api = new Client(web.url);
});
afterAll(async () => {
  await web?.dispose();
});

test(`one user cannot hold more than ${BOUND} open status streams`, async () => {
  const { cookie } = await api.signUp(uniqueEmail("sse-flood"));
  const gen = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "queued" }, { cookie })).body.data.gen_id;
  expect(typeof gen).toBe("string");
  const ctl = new AbortController();
  const opened = await Promise.all(
    Array.from({ length: OPENED }, () =>
      fetch(`${web.url}/api/generator/stream?gen_id=${gen}`, {
        headers: { cookie, accept: "text/event-stream" },
        signal: ctl.signal,
      }).catch(() => null),
    ),
  );
  const streaming = opened.filter(
    (r) => r?.status === 200 && r.headers.get("content-type")?.startsWith("text/event-stream"),
  ).length;
  const refused = opened.find((r) => r?.status === 429);
  const refusedBody = await refused?.json();
  ctl.abort();
  expect(streaming).toBeLessThanOrEqual(BOUND);
  expect(streaming).toBeGreaterThan(0);
  expect(refused?.headers.get("content-type")).toContain("application/json");
  expect(refusedBody).toEqual({ code: 1, message: "Too Many Requests", data: null });

  // Closed streams give their slot back.
  let again: Response | undefined;
  for (let i = 0; i < 50; i++) {
    again = await fetch(`${web.url}/api/generator/stream?gen_id=${gen}`, {
      headers: { cookie, accept: "text/event-stream" },
    });
    if (again.status === 200) break;
    await again.body?.cancel();
    await Bun.sleep(100);
  }
  expect(again?.status).toBe(200);
  await again?.body?.cancel();
});
