/** Every endpoint a key can reach needs a scope (a new endpoint without one would be open to every scoped key). */
import { describe, expect, test } from "bun:test";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { mcpToolRoute, periodStart, ROUTE_SCOPES, scopesOf } from "~/domain/api-keys/scopes";
import { ENDPOINTS } from "~/http/endpoints.server";
import { registerTools } from "~/http/mcp/tools.server";
import routes from "~/routes";

describe("scopes", () => {
  test("every endpoint with user, admin or optional auth has a scope", () => {
    const open = Object.entries(ENDPOINTS)
      .filter(([, e]) => e.auth === "user" || e.auth === "admin" || e.auth === "optional")
      .filter(([path]) => !path.startsWith("/api/auth/"))
      .map(([path]) => path)
      .filter((path) => !ROUTE_SCOPES[path]);
    expect(open).toEqual([]);
  });

  test("every /v1 route and every MCP tool has its scopes in the same table", () => {
    const v1 = (routes as { path?: string }[])
      .map((r) => r.path)
      .filter((p): p is string => !!p?.startsWith("v1/") && !p.includes("*"));
    expect(v1.length).toBeGreaterThan(1);
    expect(v1.filter((p) => scopesOf(`/${p}`).length === 0)).toEqual([]);
    const tools: string[] = [];
    registerTools({ registerTool: (name: string) => tools.push(name) } as unknown as McpServer, () => {
      throw new Error("no call here");
    });
    expect(tools.length).toBeGreaterThan(5);
    expect(tools.filter((t) => scopesOf(mcpToolRoute(t)).length === 0)).toEqual([]);
    expect(scopesOf("/v1/images/edits")).toEqual(["generate", "files"]);
  });

  test("periods start at the UTC day and month", () => {
    const t = Date.parse("2026-11-27T23:59:59.999Z");
    expect(new Date(periodStart("day", t)).toISOString()).toBe("2026-11-27T00:00:00.000Z");
    expect(new Date(periodStart("month", t)).toISOString()).toBe("2026-11-01T00:00:00.000Z");
  });
});
