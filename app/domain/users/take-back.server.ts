/**
 * When the owner of an address takes its account back (a password reset, or a verification opened by someone who
 * was not signed in to the account), whoever held it before must lose every way in that was not proven by the
 * mailbox (docs/decisions/138-taking-an-account-back.md): sessions, API keys, the webhooks that send the account's
 * events elsewhere, passkeys, two-factor (secret, backup codes, trusted devices, pending two-factor sign-ins) and the
 * sign-in providers linked to it. Only the password the reset just set survives. One transaction, guarded writes;
 * the caches of other processes notice within their revalidation bound.
 */
import { and, eq, inArray, isNull, like, lte, ne, or } from "drizzle-orm";
import { type Db, many, run } from "#db/client";
import {
  account,
  apiKeys,
  passkey,
  session,
  twoFactor,
  user,
  verification,
  webhookDeliveries,
  webhookEndpoints,
} from "#db/schema";
import { forgetApiKey } from "~/domain/api-keys/authenticate.server";
import { type Clock, iso } from "~/lib/clock";

export type TakeBackReason = "password reset" | "address confirmed";

export interface TakenBack {
  sessions: number;
  keys: number;
  webhooks: number;
  passkeys: number;
  /** Whether two-factor was on (or being set up) and is now off. */
  twoFactor: boolean;
  trustedDevices: number;
  /** Linked sign-in providers removed (every account row but the password's). */
  providers: number;
}

/** better-auth's two-factor plugin keeps trusted devices and pending two-factor sign-ins as verification rows. */
const TWO_FACTOR_VERIFICATIONS = or(
  like(verification.identifier, "trust-device-%"),
  like(verification.identifier, "2fa-%"),
);

/**
 * Revokes what the account had up to `before` (ms): sessions deleted, keys revoked, webhooks disabled; passkeys,
 * two-factor and linked providers removed.
 */
export async function revokeAccessMadeBefore(
  deps: { db: Db; clock: Clock },
  input: { userId: string; before: number; reason: TakeBackReason },
): Promise<TakenBack> {
  const { db, clock } = deps;
  const now = clock.now();
  const cut = new Date(input.before);
  const why = `disabled ${iso(now)}: made before the account's ${input.reason}; check its URL and rotate its secret, then resend to enable it`;
  const result = await db.tx(function* (tx) {
    const sessions = yield* run(
      tx.delete(session).where(and(eq(session.userId, input.userId), lte(session.createdAt, cut))),
    );
    const keys = yield* many(
      tx
        .update(apiKeys)
        .set({ status: "revoked", revokedAt: new Date(now) })
        .where(and(eq(apiKeys.userId, input.userId), eq(apiKeys.status, "active"), lte(apiKeys.createdAt, cut)))
        .returning({ id: apiKeys.id }),
    );
    const hooks = yield* many(
      tx
        .update(webhookEndpoints)
        .set({ status: "disabled", disabledReason: why })
        .where(
          and(
            eq(webhookEndpoints.userId, input.userId),
            eq(webhookEndpoints.status, "active"),
            lte(webhookEndpoints.createdAt, input.before),
          ),
        )
        .returning({ id: webhookEndpoints.id }),
    );
    if (hooks.length > 0) {
      yield* run(
        tx
          .update(webhookDeliveries)
          .set({ status: "failed", nextAttemptAt: null, lastError: "endpoint disabled" })
          .where(
            and(
              inArray(
                webhookDeliveries.endpointId,
                hooks.map((h) => h.id),
              ),
              eq(webhookDeliveries.status, "pending"),
              isNull(webhookDeliveries.leaseOwner),
            ),
          ),
      );
    }
    const passkeys = yield* run(tx.delete(passkey).where(eq(passkey.userId, input.userId)));
    const secrets = yield* run(tx.delete(twoFactor).where(eq(twoFactor.userId, input.userId)));
    const twoFactorWasOn = yield* run(
      tx
        .update(user)
        .set({ twoFactorEnabled: false })
        .where(and(eq(user.id, input.userId), eq(user.twoFactorEnabled, true))),
    );
    const devices = yield* many(
      tx
        .delete(verification)
        .where(and(eq(verification.value, input.userId), TWO_FACTOR_VERIFICATIONS))
        .returning({ identifier: verification.identifier }),
    );
    const providers = yield* run(
      tx.delete(account).where(and(eq(account.userId, input.userId), ne(account.providerId, "credential"))),
    );
    return {
      sessions,
      keys: keys.map((k) => k.id),
      webhooks: hooks.length,
      passkeys,
      twoFactor: secrets + twoFactorWasOn > 0,
      trustedDevices: devices.filter((d) => d.identifier.startsWith("trust-device-")).length,
      providers,
    };
  });
  for (const id of result.keys) forgetApiKey(db, id);
  return { ...result, keys: result.keys.length };
}
