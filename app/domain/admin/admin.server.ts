/**
 * Admin actions (docs/design.md §6), shared by the admin endpoints and the CLI:
 * grant credits, record a subscription, list users with balance and tier.
 * Inputs are validated by the schemas below; failures read
 * `invalid params: <reason>`.
 */

import { count, desc, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "#db/client";
import { user } from "#db/schema";
import { offsetOf } from "~/domain/paging";
import { type Clock, DAY_MS, iso } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";
import { getCredits, getCreditsMany, grantCredits } from "../credits/ledger.server";
import {
  createSubscription,
  INTERVALS,
  isPremium,
  type SubscriptionInfo,
  toSubscriptionInfo,
} from "../subscriptions/subscriptions.server";
import { isAdmin, resolveUserRef } from "../users/users.server";

export const MAX_ADMIN_GRANT = 1_000_000;
export const MAX_EXPIRES_IN_DAYS = 36_500;
export const LIST_USERS_MAX_PAGE_SIZE = 100;

const who = {
  email: z
    .string({ error: "email must be a string" })
    .trim()
    .toLowerCase()
    .min(1, "email must not be empty")
    .optional(),
  user_uuid: z.string({ error: "user_uuid must be a string" }).trim().min(1, "user_uuid must not be empty").optional(),
};
const oneUser = (v: { email?: string; user_uuid?: string }) => (v.email === undefined) !== (v.user_uuid === undefined);
const ONE_USER = "give either email or user_uuid";

const text = (name: string, max = 200) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, `${name} is required`)
    .max(max, `${name} too long (max ${max})`);
const positiveInt = (name: string, max: number) =>
  z
    .number({ error: `${name} must be an integer from 1 to ${max}` })
    .int(`${name} must be an integer from 1 to ${max}`)
    .min(1, `${name} must be an integer from 1 to ${max}`)
    .max(max, `${name} must be an integer from 1 to ${max}`);

export const GrantCreditsSchema = z
  .object({
    ...who,
    credits: positiveInt("credits", MAX_ADMIN_GRANT),
    expires_in_days: positiveInt("expires_in_days", MAX_EXPIRES_IN_DAYS).nullish(),
  })
  .refine(oneUser, ONE_USER);

export const CreateSubscriptionSchema = z
  .object({
    ...who,
    product_id: text("product_id"),
    product_name: text("product_name"),
    interval: z.enum(INTERVALS, { error: `interval must be one of ${INTERVALS.join(", ")}` }),
    amount: z
      .number({ error: "amount must be a non-negative integer" })
      .int("amount must be a non-negative integer")
      .min(0, "amount must be a non-negative integer")
      .max(1_000_000_000, "amount too large"),
    sub_id: text("sub_id").nullish(),
    period_end: z.iso.datetime({ offset: true, error: "period_end must be an ISO 8601 timestamp" }).nullish(),
  })
  .refine(oneUser, ONE_USER);

const pageInt = (name: string) =>
  z
    .number({ error: `${name} must be an integer ≥ 1` })
    .int(`${name} must be an integer ≥ 1`)
    .min(1, `${name} must be an integer ≥ 1`);
export const ListUsersSchema = z.object({
  page: pageInt("page").default(1),
  page_size: pageInt("page_size")
    .default(20)
    .transform((n) => Math.min(n, LIST_USERS_MAX_PAGE_SIZE)),
});

/** Maps a failed parse to `invalid params: <first reason>`. */
export function adminInvalid(error: z.ZodError): AppError {
  const reason = error.issues[0]?.message;
  return new AppError("INVALID_PARAMS", reason ? { reason } : undefined);
}

export interface Deps {
  db: Db;
  clock: Clock;
  config: Pick<Config, "ADMIN_EMAILS">;
}

export async function adminGrantCredits({ db, clock }: Deps, input: z.output<typeof GrantCreditsSchema>) {
  const u = await resolveUserRef(db, input);
  return db.tx(function* (tx) {
    const now = clock.now();
    const at: Clock = { now: () => now };
    const expiresAt = input.expires_in_days ? now + input.expires_in_days * DAY_MS : null;
    const grant = yield* grantCredits(tx, { userId: u.id, amount: input.credits, source: "admin", expiresAt }, at);
    return {
      uuid: u.id,
      email: u.email,
      granted: grant.amount,
      expires_at: iso(grant.expiresAt),
      ...(yield* getCredits(tx, u.id, at)),
    };
  });
}

export type AdminSubscription = SubscriptionInfo & { user_uuid: string; email: string; period_end: string | null };

export async function adminCreateSubscription(
  { db, clock }: Deps,
  input: z.output<typeof CreateSubscriptionSchema>,
): Promise<AdminSubscription> {
  const u = await resolveUserRef(db, input);
  const order = await db.exec(
    createSubscription(
      db,
      {
        userId: u.id,
        productId: input.product_id,
        productName: input.product_name,
        interval: input.interval,
        amount: input.amount,
        subId: input.sub_id ?? undefined,
        periodEnd: input.period_end ? Date.parse(input.period_end) : undefined,
      },
      clock,
    ),
  );
  return { ...toSubscriptionInfo(order), user_uuid: u.id, email: u.email, period_end: iso(order.periodEnd) };
}

export type Tier = "admin" | "premium" | "standard";

export interface AdminUserEntry {
  uuid: string;
  email: string;
  nickname: string;
  created_at: string;
  left_credits: number;
  total_credits: number;
  tier: Tier;
  /** An admin suspended the account (docs/operating.md). */
  suspended: boolean;
}

/** Users newest first, with balance and rate-limit tier. */
export async function adminListUsers(
  { db, clock, config }: Deps,
  input: z.output<typeof ListUsersSchema>,
  search?: string,
) {
  // The admin page's search: part of an email or nickname (% and _ are literal).
  const pattern = search ? `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const where = pattern
    ? or(
        sql`lower(${user.email}) like lower(${pattern}) escape '\\'`,
        sql`lower(${user.name}) like lower(${pattern}) escape '\\'`,
      )
    : undefined;
  const total = Number((await db.one(db.select({ n: count() }).from(user).where(where)))?.n ?? 0);
  const rows = await db.many(
    db
      .select()
      .from(user)
      .where(where)
      .orderBy(desc(user.createdAt), desc(user.id))
      .limit(input.page_size)
      .offset(offsetOf(input.page, input.page_size)),
  );
  const balances = await db.exec(
    getCreditsMany(
      db,
      rows.map((r) => r.id),
      clock,
    ),
  );
  const users: AdminUserEntry[] = [];
  for (const r of rows) {
    users.push({
      uuid: r.id,
      email: r.email,
      nickname: r.name,
      created_at: iso(r.createdAt)!,
      left_credits: balances.get(r.id)?.left_credits ?? 0,
      total_credits: balances.get(r.id)?.total_credits ?? 0,
      tier: isAdmin(config, r) ? "admin" : (await isPremium(db, r.id, clock)) ? "premium" : "standard",
      suspended: r.suspendedAt !== null,
    });
  }
  return { users, total, page: input.page, page_size: input.page_size };
}
