/**
 * Deleting an account at its owner's request (docs/privacy.md "Delete", docs/decisions/121-deleted-accounts.md).
 *
 * Asked with the account's e-mail as confirmation and its password (an account without one: a sign-in within
 * RECENT_SIGN_IN_MS). Then, in this order, so that a failure leaves the account whole rather than half gone:
 * unfinished tasks are canceled uncharged; a Stripe subscription is canceled (a refusal stops here); one
 * transaction revokes every way in (sessions, sign-in methods, API keys, webhooks), removes the personal data
 * (prompts, options, results' addresses, feedback, webhook payloads) and anonymises the user row, which stays with
 * the money records the operator must keep (orders, payments, the credit ledger: untouched, so still balanced);
 * last, the result files are deleted from storage (local disk or the bucket).
 */
import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { type Db, many, run } from "#db/client";
import {
  account,
  apiKeys,
  deletedEmails,
  feedback,
  files,
  generations,
  idempotencyKeys,
  orders,
  passkey,
  session,
  signInAttempts,
  twoFactor,
  user,
  verification,
  webhookEndpoints,
  webhookEvents,
} from "#db/schema";
import { forgetApiKey } from "~/domain/api-keys/authenticate.server";
import { beginSignIn, emailKey } from "~/domain/auth/sign-in-throttle.server";
import { cancelAllUnfinished } from "~/domain/generations/cancel-all.server";
import type { ProviderRegistry } from "~/domain/generations/registry.server";
import { isAccountPassword } from "~/domain/users/account-password.server";
import type { UserRow } from "~/domain/users/users.server";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { log } from "~/lib/log.server";
import type { FileStore } from "~/storage/files.server";
import type { ResultStorage } from "~/storage/types";

/** An account without a password proves it is its owner by a sign-in at most this long ago. */
export const RECENT_SIGN_IN_MS = 10 * 60_000;
export const DELETED_NAME = "Deleted user";
export const deletedEmailOf = (userId: string) => `deleted-${userId}@deleted.invalid`;

export const DeleteAccountSchema = z.object({
  confirm: z
    .string({ error: "confirm must be your account's e-mail address" })
    .trim()
    .toLowerCase()
    .min(1, "confirm must be your account's e-mail address")
    .max(320, "confirm must be your account's e-mail address"),
  password: z.string({ error: "password must be a string" }).max(128, "password is incorrect").optional(),
});

export interface DeleteDeps {
  db: Db;
  clock: Clock;
  storage: Pick<ResultStorage, "deletePrefix">;
  /** Input files (uploads, fetched image inputs): their rows go in the transaction, their bytes after it. */
  files?: Pick<FileStore, "delete">;
  providers?: ProviderRegistry;
  /** Cancels a provider subscription at once (Stripe); absent when payments are not configured. */
  cancelSubscription?: (externalId: string) => Promise<void>;
  /** Called once the sessions are gone (this process forgets the cookies it remembered). */
  sessionsChanged?: () => void;
}

export interface DeletedAccount {
  uuid: string;
  deleted_at: string;
  canceled_tasks: number;
  canceled_subscriptions: number;
  removed_results: number;
}

/** Whether the account signs in with a password (better-auth's credential method). */
export async function hasPassword(db: Db, userId: string): Promise<boolean> {
  const credential = await db.one(
    db
      .select({ hash: account.password })
      .from(account)
      .where(and(eq(account.userId, userId), eq(account.providerId, "credential"))),
  );
  return Boolean(credential?.hash);
}

/** Refuses unless the request proves it comes from the account's owner (docs/privacy.md). */
export async function checkDeletion(
  db: Db,
  u: UserRow,
  input: z.output<typeof DeleteAccountSchema>,
  ctx: { now: number; sessionCreatedAt: () => Promise<number | null> },
): Promise<void> {
  if (u.deletedAt) throw new AppError("USER_NOT_FOUND");
  if (input.confirm !== u.email.toLowerCase())
    throw new AppError("INVALID_PARAMS", { reason: "confirm must be your account's e-mail address" });
  if (await hasPassword(db, u.id)) {
    if (!input.password) throw new AppError("INVALID_PARAMS", { reason: "password required" });
    // The sign-in throttle counts these guesses too: a stolen session must not become a password oracle.
    if (!(await beginSignIn(db, u.email, ctx.now)).allowed) throw new AppError("RATE_LIMITED");
    if (!(await isAccountPassword(db, u.id, input.password)))
      throw new AppError("INVALID_PARAMS", { reason: "password is incorrect" });
    return;
  }
  const signedInAt = await ctx.sessionCreatedAt();
  if (signedInAt === null || ctx.now - signedInAt > RECENT_SIGN_IN_MS)
    throw new AppError("INVALID_PARAMS", { reason: "sign in again, then delete the account within 10 minutes" });
}

