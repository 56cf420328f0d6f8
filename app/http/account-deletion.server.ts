/**
 * Wiring for account export and deletion (app/domain/account/): the storage, the provider registry and the Stripe
 * adapter the domain is given, the age of the request's session, and the cookies a deleted account's browser drops.
 */
import { checkDeletion, DeleteAccountSchema, type DeleteDeps, deleteAccount } from "~/domain/account/delete.server";
import { stripeClient } from "~/domain/billing/stripe.server";
import type { UserRow } from "~/domain/users/users.server";
import { isAppError } from "~/lib/errors";
import { getGenerationRuntime } from "./generation-runtime.server";
import type { Services } from "./services.server";
import { sessionsChanged } from "./session-lookup.server";

export function deletionDeps(services: Services): DeleteDeps {
  const { config, db, clock } = services;
  const runtime = getGenerationRuntime();
  return {
    db,
    clock,
    storage: runtime.storage,
    files: runtime.files,
    providers: runtime.providers,
    cancelSubscription: config.STRIPE_SECRET_KEY
      ? async (id) => {
          await stripeClient(config).subscriptions.cancel(id);
        }
      : undefined,
    sessionsChanged,
  };
}

/** When the request's session was made (a sign-in), or null without one. */
export async function sessionCreatedAt(services: Services, request: Request): Promise<number | null> {
  const found = await services.auth.api.getSession({ headers: request.headers }).catch(() => null);
  return found ? new Date(found.session.createdAt).getTime() : null;
}

/** Set-Cookie values that remove the session cookies (the session rows are gone already). */
export async function clearedSessionCookies(services: Services): Promise<string[]> {
  const ctx = await services.auth.$context;
  return [ctx.authCookies.sessionToken, ctx.authCookies.sessionData].map(
    (c) =>
      `${c.name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${c.attributes.secure || c.name.startsWith("__Host-") ? "; Secure" : ""}`,
  );
}

/** The account page's "Delete account" form: the same checks and work as POST /api/account/delete. */
export async function deleteFromAccountPage(
  services: Services,
  request: Request,
  form: FormData,
  u: UserRow,
): Promise<{ error: string } | { headers: Headers }> {
  const parsed = DeleteAccountSchema.safeParse({
    confirm: form.get("confirm") ?? "",
    password: form.get("password") || undefined,
  });
  if (!parsed.success) return { error: parsed.error.issues[0]?.message ?? "invalid request" };
  try {
    await checkDeletion(services.db, u, parsed.data, {
      now: services.clock.now(),
      sessionCreatedAt: () => sessionCreatedAt(services, request),
    });
    await deleteAccount(deletionDeps(services), u);
  } catch (error) {
    if (isAppError(error)) return { error: error.message.replace(/^invalid params: /, "") };
    throw error;
  }
  const headers = new Headers();
  for (const c of await clearedSessionCookies(services)) headers.append("Set-Cookie", c);
  return { headers };
}
