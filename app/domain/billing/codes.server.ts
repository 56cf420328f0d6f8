/**
 * Redemption codes (docs/payments.md "Redemption codes", docs/decisions/163-redemption-codes.md): admins create
 * codes worth credits; a user redeems one once (or `per_user` times), keyed by the hash of their e-mail so a deleted
 * and re-created account cannot redeem again. Only a code's SHA-256 is stored; the lookup is by that hash (an equality
 * on a digest leaks nothing of the code). A redemption is one synchronous transaction under the user's row lock: the
 * use count moves only through `UPDATE … WHERE uses < max_uses`, so two redemptions of the last use grant once.
 */
import { createHash, randomBytes } from "node:crypto";
import { and, count, eq, lt, sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, lockRow, one, run } from "#db/client";
import { redemptionCodes, redemptionUses, user } from "#db/schema";
import { emailKey } from "~/domain/auth/sign-in-throttle.server";
import { getCredits, grantCredits } from "~/domain/credits/ledger.server";
import { take } from "~/domain/rate-limits/limiter.server";
import { type Clock, DAY_MS } from "~/lib/clock";
import { AppError } from "~/lib/errors";

export const MAX_CODE_CREDITS = 1_000_000;
/** Failed guesses allowed per user and per address in REDEEM_WINDOW_MS before redeeming answers 429. */
export const REDEEM_ATTEMPTS = 10;
export const REDEEM_WINDOW_MS = 60 * 60_000;

const int = (name: string, max: number) =>
  z
    .number({ error: `${name} must be an integer from 1 to ${max}` })
    .int(`${name} must be an integer from 1 to ${max}`)
    .min(1, `${name} must be an integer from 1 to ${max}`)
    .max(max, `${name} must be an integer from 1 to ${max}`);

export const CreateCodesSchema = z.object({
  credits: int("credits", MAX_CODE_CREDITS),
  max_uses: int("max_uses", 1_000_000),
  per_user: int("per_user", 1_000).optional(),
  expires_at: z.iso.datetime({ error: "expires_at must be an ISO 8601 time" }).nullish(),
  validity_days: int("validity_days", 36_500).nullish(),
  count: int("count", 1_000).optional(),
});
export const RedeemSchema = z.object({ code: z.string({ error: "code must be a string" }).trim().max(100) });

export const hashCode = (code: string) => createHash("sha256").update(code.trim().toUpperCase()).digest("hex");

const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
function newCode(): string {
  const bytes = randomBytes(20);
  let out = "";
  for (const b of bytes) out += ALPHABET[b % 32];
  return `ATL-${out.slice(0, 5)}-${out.slice(5, 10)}-${out.slice(10, 15)}-${out.slice(15, 20)}`;
}

/** Creates `count` codes (default 1) alike; the codes themselves are returned once and never stored. */
export async function createCodes(
  db: Db,
  input: z.output<typeof CreateCodesSchema>,
  adminId: string | null,
  clock: Clock,
): Promise<{ codes: string[]; credits: number; max_uses: number; per_user: number; expires_at: string | null }> {
  const now = clock.now();
  const expiresAt = input.expires_at ? Date.parse(input.expires_at) : null;
  if (expiresAt !== null && expiresAt <= now)
    throw new AppError("INVALID_PARAMS", { reason: "expires_at must be in the future" });
  const codes = Array.from({ length: input.count ?? 1 }, newCode);
  await db.tx(function* (tx) {
    for (const code of codes)
      yield* run(
        tx.insert(redemptionCodes).values({
          id: Bun.randomUUIDv7(),
          codeHash: hashCode(code),
          prefix: code.slice(0, 9),
          credits: input.credits,
          maxUses: input.max_uses,
          perUser: input.per_user ?? 1,
          expiresAt: expiresAt === null ? null : new Date(expiresAt),
          validityDays: input.validity_days ?? null,
          createdBy: adminId,
          createdAt: new Date(now),
        }),
      );
  });
  return {
    codes,
    credits: input.credits,
    max_uses: input.max_uses,
    per_user: input.per_user ?? 1,
    expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString(),
  };
}

/**
 * Redeems a code for a user. A refusal counts against the user's and the address's allowance of failed guesses
 * (REDEEM_ATTEMPTS per REDEEM_WINDOW_MS); over it, RATE_LIMITED before the code is even looked up.
 */
export async function redeemCode(
  db: Db,
  args: { userId: string; code: string; ip: string | null },
  clock: Clock,
): Promise<{ credits: number; left_credits: number }> {
  const policy = { limit: REDEEM_ATTEMPTS, windowMs: REDEEM_WINDOW_MS };
  const buckets = [`redeem-fail:user:${args.userId}`, ...(args.ip ? [`redeem-fail:ip:${args.ip}`] : [])];
  for (const bucket of buckets) {
    const tat = await db.raw<{ tat: number | string }>("SELECT tat FROM rate_limits WHERE bucket = ?").one(bucket);
    // A full allowance of failures is a tat a whole window ahead of now.
    if (tat && Number(tat.tat) - clock.now() * 1000 > (REDEEM_WINDOW_MS - REDEEM_WINDOW_MS / REDEEM_ATTEMPTS) * 1000)
      throw Object.assign(new AppError("RATE_LIMITED"), { headers: { "Retry-After": "60" } });
  }
  try {
    return await db.tx(function* (tx) {
      yield* lockRow("user", args.userId);
      const now = clock.now();
      const code = yield* one(
        tx
          .select()
          .from(redemptionCodes)
          .where(eq(redemptionCodes.codeHash, hashCode(args.code))),
      );
      if (!code || code.disabledAt || (code.expiresAt && code.expiresAt.getTime() <= now))
        throw new AppError("CODE_INVALID");
      const owner = yield* one(tx.select({ email: user.email }).from(user).where(eq(user.id, args.userId)));
      if (!owner) throw new AppError("CODE_INVALID");
      const emailHash = emailKey(owner.email);
      const used = yield* one(
        tx
          .select({ n: count() })
          .from(redemptionUses)
          .where(and(eq(redemptionUses.codeId, code.id), eq(redemptionUses.emailHash, emailHash))),
      );
      if (Number(used?.n ?? 0) >= code.perUser) throw new AppError("CODE_USED");
      const taken = yield* run(
        tx
          .update(redemptionCodes)
          .set({ uses: sql`${redemptionCodes.uses} + 1` })
          .where(and(eq(redemptionCodes.id, code.id), lt(redemptionCodes.uses, code.maxUses))),
      );
      if (taken === 0) throw new AppError("CODE_INVALID");
      const at: Clock = { now: () => now };
      const grant = yield* grantCredits(
        tx,
        {
          userId: args.userId,
          amount: code.credits,
          source: "code",
          expiresAt: code.validityDays ? now + code.validityDays * DAY_MS : null,
          note: code.prefix,
        },
        at,
      );
      yield* run(
        tx.insert(redemptionUses).values({
          id: Bun.randomUUIDv7(),
          codeId: code.id,
          userId: args.userId,
          emailHash,
          grantId: grant.id,
          createdAt: new Date(now),
        }),
      );
      return { credits: code.credits, left_credits: (yield* getCredits(tx, args.userId, at)).left_credits };
    });
  } catch (e) {
    if (e instanceof AppError && (e.code === "CODE_INVALID" || e.code === "CODE_USED"))
      for (const bucket of buckets) await take(db, bucket, policy, clock.now());
    throw e;
  }
}
