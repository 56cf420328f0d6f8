/**
 * better-auth: email + password sessions, mounted at /api/auth/*.
 * User ids are UUIDs; the user row carries Atelier's invite fields.
 *
 * Two modes, chosen by the mail transport (docs/decisions/035-mail-transport-modes.md):
 * - `SMTP_URL` set: an account must verify its e-mail before it can sign in;
 *   sign-up answers the same for new and taken addresses and signs nobody in;
 *   the sign-up bonus is granted on verification.
 * - no mail transport: accounts work at once (sign-up signs in, the bonus comes
 *   with it) and the verification and reset links are written to the log.
 * In both, an ADMIN_EMAILS address counts only once verified (users.server.ts), and such an address never signs
 * in before its mailbox is proven: without mail it is never verified from the log, the operator promotes it
 * (`atelier admin promote`, which asks for the account's password). A password reset, and a verification opened by
 * someone not signed in to the account, take the account back: what was made before is revoked (take-back.server.ts).
 */

import { randomInt } from "node:crypto";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError, createAuthMiddleware, getOAuthState, isAPIError } from "better-auth/api";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "#db/client";
import * as schema from "#db/schema";
import { isDisposableEmail } from "~/domain/auth/disposable-email.server";
import {
  alreadyRegisteredMail,
  RESET_LINK_HOURS,
  resetPasswordMail,
  VERIFY_LINK_HOURS,
  verificationMail,
} from "~/domain/auth/emails";
import { mayMailAccount } from "~/domain/auth/mail-throttle.server";
import { profileProblem } from "~/domain/auth/profile";
import { neutralProviderRefusal, providerIdentityProblem } from "~/domain/auth/provider-identity";
import { unsafeRedirectIn } from "~/domain/auth/redirects";
import { beginSignIn, clearSignIn } from "~/domain/auth/sign-in-throttle.server";
import { grantSignupBonus } from "~/domain/credits/signup.server";
import { clientIpOf } from "~/domain/demo/access.server";
import { revokeAccessMadeBefore, type TakeBackReason } from "~/domain/users/take-back.server";
import { findUserById, isAdminEmail } from "~/domain/users/users.server";
import { readBodyCapped } from "~/lib/body.server";
import type { Clock } from "~/lib/clock";
import { type Config, requireAuthSecret } from "~/lib/config.server";
import { currentClientIp, log } from "~/lib/log.server";
import { createMailer, type Mail, type Mailer, sendInBackground } from "~/lib/mail.server";
import { publicOriginAliases } from "~/lib/origins";
import { authPluginsOf } from "./auth-plugins.server";
import { sessionsChanged } from "./session-lookup.server";
import { socialProvidersOf } from "./sign-in-providers.server";

const INVITE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export const newInviteCode = () =>
  Array.from({ length: 8 }, () => INVITE_ALPHABET[randomInt(INVITE_ALPHABET.length)]).join("");

/**
 * The client address better-auth's per-IP limiter reads. Only the server sets
 * it (withClientIp replaces whatever a client sent); better-auth would
 * otherwise trust a client's own X-Forwarded-For.
 */
export const CLIENT_IP_HEADER = "x-atelier-client-ip";

export function withClientIp(config: Config, request: Request): Request {
  const headers = new Headers(request.headers);
  headers.delete(CLIENT_IP_HEADER);
  const ip = clientIpOf(config, request, currentClientIp());
  if (ip) headers.set(CLIENT_IP_HEADER, ip);
  return new Request(request, { headers });
}

/**
 * The most an account request to better-auth may send: better-auth reads its bodies itself,
 * so without this up to Bun's 8 MiB ceiling was read and parsed (~0.45 s of CPU for 3 MB of nested arrays).
 * Its requests are an e-mail, a password, a name: 256 KiB is far above any of them, and still lets an over-long
 * name be answered by its own rule (`name too long`, accounts/profile-fields.test.ts sends 200,000 characters).
 */
export const AUTH_MAX_BODY_BYTES = 256 * 1024;

