/** The API-key rows of the endpoint table: create, list, revoke. */
import { z } from "zod";
import { REVOKED_KEYS_LISTED_DAYS } from "~/domain/api-keys/keys.server";
import { KEY_SCOPES } from "~/domain/api-keys/scopes";
import { ApiKeyRevokeSchema } from "~/http/forms";
import { COMMON, type EndpointDef, isoTime, SESSION_ONLY } from "./def.server";
import { ApiKeyCreateBody, KeyCreditLimitSchema } from "./platform.server";

export const ApiKeyInfoSchema = z.strictObject({
  key_id: z.string(),
  name: z.string(),
  start: z.string().describe("first characters of the key, for recognising it"),
  created_at: isoTime(),
  last_used_at: isoTime().nullable(),
  status: z.enum(["active", "revoked"]),
  revoked_at: isoTime().nullable().describe("when it was revoked; null while active"),
  scopes: z.array(z.enum(KEY_SCOPES)).describe("what the key may do (additive)"),
  credit_limit: KeyCreditLimitSchema,
});

export const KEY_ENDPOINTS = {
  "/api/keys/create": {
    method: "POST",
    tag: "API keys",
    summary: "Create an API key",
    description:
      "Session only (a key cannot manage keys). The response is the only time the key itself is shown; at most 25 active keys per user. Optional `scopes` limit what the key may do (default: every scope) and `credit_limit` caps what its tasks may spend per UTC day or month; a key without the scope an endpoint needs gets HTTP 403 `forbidden: this key lacks the <scope> scope`, and a generate past the cap `key credit limit reached: <used> of <limit> this <period>` (docs/usage.md).",
    auth: "session",
    source: "docs/design.md §5",
    body: ApiKeyCreateBody,
    response: z.object({
      key_id: z.string(),
      key: z.string().describe("shown once"),
      name: z.string(),
      start: z.string(),
      created_at: isoTime(),
      scopes: z.array(z.enum(KEY_SCOPES)),
      credit_limit: z
        .strictObject({ credits: z.int(), period: z.enum(["day", "month"]) })
        .nullable()
        .describe("the spending cap; null when uncapped"),
    }),
    errors: [...SESSION_ONLY, "API_KEY_LIMIT", "INVALID_PARAMS", ...COMMON],
    example: { name: "build server", scopes: ["generate", "read"], credit_limit: { credits: 50, period: "day" } },
  },
  "/api/keys/list": {
    method: "POST",
    tag: "API keys",
    summary: "List your API keys",
    description: `The signed-in user's active keys and the keys revoked in the last ${REVOKED_KEYS_LISTED_DAYS} days, newest first. Session only.`,
    auth: "session",
    source: "docs/design.md §5",
    response: z.strictObject({ keys: z.array(ApiKeyInfoSchema) }),
    errors: [...SESSION_ONLY, ...COMMON],
  },
  "/api/keys/revoke": {
    method: "POST",
    tag: "API keys",
    summary: "Revoke an API key",
    description: "active → revoked, for good: requests with the key are rejected with HTTP 401. Session only.",
    auth: "session",
    source: "spec 3.2, docs/design.md §5",
    body: ApiKeyRevokeSchema,
    response: z.strictObject({ key_id: z.string(), status: z.literal("revoked") }),
    errors: [...SESSION_ONLY, "KEY_ID_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: { key_id: "…" },
  },
} as const satisfies Record<string, EndpointDef>;
