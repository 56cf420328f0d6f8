/**
 * better-auth: email + password sessions, mounted at /api/auth/*.
 * User ids are UUIDs; the user row carries Atelier's invite fields.
 */
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { eq } from "drizzle-orm";
import { randomInt } from "node:crypto";
import type { Db } from "#db/client";
import * as schema from "#db/schema";
import type { Clock } from "./clock";
import { DAY_MS } from "./clock";
import type { Config } from "./config.server";
import { grantCredits } from "~/domain/credits/ledger.server";

const INVITE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export const newInviteCode = () => Array.from({ length: 8 }, () => INVITE_ALPHABET[randomInt(INVITE_ALPHABET.length)]).join("");

/** The referrer's uuid for an invite code, or null when the code is unknown. */
function referrerOf(db: Db, code: unknown): string | null {
  if (typeof code !== "string" || !/^[A-Za-z0-9]{4,32}$/.test(code)) return null;
  const row = db.select({ id: schema.user.id }).from(schema.user).where(eq(schema.user.inviteCode, code.toUpperCase())).get();
  return row?.id ?? null;
}

export function createAuth(config: Config, db: Db, clock: Clock) {
  const secure = config.publicUrl.startsWith("https://");
  return betterAuth({
    appName: "Atelier",
    baseURL: config.publicUrl,
    basePath: "/api/auth",
    secret: config.authSecret,
    trustedOrigins: [config.publicUrl, ...config.TRUSTED_ORIGINS],
    database: drizzleAdapter(db, {
      provider: "sqlite",
      schema: { user: schema.user, session: schema.session, account: schema.account, verification: schema.verification },
    }),
    emailAndPassword: { enabled: true, autoSignIn: true, minPasswordLength: 8, maxPasswordLength: 128 },
    user: {
      additionalFields: {
        inviteCode: { type: "string", input: false, required: false },
        invitedBy: { type: "string", input: false, required: false },
        isAffiliate: { type: "boolean", input: false, required: false, defaultValue: false },
      },
    },
    advanced: {
      database: { generateId: "uuid" },
      useSecureCookies: secure,
      cookiePrefix: "atelier",
      // better-auth skips its origin (CSRF) check when NODE_ENV=test; Atelier checks in every mode.
      disableOriginCheck: false,
    },
    // Sign-in throttling is better-auth's own; spec 8.2 leaves API sessions unlimited.
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    databaseHooks: {
      user: {
        create: {
          before: async (user, ctx) => {
            const ref = (ctx?.body as Record<string, unknown> | undefined)?.ref ?? ctx?.query?.ref;
            return {
              data: {
                ...user,
                inviteCode: newInviteCode(),
                invitedBy: referrerOf(db, ref),
                isAffiliate: false,
              },
            };
          },
          after: async (user) => {
            if (config.SIGNUP_CREDITS > 0) {
              const now = clock.now();
              grantCredits(
                db,
                { userId: user.id, amount: config.SIGNUP_CREDITS, source: "signup", expiresAt: now + 365 * DAY_MS },
                { now: () => now },
              );
            }
          },
        },
      },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;