/** better-auth's HTTP API for one request: the body bounded (413 past AUTH_MAX_BODY_BYTES), the client address vouched for. */
export async function handleAuthRequest(auth: Auth, config: Config, request: Request): Promise<Response> {
  let bounded = request;
  if (request.body) {
    const raw = await readBodyCapped(request, AUTH_MAX_BODY_BYTES);
    if (raw === null)
      return Response.json({ code: "PAYLOAD_TOO_LARGE", message: "Request body too large" }, { status: 413 });
    const headers = new Headers(request.headers);
    headers.delete("transfer-encoding");
    headers.set("content-length", String(raw.byteLength));
    bounded = new Request(request.url, {
      method: request.method,
      headers,
      body: raw as Uint8Array<ArrayBuffer>,
      signal: request.signal,
    });
  }
  const response = await auth.handler(withClientIp(config, bounded));
  return new URL(request.url).pathname.startsWith(PROVIDER_CALLBACK_PATH) ? neutralCallback(response) : response;
}

const PROVIDER_CALLBACK_PATH = "/api/auth/callback/";

/**
 * A provider callback refused for a taken address (better-auth's `account_not_linked`) and one refused for a free
 * address the provider does not vouch for end on the same redirect (docs/decisions/139-provider-answers-and-cookies.md).
 */
function neutralCallback(response: Response): Response {
  const location = response.headers.get("location");
  const neutral = location ? neutralProviderRefusal(location) : null;
  if (!neutral) return response;
  const headers = new Headers(response.headers);
  headers.set("location", neutral);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** The referrer's uuid for an invite code, or null when the code is unknown. */
async function referrerOf(db: Db, code: unknown): Promise<string | null> {
  if (typeof code !== "string" || !/^[A-Za-z0-9]{4,32}$/.test(code)) return null;
  const row = await db.one(
    db.select({ id: schema.user.id }).from(schema.user).where(eq(schema.user.inviteCode, code.toUpperCase())),
  );
  return row?.id ?? null;
}

function checkProfile(fields: { name?: unknown; image?: unknown }) {
  const problem = profileProblem(fields);
  if (problem) throw new APIError("BAD_REQUEST", problem);
}

const SIGN_IN_PATH = "/sign-in/email";
const SIGN_UP_PATH = "/sign-up/email";
const RESET_REQUEST_PATH = "/request-password-reset";
const RESET_REQUEST_REPLY = "If this email exists in our system, check your email for the reset link";
const INTERNAL_HEADER = "x-atelier-internal";
const emailOf = (body: unknown) => (body as { email?: unknown } | undefined)?.email;

/** The calls the instance makes on itself (typed here: the instance's own type depends on these options). */
interface SelfCalls {
  getSession(args: { headers: Headers }): Promise<{ user: { id: string } } | null>;
  requestPasswordReset(args: { body: { email: string; redirectTo?: string }; headers: Headers }): Promise<unknown>;
}

export const DISPOSABLE_EMAIL_REFUSED =
  "Sign-ups from disposable e-mail addresses are not accepted. Use an address you keep.";

/** Refused before any session exists, whatever the route that would make one. */
export const ADMIN_ADDRESS_UNVERIFIED =
  "This address is an administrator address: it signs in only once it is confirmed by e-mail, or after the operator runs `atelier admin promote` on the server";

/** The public user of a sign-up reply: the same fields for a new account and for better-auth's stand-in of a taken one. */
function publicSignUpUser(u: Record<string, unknown>) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    image: u.image || null,
    emailVerified: false,
    createdAt: u.createdAt,
    updatedAt: u.updatedAt,
  };
}

