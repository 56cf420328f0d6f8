/**
 * A JSON body nested thousands of levels deep fits well inside the 1 MiB cap (100,000 levels are 200 KB) and would
 * overflow the stack of code that walks it recursively (the Idempotency-Key hash sorts keys at every level): an
 * HTTP 500 per request for anyone with a key or a session, where bad input must never be a 5xx. readJsonBody
 * refuses such a body on every JSON endpoint before any handler runs:
 * `invalid params: body nested too deeply (max 32 levels)` (docs/decisions/086-json-depth-limit.md).
 */
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";

setDefaultTimeout(60_000);

const TOO_DEEP = { code: 1, message: "invalid params: body nested too deeply (max 32 levels)", data: null }; // docs/decisions/086-json-depth-limit.md
const IMAGE = '"ai_type":"image","provider":"replicate","model":"black-forest-labs/flux-schnell","prompt":"a fox"';
const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

let cookie: string;
const s = serverForFile({ env: { JOBS: "off", SIGNUP_CREDITS: "100" } });
beforeAll(async () => {
  cookie = (await s.api.signUp(uniqueEmail("deep-body"))).cookie;
});

const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
  const r = await fetch(s.server.url + path, {
    method: "POST",
    headers: { cookie, origin: s.server.url, "content-type": "application/json", ...headers },
    body,
  });
  return { status: r.status, body: await r.json() };
};

test("generate with an Idempotency-Key and a 100,000-level body: invalid params, not a 500", async () => {
  const r = await post("/api/generator/generate", `{${IMAGE},"extra":${nested(100_000)}}`, {
    "idempotency-key": "deep-1",
  });
  expect(r).toEqual({ status: 200, body: TOO_DEEP });
});

test("every JSON endpoint refuses a body nested past 32 levels; 32 levels still reach the endpoint's own rules", async () => {
  for (const path of ["/api/generator/generate", "/api/generator/query", "/api/webhooks/create", "/api/add-feedback"]) {
    expect({ path, ...(await post(path, `{"x":${nested(40)}}`)) }).toEqual({ path, status: 200, body: TOO_DEEP });
  }
  // The body object is level 1: 31 more levels inside it are 32 in all.
  const ok = await post("/api/generator/generate", `{${IMAGE},"extra":${nested(31)}}`, { "idempotency-key": "deep-2" });
  expect(ok.body.code).toBe(0);
  const tooDeep = await post("/api/generator/generate", `{${IMAGE},"extra":${nested(32)}}`);
  expect(tooDeep.body).toEqual(TOO_DEEP);
});

test("nothing was created by a refused body", async () => {
  const history = (await s.api.post("/api/generator/history", {}, { cookie })).body.data;
  expect(history.generations.map((g: { prompt: string }) => g.prompt)).toEqual(["a fox"]); // only the 32-level one
});
