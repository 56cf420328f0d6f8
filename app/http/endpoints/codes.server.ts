/** Redemption codes' rows of the endpoint table (docs/payments.md "Redemption codes"). */
import { z } from "zod";
import { CreateCodesSchema, RedeemSchema } from "~/domain/billing/codes.server";
import { AUTH_ERRORS, COMMON, type EndpointDef, isoTime } from "./def.server";

export const CODE_ENDPOINTS = {
  "/api/admin/codes/create": {
    method: "POST",
    tag: "Admin",
    summary: "Create redemption codes",
    description:
      "Admins only. Creates one code (or `count` alike) worth `credits`, redeemable `max_uses` times in all and `per_user` times per person (default 1), until `expires_at`; `validity_days` makes the granted credits expire. The codes are shown once (only their hash is kept).",
    auth: "admin",
    source: "docs/payments.md",
    body: CreateCodesSchema,
    response: z.strictObject({
      code: z.string().describe("the first (or only) code"),
      codes: z.array(z.string()),
      credits: z.int(),
      max_uses: z.int(),
      per_user: z.int(),
      expires_at: isoTime().nullable(),
    }),
    successMessage: "codes created",
    errors: [...AUTH_ERRORS, "FORBIDDEN", "INVALID_PARAMS", ...COMMON],
    example: { credits: 100, max_uses: 50, expires_at: "2027-01-01T00:00:00.000Z" },
  },
  "/api/redeem": {
    method: "POST",
    tag: "Billing",
    summary: "Redeem a code",
    description:
      "Signed-in users. Grants the code's credits through the ledger. Unknown, expired, disabled and used-up codes answer `invalid or expired code`; a code this person already redeemed (also from an account since deleted) `code already redeemed`. Ten refused codes per hour per user and per address, then HTTP 429.",
    auth: "user",
    source: "docs/payments.md",
    body: RedeemSchema,
    response: z.strictObject({ credits: z.int(), left_credits: z.int() }),
    successMessage: "code redeemed",
    errors: [...AUTH_ERRORS, "INVALID_PARAMS", "CODE_INVALID", "CODE_USED", ...COMMON],
    example: { code: "ATL-ABCDE-FGHJK-LMNPQ-RSTUV" },
  },
} as const satisfies Record<string, EndpointDef>;
