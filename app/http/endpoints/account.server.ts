/** The account rows of the endpoint table: profile, credits, subscription, invite code, feedback (spec 2, 3). */
import { z } from "zod";
import { DeleteAccountSchema } from "~/domain/account/delete.server";
import { INTERVALS } from "~/domain/subscriptions/subscriptions.server";
import { AffiliateSchema, FeedbackSchema } from "~/http/forms";
import { AUTH_ERRORS, COMMON, type EndpointDef, isoTime } from "./def.server";

export const UserInfoSchema = z
  .strictObject({
    uuid: z.string().describe("user identifier (UUID)"),
    email: z.string(),
    nickname: z.string(),
    avatar_url: z.string().describe("avatar image URL; empty when none"),
    invite_code: z.string(),
    invited_by: z.string().describe("uuid of the referring user; empty when none"),
    is_affiliate: z.boolean(),
    created_at: isoTime(),
  })
  .describe("User (spec 2.1)");

export const CreditsSchema = z
  .strictObject({
    left_credits: z.int().describe("current available balance"),
    total_credits: z.int().describe("lifetime earned credits"),
  })
  .describe("Credits (spec 2.2)");

export const SubscriptionSchema = z
  .strictObject({
    order_no: z.string(),
    product_id: z.string(),
    product_name: z.string(),
    interval: z.enum(INTERVALS),
    amount: z.int().describe("smallest currency unit (cents)"),
    status: z.string().describe("paid"),
    sub_id: z.string(),
    created_at: isoTime(),
  })
  .describe("Subscription (spec 2.3)");

export const ACCOUNT_ENDPOINTS = {
  "/api/get-user-info": {
    method: "POST",
    tag: "Account",
    summary: "Your profile",
    description: "The signed-in user's profile. No request body.",
    auth: "user",
    source: "spec 4.7",
    response: UserInfoSchema,
    errors: [...AUTH_ERRORS, ...COMMON],
  },
  "/api/get-user-credits": {
    method: "POST",
    tag: "Account",
    summary: "Your credits",
    description: "Available balance (unexpired grants) and lifetime earned credits. No request body.",
    auth: "user",
    source: "spec 4.8",
    response: CreditsSchema,
    errors: [...AUTH_ERRORS, ...COMMON],
  },
  "/api/get-user-subscription": {
    method: "POST",
    tag: "Account",
    summary: "Your active subscription",
    description: "The active subscription, or data null (code 0) when there is none. No request body.",
    auth: "user",
    source: "spec 4.9",
    response: SubscriptionSchema.nullable(),
    errors: [...AUTH_ERRORS, ...COMMON],
  },
  "/api/ping": {
    method: "POST",
    tag: "Account",
    summary: "Daily check-in",
    description:
      "The first call of a UTC day adds 1 credit (valid 1 year): message `ping ok: 1 credit added`. Later calls that day add nothing: `already pinged today`. Both are code 0.",
    auth: "user",
    source: "spec 4.10",
    response: z.strictObject({
      added: z.boolean(),
      day: z.iso.date().describe("the UTC day, YYYY-MM-DD"),
      left_credits: z.int(),
      total_credits: z.int(),
    }),
    errors: [...AUTH_ERRORS, ...COMMON],
  },
  "/api/update-invite": {
    method: "POST",
    tag: "Account",
    summary: "Switch affiliate status",
    description: "Turns affiliate status on or off; is_affiliate must be a JSON boolean.",
    auth: "user",
    source: "spec 4.11",
    body: AffiliateSchema,
    response: z.strictObject({ uuid: z.string(), email: z.string(), is_affiliate: z.boolean() }),
    successMessage: "affiliate status updated",
    errors: [...AUTH_ERRORS, "INVALID_PARAMS", ...COMMON],
    example: { is_affiliate: true },
  },
  "/api/add-feedback": {
    method: "POST",
    tag: "Account",
    summary: "Send feedback",
    description:
      "content 1 to 5000 characters, rating an integer 1 to 5. Answers code 0 with a success message and data null. At most 10 an hour per user (session, key and the /feedback page together): one more answers HTTP 429 (RATE_LIMITED) with Retry-After and stores nothing.",
    auth: "user",
    source: "spec 4.12",
    body: FeedbackSchema,
    // The route counts characters (code points) and trims; the bounds as JSON Schema states them.
    docBody: z.object({
      content: z.string().min(1).max(5000).describe("1 to 5000 characters, not only whitespace"),
      rating: z.int().min(1).max(5),
    }),
    response: z.null(),
    successMessage: "feedback received, thank you",
    errors: [...AUTH_ERRORS, "INVALID_PARAMS", ...COMMON],
    example: { content: "The fox pictures are great.", rating: 5 },
  },
  "/api/account/export": {
    method: "POST",
    tag: "Account",
    summary: "Export your data",
    description:
      "Session only (an API key is forbidden). No request body. Your data as one JSON document: profile, sign-in methods, the credit ledger, generations with prompts and result URLs, files, API keys (names, dates, scopes; never a key or its hash), webhooks (never a secret), orders and payments, feedback. docs/privacy.md.",
    auth: "session",
    source: "docs/privacy.md",
    response: z
      .looseObject({ format: z.literal("atelier-account-export"), version: z.literal(1), exported_at: isoTime() })
      .describe("the archive; its sections are described in docs/privacy.md"),
    errors: [...AUTH_ERRORS, "FORBIDDEN", ...COMMON],
  },
  "/api/account/delete": {
    method: "POST",
    tag: "Account",
    summary: "Delete your account",
    description:
      "Session only. `confirm` must be the account's e-mail; `password` is required when the account has one (otherwise the session must be at most 10 minutes old); wrong passwords count toward the sign-in throttle (429 past it). Revokes every session, key and webhook, cancels unfinished tasks and the Stripe subscription, deletes prompts, results and feedback, and keeps orders and the credit ledger anonymised. docs/privacy.md.",
    auth: "session",
    source: "docs/privacy.md",
    body: DeleteAccountSchema,
    response: z.strictObject({
      uuid: z.string(),
      deleted_at: isoTime(),
      canceled_tasks: z.int(),
      canceled_subscriptions: z.int(),
      removed_results: z.int().describe("tasks whose stored results were deleted"),
    }),
    successMessage: "account deleted",
    errors: [...AUTH_ERRORS, "FORBIDDEN", "INVALID_PARAMS", "UPSTREAM_FAILED", ...COMMON],
    example: { confirm: "you@example.com", password: "your password" },
  },
} as const satisfies Record<string, EndpointDef>;
