/**
 * When the owner of an address takes its account back (a password reset, or a verification opened by someone who
 * was not signed in to the account), whoever held it before must lose every way in that was made before: sessions,
 * API keys, and the webhooks that send the account's events elsewhere (docs/design.md §5). One transaction, guarded
 * writes; the caches of other processes notice within their revalidation bound.
 */
import { and, eq, inArray, isNull, lte } from "drizzle-orm";
import { type Db, many, run } from "#db/client";
import { apiKeys, session, webhookDeliveries, webhookEndpoints } from "#db/schema";
import { forgetApiKey } from "~/domain/api-keys/authenticate.server";
import { type Clock, iso } from "~/lib/clock";

export type TakeBackReason = "password reset" | "address confirmed";

export interface TakenBack {
  sessions: number;
  keys: number;
  webhooks: number;
}

/** Revokes what the account had up to `before` (ms): sessions deleted, keys revoked, webhooks disabled. */
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
    return { sessions, keys: keys.map((k) => k.id), webhooks: hooks.length };
  });
  for (const id of result.keys) forgetApiKey(db, id);
  return { sessions: result.sessions, keys: result.keys.length, webhooks: result.webhooks };
}
