/**
 * The shared JSON API path made cheaper (docs/performance.md "Session 5: the shared key path"): each shortcut
 * keeps what a client sees — the body rules, the headers of every envelope, the access log line, a premium
 * user's tier at once.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createApiKey } from "~/domain/api-keys/keys.server";
import { api, readJsonBody } from "~/http/api.server";
import { readBodyCapped } from "~/lib/body.server";
import { AppError } from "~/lib/errors";
import { accessLine } from "~/lib/log.server";
import { action as getUserCredits } from "~/routes/api/get-user-credits";
import { insertUser, installTestServices, makePremium, uninstallTestServices } from "../../support/services";

afterEach(uninstallTestServices);

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request("http://localhost/api/x", { method: "POST", headers, body });
const reason = async (p: Promise<unknown>) => {
  try {
    await p;
    return "accepted";
  } catch (e) {
    return e instanceof AppError ? e.message : String(e);
  }
};
const NUL = "invalid params: text must not contain NUL characters";

describe("JSON bodies", () => {
  test("U+0000 is refused wherever it is — value, key, nested array — and only there", async () => {
    for (const text of ['{"a":"x\\u0000"}', '{"a\\u0000":1}', '{"a":[1,{"b":["\\u0000"]}]}', '{"a":"\\\\\\u0000"}']) {
      expect([text, await reason(readJsonBody(post(text)))]).toEqual([text, NUL]);
    }
    // A backslash followed by the letters u0000 is not a NUL: `"\\u0000"` is the six characters \u0000.
    for (const text of ['{"a":"\\\\u0000"}', '{"a":"u0000"}', '{"a":"\\u0001"}']) {
      expect([text, await reason(readJsonBody(post(text)))]).toEqual([text, "accepted"]);
    }
    expect(await readJsonBody(post('{"a":"\\\\u0000"}'))).toEqual({ a: "\\u0000" });
  });

  test("declared and chunked bodies read alike; empty → {}; not UTF-8, not JSON, too large → the spec's messages", async () => {
    const chunked = (parts: string[]) =>
      new ReadableStream<Uint8Array>({
        start(c) {
          for (const p of parts) c.enqueue(new TextEncoder().encode(p));
          c.close();
        },
      });
    expect(await readJsonBody(post('{"page":2}'))).toEqual({ page: 2 });
    expect(await readJsonBody(post(chunked(['{"pa', 'ge":2}'])))).toEqual({ page: 2 });
    expect(await readJsonBody(post(null))).toEqual({});
    expect(await readJsonBody(post(""))).toEqual({});
    expect(await reason(readJsonBody(post(new Uint8Array([0x7b, 0xff, 0x7d]))))).toBe(
      "invalid params: body is not valid UTF-8",
    );
    // The decoder is shared: a bad body before a good one changes nothing.
    expect(await readJsonBody(post('{"ok":"é"}'))).toEqual({ ok: "é" });
    expect(await reason(readJsonBody(post("{nope")))).toBe("invalid params: body is not valid JSON");
    const big = "x".repeat(1024 * 1024 + 1);
    expect(await reason(readJsonBody(post(big)))).toBe("invalid params: body too large (max 1 MiB)");
    expect(await reason(readJsonBody(post(chunked([big.slice(0, 600_000), big.slice(600_000)]))))).toBe(
      "invalid params: body too large (max 1 MiB)",
    );
    expect(await readBodyCapped(post(chunked(["abc", "de"])), 5)).toEqual(new TextEncoder().encode("abcde"));
    expect(await readBodyCapped(post(chunked(["abc", "def"])), 5)).toBeNull();
  });
});

describe("the envelope's headers", () => {
  const BASELINE = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'; sandbox",
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  };
  const headersOf = (r: Response) => Object.fromEntries(r.headers.entries());

  test("success, error, 405 and 429 envelopes carry the security and JSON headers themselves; a key's carry its limit", async () => {
    const { db, clock } = installTestServices({ RATE_LIMIT_STANDARD: "1" });
    const u = insertUser(db);
    const k = await createApiKey(db, { userId: u.id, name: "k" }, clock);
    const ok = await getUserCredits({ request: post(null, { "x-api-key": k.key }) });
    expect(await ok.json()).toEqual({ code: 0, message: "ok", data: { left_credits: 0, total_credits: 0 } });
    expect(headersOf(ok)).toMatchObject({
      ...BASELINE,
      "ratelimit-policy": '"standard";q=1;w=60',
      "x-ratelimit-limit": "1",
    });
    const limited = await getUserCredits({ request: post(null, { "x-api-key": k.key }) });
    expect(limited.status).toBe(429);
    expect(headersOf(limited)).toMatchObject({
      ...BASELINE,
      "retry-after": "60",
      "x-ratelimit-remaining": "0",
      "atelier-error-code": "RATE_LIMITED",
    });
    const noAuth = await getUserCredits({ request: post(null) });
    expect(await noAuth.json()).toEqual({ code: 1, message: "no auth, please sign-in", data: null });
    // Each error names its stable code (docs/decisions/116-machine-readable-error-codes.md).
    expect(headersOf(noAuth)).toEqual({ ...BASELINE, "atelier-error-code": "UNAUTHENTICATED" });
    const get = await getUserCredits({ request: new Request("http://localhost/api/x") });
    expect(get.status).toBe(405);
    expect(headersOf(get)).toEqual({ ...BASELINE, allow: "POST", "atelier-error-code": "METHOD_NOT_ALLOWED" });
    const failing = api({
      route: "/x",
      auth: "none",
      handler: () => {
        throw new Error("boom");
      },
    });
    const boom = await failing({ request: post(null) });
    expect(boom.status).toBe(500);
    expect(headersOf(boom)).toEqual({ ...BASELINE, "atelier-error-code": "INTERNAL" });
  });

  test("a key whose owner just became premium gets the premium limit on the next request", async () => {
    const { db, clock } = installTestServices();
    const u = insertUser(db);
    const k = await createApiKey(db, { userId: u.id, name: "k" }, clock);
    expect(
      (await getUserCredits({ request: post(null, { "x-api-key": k.key }) })).headers.get("ratelimit-policy"),
    ).toBe('"standard";q=100;w=60');
    makePremium(db, u.id);
    expect(
      (await getUserCredits({ request: post(null, { "x-api-key": k.key }) })).headers.get("ratelimit-policy"),
    ).toBe('"premium";q=500;w=60');
  });
});

describe("the access log line", () => {
  test("byte for byte the generic log line of the same fields", () => {
    const t = new Date("2026-11-22T21:00:00.123Z");
    for (const [id, method, path, status, ms] of [
      ["6f1c2b4e-0000-4000-8000-000000000000", "POST", "/api/get-user-credits", 200, 0.12],
      ["req.1:a-b_c", "GET", '/a"b\\c/%22é', 404, 12],
      ["x", "DELETE", "/", 500, 0],
    ] as const) {
      const generic = `${JSON.stringify({
        t: t.toISOString(),
        level: "info",
        msg: "request",
        request_id: id,
        method,
        path,
        status,
        ms,
      })}\n`;
      expect(accessLine(t, id, method, path, status, ms)).toBe(generic);
    }
  });
});