export function createAuth(config: Config, db: Db, clock: Clock, mailer: Mailer = createMailer(config)) {
  requireAuthSecret(config);
  const secure = config.publicUrl.startsWith("https://");
  const verifyByMail = mailer.kind === "smtp";
  // At most ACCOUNT_MAILS_PER_HOUR account mails per recipient (mail-throttle.server.ts); decided in the
  // background with the sending, so the answer and its timing are the same whether or not a mail goes out.
  const sendAccountMail = (mail: Mail) =>
    sendInBackground(mailer, mail, () => mayMailAccount(db, mail.to, clock.now()));
  const takeBack = async (userId: string, reason: TakeBackReason) => {
    const revoked = await revokeAccessMadeBefore({ db, clock }, { userId, before: clock.now(), reason });
    sessionsChanged();
    const { twoFactor, ...counts } = revoked;
    if (twoFactor || Object.values(counts).some((n) => n > 0)) log.info("account taken back", { reason, ...revoked });
  };
  // Requests better-auth makes for itself (the background half of a reset request) carry this, never a client.
  const internalMark = crypto.randomUUID();
  const self: { api?: SelfCalls } = {};
  const instance = betterAuth({
    appName: "Atelier",
    // better-auth's own messages ("Invalid password", …) as lines of our JSON log, with the request id.
    logger: {
      level: "warn",
      log: (level, message, ...args) =>
        log[level](`better-auth: ${message}`, args.length ? { details: args } : undefined),
    },
    baseURL: config.publicUrl,
    basePath: "/api/auth",
    secret: config.authSecret,
    trustedOrigins: [...publicOriginAliases(config.publicUrl), ...config.TRUSTED_ORIGINS],
    // The same tables on either engine: on PostgreSQL their twins from db/schema.pg.ts (db.tables).
    database: drizzleAdapter(db.drizzle, {
      provider: db.engine === "postgres" ? "pg" : "sqlite",
      schema: {
        user: db.tables.user,
        session: db.tables.session,
        account: db.tables.account,
        verification: db.tables.verification,
        rateLimit: db.tables.rateLimit,
        twoFactor: db.tables.twoFactor,
        passkey: db.tables.passkey,
      },
    }),
    socialProviders: socialProvidersOf(config),
    plugins: authPluginsOf(config),
    account: {
      // An existing account is joined by a provider only when the provider vouches for the address and the account's
      // own address is confirmed too (else whoever registered it first with a password would keep a way in).
      accountLinking: { enabled: true, trustedProviders: [], requireLocalEmailVerified: true },
    },
    // A failed provider round trip (refused, replayed, expired) ends on the sign-in page, which explains the code.
    onAPIError: { errorURL: `${config.publicUrl}/sign-in` },
    emailAndPassword: {
      enabled: true,
      minPasswordLength: 8,
      maxPasswordLength: 128,
      // With mail, nobody is signed in before proving the address; better-auth then also answers a sign-up
      // for a taken address exactly like one for a new address (and we mail the owner instead).
      requireEmailVerification: verifyByMail,
      autoSignIn: !verifyByMail,
      onExistingUserSignUp: async ({ user }) => sendAccountMail(alreadyRegisteredMail(user, config.publicUrl)),
      sendResetPassword: async ({ user, token }) =>
        sendAccountMail(
          resetPasswordMail(user, `${config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`),
        ),
      resetPasswordTokenExpiresIn: RESET_LINK_HOURS * 3600,
      revokeSessionsOnPasswordReset: true,
      // The reset link proved the mailbox: the account's sign-in failures no longer count, and whoever held the
      // account before loses every way in but the new password (take-back.server.ts).
      onPasswordReset: async ({ user }) => {
        await clearSignIn(db, user.email);
        await takeBack(user.id, "password reset");
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      sendOnSignIn: verifyByMail,
      autoSignInAfterVerification: false,
      expiresIn: VERIFY_LINK_HOURS * 3600,
      sendVerificationEmail: async ({ user, token }) => {
        // The log is no mailbox: a link there would verify whoever chose the password, and make them an admin.
        if (!verifyByMail && isAdminEmail(config, user.email)) {
          log.warn("verification link not written: an ADMIN_EMAILS address needs SMTP_URL", {
            hint: "without mail, make the admin with `atelier admin promote --email <address>` on the server",
          });
          return;
        }
        await sendAccountMail(
          verificationMail(user, `${config.publicUrl}/verify-email?token=${encodeURIComponent(token)}`),
        );
      },
      afterEmailVerification: async (user, request) => {
        await grantSignupBonus(db, user.id, config.SIGNUP_CREDITS, clock);
        // Opened by someone not signed in to this account: the mailbox's owner, who now controls it.
        const current = request ? await self.api?.getSession({ headers: request.headers }).catch(() => null) : null;
        if (current?.user.id !== user.id) await takeBack(user.id, "address confirmed");
      },
    },
    user: {
      // Creating a user, linking a provider to one, or signing in through a provider: refused unless the provider
      // vouches for the address (app/domain/auth/provider-identity.ts), before anything is written.
      validateUserInfo: ({ user, source }) => providerIdentityProblem(user, source),
      additionalFields: {
        inviteCode: { type: "string", input: false, required: false },
        invitedBy: { type: "string", input: false, required: false },
        isAffiliate: { type: "boolean", input: false, required: false, defaultValue: false },
      },
    },
    advanced: {
      // UUIDs. On PostgreSQL better-auth's "uuid" leaves the id to a database default our text ids do not have: generate them here too.
      database: { generateId: db.engine === "postgres" ? () => crypto.randomUUID() : "uuid" },
      // Behind HTTPS every cookie better-auth or a plugin sets (session, two-factor, trusted device, passkey
      // challenge, OAuth state, and any added later) is `__Host-` (Secure, Path=/, no Domain): a sibling subdomain
      // cannot plant or shadow one, as it can a `__Secure-` cookie. better-auth's own prefix would be `__Secure-`,
      // so it is off and the prefix is part of every name (docs/decisions/139-provider-answers-and-cookies.md).
      useSecureCookies: false,
      cookiePrefix: secure ? "__Host-atelier" : "atelier",
      defaultCookieAttributes: secure ? { secure: true, path: "/" } : undefined,
      // better-auth skips its origin (CSRF) check when NODE_ENV=test; Atelier checks in every mode.
      disableOriginCheck: false,
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    // Per IP, shared by every process through the database; its built-in rules hold sign-in and sign-up to
    // 3 requests per 10 s and reset/verification e-mails to 3 per minute. Spec 8.2 leaves API sessions unlimited.
    rateLimit: {
      enabled: config.AUTH_RATE_LIMIT,
      storage: "database",
      modelName: "rateLimit",
      customRules: { "/sign-up/email": { window: 600, max: 10 } },
    },
    telemetry: { enabled: false },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path === RESET_REQUEST_PATH && ctx.headers?.get(INTERNAL_HEADER) !== internalMark) {
          // The same work for every address: answered at once, the lookup, token and mail done afterwards.
          const body = ctx.body as { email?: unknown; redirectTo?: unknown } | undefined;
          if (
            z.email().safeParse(body?.email).success &&
            (body?.redirectTo === undefined || typeof body.redirectTo === "string") &&
            !unsafeRedirectIn([body as Record<string, unknown>], config.publicUrl, config.TRUSTED_ORIGINS)
          ) {
            const headers = new Headers({ [INTERNAL_HEADER]: internalMark });
            setTimeout(() => {
              self.api
                ?.requestPasswordReset({ body: body as { email: string; redirectTo?: string }, headers })
                .catch((error) => log.error("password reset request failed", { error }));
            }, 0);
            return ctx.json({ status: true, message: RESET_REQUEST_REPLY });
          }
        }
        // Redirect targets stay on the site as paths (app/domain/auth/redirects.ts); refused like better-auth refuses a foreign one.
        if (
          unsafeRedirectIn(
            [ctx.query as Record<string, unknown> | undefined, ctx.body as Record<string, unknown> | undefined],
            config.publicUrl,
            config.TRUSTED_ORIGINS,
          )
        ) {
          throw new APIError("FORBIDDEN", { code: "INVALID_CALLBACK_URL", message: "Invalid callbackURL" });
        }
        if (ctx.path !== SIGN_IN_PATH) return;
        const email = emailOf(ctx.body);
        if (typeof email !== "string") return;
        const verdict = await beginSignIn(db, email, clock.now());
        if (!verdict.allowed) {
          const seconds = Math.ceil(verdict.retryAfterMs / 1000);
          throw new APIError(
            "TOO_MANY_REQUESTS",
            {
              code: "TOO_MANY_ATTEMPTS",
              message: `Too many failed sign-ins for this account. Try again in ${Math.ceil(seconds / 60)} minutes.`,
            },
            { "Retry-After": String(seconds) },
          );
        }
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path === SIGN_UP_PATH && verifyByMail) {
          // A new account and better-auth's stand-in for a taken address answer alike: our own fields
          // (invite code, inviter) would tell them apart.
          const returned = ctx.context.returned as { user?: Record<string, unknown> } | undefined;
          if (returned && !isAPIError(returned) && returned.user)
            return ctx.json({ token: null, user: publicSignUpUser(returned.user) });
          return;
        }
        if (ctx.path !== SIGN_IN_PATH) return;
        const email = emailOf(ctx.body);
        const returned = ctx.context.returned;
        // A session, or "verify your e-mail first": either way the password was right.
        const passwordRight =
          !isAPIError(returned) ||
          returned.body?.code === "EMAIL_NOT_VERIFIED" ||
          returned.body?.code === "ADMIN_EMAIL_NOT_VERIFIED";
        if (typeof email === "string" && passwordRight) await clearSignIn(db, email);
      }),
    },
    databaseHooks: {
      // The fast session lookup remembers verified cookies for up to a second: every deletion or change of a
      // session (sign-out, revocation, password change, refresh) or of a user makes it read the rows again.
      session: {
        create: {
          before: async (session) => {
            const owner = await findUserById(db, session.userId);
            if (owner && !owner.emailVerified && owner.role !== "admin" && isAdminEmail(config, owner.email))
              throw new APIError("FORBIDDEN", { code: "ADMIN_EMAIL_NOT_VERIFIED", message: ADMIN_ADDRESS_UNVERIFIED });
            if (owner?.suspendedAt)
              throw new APIError("FORBIDDEN", { code: "ACCOUNT_SUSPENDED", message: "account suspended" });
          },
        },
        update: { after: async () => sessionsChanged() },
        delete: { before: async () => sessionsChanged(), after: async () => sessionsChanged() },
      },
      account: {
        create: {
          // A provider account, new with its user or linked later: the bonus (unless this provider account or the
          // address had one), or the mark that it came to an account that has it.
          after: async (created) => {
            if (created.providerId === "credential") return;
            const owner = await findUserById(db, created.userId);
            if (owner && (!verifyByMail || owner.emailVerified))
              await grantSignupBonus(db, owner.id, config.SIGNUP_CREDITS, clock);
          },
        },
      },
      user: {
        delete: { before: async () => sessionsChanged(), after: async () => sessionsChanged() },
        create: {
          before: async (user, ctx) => {
            checkProfile(user);
            // Password and provider sign-ups alike: free credits are not for throwaway mailboxes.
            if (isDisposableEmail(user.email))
              throw new APIError("BAD_REQUEST", { code: "DISPOSABLE_EMAIL", message: DISPOSABLE_EMAIL_REFUSED });
            // A provider sign-up carries the invite code in its OAuth state (app/routes/sign-in-provider.ts).
            const ref =
              (ctx?.body as Record<string, unknown> | undefined)?.ref ??
              ctx?.query?.ref ??
              (await getOAuthState().catch(() => null))?.ref;
            return {
              data: {
                ...user,
                image: user.image || null,
                inviteCode: newInviteCode(),
                invitedBy: await referrerOf(db, ref),
                isAffiliate: false,
              },
            };
          },
          after: async (user) => {
            // A provider sign-up's bonus waits for its account row (account create hook): it is granted once per
            // provider account too. With mail the bonus waits for the verified address (afterEmailVerification).
            if (await getOAuthState().catch(() => null)) return;
            if (!verifyByMail || user.emailVerified) await grantSignupBonus(db, user.id, config.SIGNUP_CREDITS, clock);
          },
        },
        update: {
          before: async (user) => {
            checkProfile(user);
            return user.image === "" ? { data: { ...user, image: null } } : undefined;
          },
        },
      },
    },
  });
  self.api = instance.api as unknown as SelfCalls;
  return instance;
}

export type Auth = ReturnType<typeof createAuth>;
