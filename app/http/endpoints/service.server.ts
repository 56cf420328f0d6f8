/** The service rows of the endpoint table: health and the OpenAPI document. */
import { z } from "zod";
import type { EndpointDef } from "./def.server";

export const SERVICE_ENDPOINTS = {
  "/api/health": {
    method: "GET",
    alsoMethod: "POST",
    tag: "Service",
    summary: "Health",
    description:
      "For load balancers and operators: version, database and its engine (with the connection pool on PostgreSQL), and which providers are live or simulated. HTTP 503 when the database fails.",
    auth: "none",
    source: "docs/design.md §2",
    response: z.strictObject({
      status: z.enum(["ok", "degraded"]),
      version: z.string(),
      database: z.enum(["ok", "error"]),
      engine: z.enum(["sqlite", "postgres"]).describe("sqlite (embedded, the default) or postgres (DATABASE_URL)"),
      pool: z
        .strictObject({
          max: z.number().int().describe("connections this process may open to PostgreSQL (DATABASE_POOL_MAX)"),
          in_flight: z
            .number()
            .int()
            .describe("statements and transactions this process is waiting on now; beyond max they queue"),
        })
        .optional()
        .describe("PostgreSQL only: this process's connection pool"),
      providers: z.record(z.string(), z.enum(["live", "simulated"])),
    }),
    errors: ["INTERNAL"],
  },
  "/api/openapi.json": {
    method: "GET",
    tag: "Service",
    summary: "This API reference (OpenAPI 3.1)",
    description: "The OpenAPI 3.1 document generated from the same zod schemas that validate requests.",
    auth: "none",
    source: "Atelier",
    response: z.looseObject({ openapi: z.string() }),
    envelope: false,
    contentType: "application/json",
    errors: [],
  },
} as const satisfies Record<string, EndpointDef>;
