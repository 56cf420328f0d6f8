/**
 * Suspending an account (docs/operating.md "Suspending an account", docs/decisions/120-account-suspension.md).
 *
 * While `user.suspended_at` is set, every request with one of the account's sessions or keys is refused
 * (`account suspended`, HTTP 403: identity.server.ts), on every process at once, because each request reads its
 * user row; a new session is refused at sign-in (auth.server.ts) and a task is refused in its creation
 * transaction. Suspending also cancels the unfinished tasks uncharged and disables the active webhooks with
 * SUSPENDED_WEBHOOK_REASON. Lifting clears the mark and enables exactly those webhooks again; sessions and keys
 * were never touched, so they work again at once.
 */
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { z } from "zod";
import { type Db, many, one, run } from "#db/client";
import { user, webhookDeliveries, webhookEndpoints } from "#db/schema";
import { cancelAllUnfinished } from "~/domain/generations/cancel-all.server";
import type { ProviderRegistry } from "~/domain/generations/registry.server";
import { type Clock, iso } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { resolveUserRef } from "./users.server";

/** The reason a suspension writes on the account's webhooks; lifting enables the ones carrying it. */
export const SUSPENDED_WEBHOOK_REASON = "disabled: the account is suspended";
export const MAX_SUSPEND_REASON = 500;

export const SuspendUserSchema = z
  .object({
    email: z
      .string({ error: "email must be a string" })
      .trim()
      .toLowerCase()
      .min(1, "email must not be empty")
      .optional(),
    user_uuid: z
      .string({ error: "user_uuid must be a string" })
      .trim()
      .min(1, "user_uuid must not be empty")
      .optional(),
    suspended: z.boolean({ error: "suspended must be true or false" }),
    reason: z
      .string({ error: "reason must be a string" })
      .trim()
      .max(MAX_SUSPEND_REASON, `reason too long (max ${MAX_SUSPEND_REASON})`)
      .optional(),
  })
  .refine((v) => (v.email === undefined) !== (v.user_uuid === undefined), "give either email or user_uuid");

export interface SuspendResult {
  uuid: string;
  email: string;
  suspended: boolean;
  suspended_at: string | null;
  reason: string | null;
  canceled_tasks: number;
  webhooks: number;
}

export async function setSuspended(
  deps: { db: Db; clock: Clock; providers?: ProviderRegistry },
  input: z.output<typeof SuspendUserSchema>,
  actorId: string,
): Promise<SuspendResult> {
  const { db, clock } = deps;
  const target = await resolveUserRef(db, input);
  if (target.deletedAt) throw new AppError("USER_NOT_FOUND");
  if (target.id === actorId) throw new AppError("INVALID_PARAMS", { reason: "you cannot suspend your own account" });
  const now = clock.now();
  const changed = await db.tx(function* (tx) {
    const row = yield* one(
      tx
        .update(user)
        .set(
          input.suspended
            ? { suspendedAt: new Date(now), suspendedReason: input.reason || null, updatedAt: new Date(now) }
            : { suspendedAt: null, suspendedReason: null, updatedAt: new Date(now) },
        )
        .where(
          and(
            eq(user.id, target.id),
            input.suspended ? isNull(user.suspendedAt) : isNotNull(user.suspendedAt),
            isNull(user.deletedAt),
          ),
        )
        .returning({ suspendedAt: user.suspendedAt, suspendedReason: user.suspendedReason }),
    );
    if (!row) return { row: undefined, webhooks: 0 };
    if (!input.suspended) {
      const enabled = yield* many(
        tx
          .update(webhookEndpoints)
          .set({ status: "active", disabledReason: null, failingSince: null })
          .where(
            and(
              eq(webhookEndpoints.userId, target.id),
              eq(webhookEndpoints.status, "disabled"),
              eq(webhookEndpoints.disabledReason, SUSPENDED_WEBHOOK_REASON),
            ),
          )
          .returning({ id: webhookEndpoints.id }),
      );
      return { row, webhooks: enabled.length };
    }
    const disabled = yield* many(
      tx
        .update(webhookEndpoints)
        .set({ status: "disabled", disabledReason: SUSPENDED_WEBHOOK_REASON })
        .where(and(eq(webhookEndpoints.userId, target.id), eq(webhookEndpoints.status, "active")))
        .returning({ id: webhookEndpoints.id }),
    );
    for (const h of disabled)
      yield* run(
        tx
          .update(webhookDeliveries)
          .set({ status: "failed", nextAttemptAt: null, lastError: "endpoint disabled" })
          .where(
            and(
              eq(webhookDeliveries.endpointId, h.id),
              eq(webhookDeliveries.status, "pending"),
              isNull(webhookDeliveries.leaseOwner),
            ),
          ),
      );
    return { row, webhooks: disabled.length };
  });
  // After the mark is committed: a task created meanwhile is refused by its own transaction, so none escapes this.
  const canceled = input.suspended ? await cancelAllUnfinished(deps, target.id) : 0;
  const current = changed.row ?? {
    suspendedAt: input.suspended ? target.suspendedAt : null,
    suspendedReason: input.suspended ? target.suspendedReason : null,
  };
  return {
    uuid: target.id,
    email: target.email,
    suspended: current.suspendedAt !== null,
    suspended_at: iso(current.suspendedAt),
    reason: current.suspendedReason,
    canceled_tasks: canceled,
    webhooks: changed.webhooks,
  };
}
