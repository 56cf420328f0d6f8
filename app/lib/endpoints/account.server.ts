/** The account rows of the endpoint table: profile, credits, subscription, invite code, feedback (spec 2, 3). */
import { z } from "zod";
import { INTERVALS } from "~/domain/subscriptions/subscriptions.server";
import { AffiliateSchema, FeedbackSchema } from "../forms";
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
} as const satisfies Record<string, EndpointDef>;
