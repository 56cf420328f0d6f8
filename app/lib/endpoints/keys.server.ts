/** The API-key rows of the endpoint table: create, list, revoke. */
import { z } from "zod";
import { REVOKED_KEYS_LISTED_DAYS } from "~/domain/api-keys/keys.server";
import { ApiKeyCreateSchema, ApiKeyRevokeSchema } from "../forms";
import { COMMON, type EndpointDef, isoTime } from "./def.server";

export const ApiKeyInfoSchema = z.strictObject({
  key_id: z.string(),
  name: z.string(),
  start: z.string().describe("first characters of the key, for recognising it"),
  created_at: isoTime(),
  last_used_at: isoTime().nullable(),
  status: z.enum(["active", "revoked"]),
  revoked_at: isoTime().nullable().describe("when it was revoked; null while active"),
});

export const KEY_ENDPOINTS = {
  "/api/keys/create": {
    method: "POST",
    tag: "API keys",
    summary: "Create an API key",
    description:
      "Session only (a key cannot manage keys). The response is the only time the key itself is shown; at most 25 active keys per user.",
    auth: "session",
    source: "docs/design.md §5",
    body: ApiKeyCreateSchema,
    response: z.strictObject({
      key_id: z.string(),
      key: z.string().describe("shown once"),
      name: z.string(),
      start: z.string(),
      created_at: isoTime(),
    }),
    errors: [
      "UNAUTHENTICATED",
      "FORBIDDEN",
      "API_KEY_NOT_FOUND",
      "API_KEY_REVOKED",
      "API_KEY_LIMIT",
      "INVALID_PARAMS",
      ...COMMON,
    ],
    example: { name: "build server" },
  },
  "/api/keys/list": {
    method: "POST",
    tag: "API keys",
    summary: "List your API keys",
    description: `The signed-in user's active keys and the keys revoked in the last ${REVOKED_KEYS_LISTED_DAYS} days, newest first. Session only.`,
    auth: "session",
    source: "docs/design.md §5",
    response: z.strictObject({ keys: z.array(ApiKeyInfoSchema) }),
    errors: ["UNAUTHENTICATED", "FORBIDDEN", "API_KEY_NOT_FOUND", "API_KEY_REVOKED", ...COMMON],
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
    errors: [
      "UNAUTHENTICATED",
      "FORBIDDEN",
      "API_KEY_NOT_FOUND",
      "API_KEY_REVOKED",
      "KEY_ID_NOT_FOUND",
      "INVALID_PARAMS",
      ...COMMON,
    ],
    example: { key_id: "…" },
  },
} as const satisfies Record<string, EndpointDef>;
