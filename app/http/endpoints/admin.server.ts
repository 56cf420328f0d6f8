/** The admin rows of the endpoint table: grant credits, create a subscription, list users. */
import { z } from "zod";
import { CreateSubscriptionSchema, GrantCreditsSchema, ListUsersSchema } from "~/domain/admin/admin.server";
import { SuspendUserSchema } from "~/domain/users/suspend.server";
import { SubscriptionSchema } from "./account.server";
import { AUTH_ERRORS, COMMON, type EndpointDef, isoTime } from "./def.server";

const AdminUserSchema = z.strictObject({
  uuid: z.string(),
  email: z.string(),
  nickname: z.string(),
  created_at: isoTime(),
  left_credits: z.int(),
  total_credits: z.int(),
  tier: z.enum(["admin", "premium", "standard"]),
  suspended: z.boolean().describe("an admin suspended the account"),
});

export const ADMIN_ENDPOINTS = {
  "/api/admin/grant-credits": {
    method: "POST",
    tag: "Admin",
    summary: "Grant credits to a user",
    description: "Admins only (session or an admin's key). Identify the user by email or user_uuid (exactly one).",
    auth: "admin",
    source: "docs/design.md §6",
    body: GrantCreditsSchema,
    exactlyOne: ["email", "user_uuid"],
    response: z.strictObject({
      uuid: z.string(),
      email: z.string(),
      granted: z.int(),
      expires_at: isoTime().nullable(),
      left_credits: z.int(),
      total_credits: z.int(),
    }),
    successMessage: "credits granted",
    errors: [...AUTH_ERRORS, "FORBIDDEN", "USER_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: { email: "someone@example.com", credits: 100, expires_in_days: 365 },
  },
  "/api/admin/create-subscription": {
    method: "POST",
    tag: "Admin",
    summary: "Record a subscription",
    description: "Admins only. Records a paid order; a paid, current subscription makes the user premium.",
    auth: "admin",
    source: "docs/design.md §6",
    body: CreateSubscriptionSchema,
    exactlyOne: ["email", "user_uuid"],
    response: SubscriptionSchema.extend({ user_uuid: z.string(), email: z.string(), period_end: isoTime().nullable() }),
    successMessage: "subscription created",
    errors: [...AUTH_ERRORS, "FORBIDDEN", "USER_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: {
      email: "someone@example.com",
      product_id: "pro-monthly",
      product_name: "Pro",
      interval: "month",
      amount: 1900,
    },
  },
  "/api/admin/list-users": {
    method: "POST",
    tag: "Admin",
    summary: "List users",
    description: "Admins only. Users newest first, with balance and rate-limit tier.",
    auth: "admin",
    source: "docs/design.md §6",
    body: ListUsersSchema,
    response: z.strictObject({ users: z.array(AdminUserSchema), total: z.int(), page: z.int(), page_size: z.int() }),
    errors: [...AUTH_ERRORS, "FORBIDDEN", "INVALID_PARAMS", ...COMMON],
    example: { page: 1, page_size: 20 },
  },
  "/api/admin/suspend-user": {
    method: "POST",
    tag: "Admin",
    summary: "Suspend or restore a user",
    description:
      "Admins only. `suspended: true` refuses the user's sessions and keys (HTTP 403 `account suspended`) on every node within a second, cancels their unfinished tasks uncharged and disables their webhooks; `suspended: false` restores them. Admins cannot suspend themselves.",
    auth: "admin",
    source: "docs/operating.md",
    body: SuspendUserSchema,
    exactlyOne: ["email", "user_uuid"],
    response: z.strictObject({
      uuid: z.string(),
      email: z.string(),
      suspended: z.boolean(),
      suspended_at: isoTime().nullable(),
      reason: z.string().nullable(),
      canceled_tasks: z.int().describe("unfinished tasks canceled uncharged by this call"),
      webhooks: z.int().describe("webhook endpoints this call disabled (suspend) or enabled again (restore)"),
    }),
    errors: [...AUTH_ERRORS, "FORBIDDEN", "USER_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: { email: "someone@example.com", suspended: true, reason: "sign-up bonus abuse" },
  },
} as const satisfies Record<string, EndpointDef>;
