/** Every endpoint a key can reach needs a scope (a new endpoint without one would be open to every scoped key). */
import { describe, expect, test } from "bun:test";
import { periodStart, ROUTE_SCOPES } from "~/domain/api-keys/scopes";
import { ENDPOINTS } from "~/lib/endpoints.server";

describe("scopes", () => {
  test("every endpoint with user, admin or optional auth has a scope", () => {
    const open = Object.entries(ENDPOINTS)
      .filter(([, e]) => e.auth === "user" || e.auth === "admin" || e.auth === "optional")
      .filter(([path]) => !path.startsWith("/api/auth/"))
      .map(([path]) => path)
      .filter((path) => !ROUTE_SCOPES[path]);
    expect(open).toEqual([]);
  });

  test("periods start at the UTC day and month", () => {
    const t = Date.parse("2026-11-27T23:59:59.999Z");
    expect(new Date(periodStart("day", t)).toISOString()).toBe("2026-11-27T00:00:00.000Z");
    expect(new Date(periodStart("month", t)).toISOString()).toBe("2026-11-01T00:00:00.000Z");
  });
});
