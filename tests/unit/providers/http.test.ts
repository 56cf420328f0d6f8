import { describe, expect, test } from "bun:test";
import { CATALOG, PROVIDERS } from "~/domain/catalog";
import { parseConfig } from "~/lib/config.server";
import { parseRetryAfter, redact, retryCreate, sniffContentType, UpstreamError } from "~/providers/http.server";
import { hasCredentials, LIVE_FACTORIES } from "~/providers/live.server";
import { SAMPLE_MP4, SAMPLE_PNG } from "../../fakes/common";

const policy = { attempts: 4, baseDelayMs: 1, maxDelayMs: 5 };
const signal = new AbortController().signal;

function failing(errors: UpstreamError[]) {
  let calls = 0;
  return {
    fn: async () => {
      const e = errors[calls++];
      if (e) throw e;
      return "ok";
    },
    calls: () => calls,
  };
}

describe("retryCreate: only where no duplicate upstream job can result", () => {
  test("429 is retried until it passes", async () => {
    const f = failing([
      new UpstreamError("rate_limit", "busy", { retryable: true }),
      new UpstreamError("rate_limit", "busy", { retryable: true }),
    ]);
    expect(await retryCreate(policy, signal, f.fn)).toBe("ok");
    expect(f.calls()).toBe(3);
  });

  test("a connection never made is retried; a network error after sending is not", async () => {
    const notSent = new UpstreamError("network", "x");
    notSent.notSent = true;
    const f = failing([notSent]);
    expect(await retryCreate(policy, signal, f.fn)).toBe("ok");
    expect(f.calls()).toBe(2);

    const g = failing([new UpstreamError("network", "reset mid-request")]);
    await expect(retryCreate(policy, signal, g.fn)).rejects.toThrow("reset mid-request");
    expect(g.calls()).toBe(1);
  });

  for (const kind of ["server", "timeout", "auth", "bad_request", "bad_response"] as const) {
    test(`${kind} on a create is not retried`, async () => {
      const f = failing([new UpstreamError(kind, kind)]);
      await expect(retryCreate(policy, signal, f.fn)).rejects.toThrow(kind);
      expect(f.calls()).toBe(1);
    });
  }

  test("gives up after the bounded number of attempts", async () => {
    const f = failing(Array.from({ length: 10 }, () => new UpstreamError("rate_limit", "busy", { retryable: true })));
    await expect(retryCreate(policy, signal, f.fn)).rejects.toThrow("busy");
    expect(f.calls()).toBe(4);
  });

  test("Retry-After is honoured up to maxDelayMs", async () => {
    const e = new UpstreamError("rate_limit", "busy", { retryable: true });
    e.retryAfterMs = 60_000;
    const f = failing([e]);
    const t0 = performance.now();
    await retryCreate({ attempts: 2, baseDelayMs: 1, maxDelayMs: 30 }, signal, f.fn);
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(25);
    expect(took).toBeLessThan(2_000);
  });

  test("an abort during the backoff stops at once", async () => {
    const ac = new AbortController();
    const f = failing([new UpstreamError("rate_limit", "busy", { retryable: true })]);
    setTimeout(() => ac.abort(new Error("stop")), 10);
    await expect(
      retryCreate({ attempts: 2, baseDelayMs: 10_000, maxDelayMs: 10_000 }, ac.signal, f.fn),
    ).rejects.toThrow("stop");
  });
});

describe("helpers", () => {
  test("parseRetryAfter: seconds or an HTTP date", () => {
    expect(parseRetryAfter(new Headers({ "retry-after": "2" }))).toBe(2000);
    const now = Date.parse("2026-11-22T10:00:00Z");
    expect(parseRetryAfter(new Headers({ "retry-after": "Sun, 22 Nov 2026 10:00:05 GMT" }), now)).toBe(5000);
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });

  test("sniffContentType knows the real sample files", () => {
    expect(sniffContentType(SAMPLE_PNG)).toBe("image/png");
    expect(sniffContentType(SAMPLE_MP4)).toBe("video/mp4");
    expect(sniffContentType(new Uint8Array([1, 2, 3]))).toBeUndefined();
  });

  test("redact drops query strings (signed URLs) from log lines", () => {
    expect(redact("https://cdn.example/x.png?X-Amz-Signature=abc")).toBe("https://cdn.example/x.png?…");
  });
});

describe("LIVE_FACTORIES", () => {
  const cfg = parseConfig({
    OPENAI_API_KEY: "k",
    REPLICATE_API_TOKEN: "t",
    KLING_ACCESS_KEY: "a",
    KLING_SECRET_KEY: "s",
    RUNWAY_API_KEY: "r",
    FAL_KEY: "f",
    GEMINI_API_KEY: "g",
  });
  test("every provider has a live factory; each builds live adapters of its models' lifecycles", () => {
    for (const p of PROVIDERS) {
      const built = LIVE_FACTORIES[p]!(cfg);
      const adapters = Array.isArray(built) ? built : [built];
      for (const provider of adapters) {
        expect(provider.name).toBe(p);
        expect(provider.mode).toBe("live");
      }
      const lifecycles = new Set(CATALOG.filter((o) => o.provider === p).map((o) => o.lifecycle));
      expect(new Set(adapters.map((a) => a.lifecycle))).toEqual(lifecycles);
    }
  });

  test("hasCredentials follows the env vars (Kling needs both keys)", () => {
    const none = parseConfig({});
    for (const p of PROVIDERS) {
      expect(hasCredentials(cfg, p)).toBe(true);
      expect(hasCredentials(none, p)).toBe(false);
    }
  });

  test("a factory without credentials refuses to build", () => {
    expect(() => LIVE_FACTORIES.runway!(parseConfig({}))).toThrow("RUNWAY_API_KEY");
  });
});
