/** When a request joins an earlier identical one (app/domain/generations/request-join.server.ts, ADR 158). */
import { describe, expect, test } from "bun:test";
import { IDEMPOTENCY_TTL_MS } from "~/domain/generations/idempotency.server";
import { AUTO_JOIN_MS, joinable, joinSpec } from "~/domain/generations/request-join.server";
import { MAX_WAIT_SECONDS } from "~/domain/generations/wait.server";

const t0 = 1_000_000_000;

describe("joinable", () => {
  test("an auto entry joins until AUTO_JOIN_MS after its answer (at the bound: no longer)", () => {
    const answered = { key: "auto:h", createdAt: t0, answeredAt: t0 + 5_000 };
    expect(joinable(answered, t0 + 5_000 + AUTO_JOIN_MS - 1)).toBe(true);
    expect(joinable(answered, t0 + 5_000 + AUTO_JOIN_MS)).toBe(false);
    expect(joinable(answered, t0 + 5_000 + AUTO_JOIN_MS + 1)).toBe(false);
  });

  test("an auto entry never answered counts as answered MAX_WAIT_SECONDS after it began", () => {
    const held = { key: "auto:h", createdAt: t0, answeredAt: null };
    const end = t0 + MAX_WAIT_SECONDS * 1000 + AUTO_JOIN_MS;
    expect(joinable(held, t0 + 1)).toBe(true);
    expect(joinable(held, end - 1)).toBe(true);
    expect(joinable(held, end)).toBe(false);
  });

  test("an Idempotency-Key entry joins for 24 h from its creation, answered or not", () => {
    const keyed = { key: "key:k", createdAt: t0, answeredAt: t0 + 1_000 };
    expect(joinable(keyed, t0 + IDEMPOTENCY_TTL_MS - 1)).toBe(true);
    expect(joinable(keyed, t0 + IDEMPOTENCY_TTL_MS)).toBe(false);
  });
});

describe("joinSpec", () => {
  const request = { input: { model: "m", prompt: "p", options: { size: "1:1", seed: 2 } }, n: 1 };

  test("the same request in any key order is the same entry; another prompt, n or API key is another", () => {
    const a = joinSpec("/v1/images/generations", "key1", request);
    const reordered = joinSpec("/v1/images/generations", "key1", {
      n: 1,
      input: { options: { seed: 2, size: "1:1" }, prompt: "p", model: "m" },
    });
    expect(reordered).toEqual(a);
    expect(a.key).toBe(`auto:${a.requestHash}`);
    expect(joinSpec("/v1/images/generations", "key1", { ...request, n: 2 }).key).not.toBe(a.key);
    expect(
      joinSpec("/v1/images/generations", "key1", { ...request, input: { ...request.input, prompt: "q" } }).key,
    ).not.toBe(a.key);
    expect(joinSpec("/v1/images/generations", "key2", request).scope).not.toBe(a.scope);
    expect(joinSpec("/v1/images/edits", "key1", request).scope).not.toBe(a.scope);
    expect(joinSpec("/v1/images/generations", null, request).scope).toBe("/v1/images/generations session");
  });

  test("an Idempotency-Key names the entry; the hash still tells a different request", () => {
    const keyed = joinSpec("/v1/images/generations", "key1", request, "abc");
    expect(keyed.key).toBe("key:abc");
    expect(joinSpec("/v1/images/generations", "key1", { ...request, n: 3 }, "abc").requestHash).not.toBe(
      keyed.requestHash,
    );
  });
});