export async function deleteAccount(deps: DeleteDeps, u: UserRow): Promise<DeletedAccount> {
  const { db, clock } = deps;
  const canceledTasks = await cancelAllUnfinished(deps, u.id);

  const subscriptions = await db.many(
    db
      .select({ orderNo: orders.orderNo, externalId: orders.externalId })
      .from(orders)
      .where(
        and(
          eq(orders.userId, u.id),
          eq(orders.provider, "stripe"),
          eq(orders.kind, "subscription"),
          eq(orders.status, "paid"),
        ),
      ),
  );
  let canceledSubscriptions = 0;
  for (const s of subscriptions) {
    if (!s.externalId || !deps.cancelSubscription) continue;
    try {
      await deps.cancelSubscription(s.externalId);
    } catch {
      // Still billed at Stripe: nothing is deleted, so the person can try again (or the operator cancels it).
      throw new AppError("UPSTREAM_FAILED", { provider: "stripe" });
    }
    canceledSubscriptions++;
  }

  const now = clock.now();
  const result = await db.tx(function* (tx) {
    const keys = yield* many(tx.delete(apiKeys).where(eq(apiKeys.userId, u.id)).returning({ id: apiKeys.id }));
    yield* run(tx.delete(session).where(eq(session.userId, u.id)));
    yield* run(tx.delete(account).where(eq(account.userId, u.id)));
    // Every way in goes with the account: a passkey left behind would still sign in to the anonymised row.
    yield* run(tx.delete(passkey).where(eq(passkey.userId, u.id)));
    yield* run(tx.delete(twoFactor).where(eq(twoFactor.userId, u.id)));
    yield* run(tx.delete(verification).where(eq(verification.identifier, u.email)));
    yield* run(tx.delete(signInAttempts).where(eq(signInAttempts.emailHash, emailKey(u.email))));
    yield* run(tx.delete(webhookEndpoints).where(eq(webhookEndpoints.userId, u.id)));
    yield* run(tx.delete(webhookEvents).where(eq(webhookEvents.userId, u.id)));
    yield* run(tx.delete(idempotencyKeys).where(eq(idempotencyKeys.userId, u.id)));
    yield* run(tx.delete(feedback).where(eq(feedback.userId, u.id)));
    const inputFiles = yield* many(
      tx.delete(files).where(eq(files.userId, u.id)).returning({ storageKey: files.storageKey }),
    );
    // Marked deleted before its tasks leave the gallery: the gallery's triggers then drop its lists at once instead of
    // renumbering what is left after each task (docs/data-layer.md).
    yield* run(
      tx
        .update(user)
        .set({ deletedAt: new Date(now) })
        .where(eq(user.id, u.id)),
    );
    const tasks = yield* many(
      tx
        .update(generations)
        .set({
          prompt: "",
          options: "{}",
          resultUrls: null,
          errorMessage: null,
          upstreamTaskId: null,
          hiddenAt: new Date(now),
        })
        .where(eq(generations.userId, u.id))
        .returning({ id: generations.id }),
    );
    if (subscriptions.length > 0 && deps.cancelSubscription)
      yield* run(
        tx
          .update(orders)
          .set({ status: "canceled" })
          .where(
            and(
              inArray(
                orders.orderNo,
                subscriptions.map((s) => s.orderNo),
              ),
              eq(orders.status, "paid"),
            ),
          ),
      );
    yield* run(
      tx
        .update(user)
        .set({
          email: deletedEmailOf(u.id),
          name: DELETED_NAME,
          image: null,
          emailVerified: false,
          inviteCode: `deleted-${u.id}`,
          isAffiliate: false,
          role: "user",
          twoFactorEnabled: false,
          deletedAt: new Date(now),
          updatedAt: new Date(now),
        })
        .where(eq(user.id, u.id)),
    );
    yield* run(
      tx
        .insert(deletedEmails)
        .values({ emailHash: emailKey(u.email), deletedAt: now })
        .onConflictDoNothing({ target: deletedEmails.emailHash }),
    );
    return {
      keys: keys.map((k) => k.id),
      tasks: tasks.map((t) => t.id),
      inputFiles: inputFiles.map((f) => f.storageKey),
    };
  });
  deps.sessionsChanged?.();
  for (const id of result.keys) forgetApiKey(db, id);
  // After the commit: a file removed before it would be missing from an account that still exists.
  let removed = 0;
  for (const genId of result.tasks) {
    if (!deps.storage.deletePrefix) break;
    await deps.storage.deletePrefix(`${genId}/`);
    removed++;
  }
  for (const key of result.inputFiles)
    await deps.files?.delete(key).catch((error) => log.warn("removing a deleted account's file failed", { error }));
  return {
    uuid: u.id,
    deleted_at: new Date(now).toISOString(),
    canceled_tasks: canceledTasks,
    canceled_subscriptions: canceledSubscriptions,
    removed_results: removed,
  };
}
