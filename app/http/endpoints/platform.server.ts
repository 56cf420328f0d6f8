/**
 * The developer platform's rows of the endpoint table (app/http/endpoints.ts spreads them in): scoped keys and their
 * caps, usage (docs/decisions/115-scoped-keys-and-caps.md, docs/usage.md).
 */
import { z } from "zod";
import { CREDIT_PERIODS, KEY_SCOPES, SCOPE_DESCRIPTIONS } from "~/domain/api-keys/scopes";
import { ApiKeyCreateSchema } from "~/http/forms";
import { AUTH_ERRORS, COMMON, type EndpointDef, isoTime, SESSION_ONLY } from "./def.server";

const scopeList = KEY_SCOPES.map((s) => `\`${s}\` (${SCOPE_DESCRIPTIONS[s]})`).join("; ");

export const ScopesField = z
  .array(z.enum(KEY_SCOPES))
  .min(1)
  .max(KEY_SCOPES.length)
  .describe(`what the key may do; default every scope: ${scopeList}`);

export const CreditLimitField = z
  .strictObject({
    credits: z.int().min(1).max(1_000_000_000),
    period: z.enum(CREDIT_PERIODS).describe("the UTC day or the UTC calendar month"),
  })
  .describe(
    "a spending cap: the credits this key's tasks may hold (pending, processing) or be charged (completed) in the period; failed and canceled tasks count nothing",
  );

export const ApiKeyCreateBody = ApiKeyCreateSchema.extend({
  scopes: ScopesField.optional(),
  credit_limit: CreditLimitField.nullable().optional(),
});

export const ApiKeyUpdateBody = z.object({
  key_id: z.string().min(1).max(100),
  scopes: ScopesField.optional(),
  credit_limit: CreditLimitField.nullable().optional().describe("null removes the cap; absent leaves it as it is"),
});

/** Which field a refused key body got wrong, as the sentence the envelope says. */
export function keyBodyProblem(error: z.ZodError): string {
  const field = error.issues[0]?.path[0];
  if (field === "scopes") return `scopes must be a non-empty list of ${KEY_SCOPES.join(", ")}`;
  if (field === "credit_limit") return "credit_limit must be {credits: a positive integer, period: day or month}";
  if (field === "key_id") return "key_id required";
  return "name must be 1 to 100 characters";
}

export const KeyCreditLimitSchema = z
  .strictObject({
    credits: z.int(),
    period: z.enum(CREDIT_PERIODS),
    used: z.int().describe("credits the key's tasks hold or were charged this period"),
  })
  .nullable()
  .describe("the spending cap and what was used of it this period; null when uncapped");

export const UsageBody = z.object({
  from: z.iso.datetime({ offset: true }).optional().describe("start (inclusive); default 30 days before `to`"),
  to: z.iso.datetime({ offset: true }).optional().describe("end (exclusive); default now"),
  group_by: z.enum(["day", "model", "key"]).optional().describe("default day (UTC)"),
});

export const UsageRowSchema = z.object({
  day: z.string().optional().describe("YYYY-MM-DD (UTC), with group_by day"),
  ai_type: z.string().optional().describe("with group_by model"),
  provider: z.string().optional().describe("with group_by model"),
  model: z.string().optional().describe("with group_by model"),
  key_id: z
    .string()
    .nullable()
    .optional()
    .describe("with group_by key: the key that created the tasks; null for the browser"),
  key_name: z.string().nullable().optional().describe("with group_by key"),
  credits: z.int().describe("credits charged (the ledger's debits of these tasks)"),
  completed: z.int(),
  failed: z.int().describe("failed tasks other than canceled ones"),
  canceled: z.int(),
});

export const PLATFORM_ENDPOINTS = {
  "/api/keys/update": {
    method: "POST",
    tag: "API keys",
    summary: "Change a key's scopes or spending cap",
    description:
      "Session only. Changes an active key's `scopes` and `credit_limit` without rotating it (a field left out stays; `credit_limit: null` removes the cap). Every server sees the change within a second.",
    auth: "session",
    source: "docs/decisions/115-scoped-keys-and-caps.md",
    body: ApiKeyUpdateBody,
    response: z.object({
      key_id: z.string(),
      name: z.string(),
      start: z.string(),
      created_at: isoTime(),
      last_used_at: isoTime().nullable(),
      status: z.enum(["active", "revoked"]),
      revoked_at: isoTime().nullable(),
      scopes: z.array(z.enum(KEY_SCOPES)),
      credit_limit: KeyCreditLimitSchema,
    }),
    errors: [...SESSION_ONLY, "KEY_ID_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: { key_id: "…", scopes: ["generate", "read"], credit_limit: { credits: 100, period: "day" } },
  },
  "/api/usage": {
    method: "POST",
    tag: "Account",
    summary: "Credits spent and tasks, by day, model or key",
    description:
      "Rows of credits charged (the ledger's debits, so the sums equal the ledger) and task counts (completed, failed, canceled) for tasks created in [from, to), grouped by UTC day, by model or by API key. Needs the `read` scope with a key. At most 366 days.",
    auth: "user",
    source: "docs/usage.md",
    body: UsageBody,
    response: z.object({
      from: isoTime(),
      to: isoTime(),
      group_by: z.enum(["day", "model", "key"]),
      rows: z.array(UsageRowSchema),
      total: z.object({ credits: z.int(), completed: z.int(), failed: z.int(), canceled: z.int() }),
    }),
    errors: [...AUTH_ERRORS, "INVALID_PARAMS", ...COMMON],
    example: { from: "2026-11-01T00:00:00.000Z", group_by: "model" },
  },
} as const satisfies Record<string, EndpointDef>;
