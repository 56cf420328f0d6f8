/** Session helpers for UI routes (pages use sessions only; keys are for the API). */
import { redirect } from "react-router";
import { isSafeRedirect } from "~/domain/auth/redirects";
import { findUserById, isAdmin, type UserRow } from "~/domain/users/users.server";
import { requireSameOrigin } from "./csrf.server";
import { sessionUser } from "./identity.server";
import { getServices } from "./services.server";

export interface UiUser {
  user: UserRow;
  isAdmin: boolean;
}

export async function getUiUser(request: Request): Promise<UiUser | null> {
  const services = getServices();
  const userId = await sessionUser(request, services);
  const user = userId ? await findUserById(services.db, userId) : undefined;
  // A suspended account's pages are those of a signed-out visitor; signing in again is refused (auth.server.ts).
  if (!user || user.suspendedAt) return null;
  return { user, isAdmin: isAdmin(services.config, user) };
}

/** Redirects to the sign-in page (coming back here afterwards) when signed out. */
export async function requireUiUser(request: Request): Promise<UiUser> {
  const ui = await getUiUser(request);
  if (!ui) {
    const url = new URL(request.url);
    throw redirect(`/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`);
  }
  return ui;
}

/**
 * Where to go after sign-in: `next` resolved against PUBLIC_URL as a browser
 * would, followed only when it passes the same rule as better-auth's redirect
 * parameters (`isSafeRedirect`: PUBLIC_URL's origin, no path reading as a
 * host), so `/\\evil`, `/%09/evil`, `//evil`, `/.//evil` and `https://evil` all fall back.
 */
export function safeNext(
  next: string | null | undefined,
  fallback = "/studio",
  publicUrl = getServices().config.publicUrl,
): string {
  return next && isSafeRedirect(next, publicUrl) ? new URL(next, publicUrl).href : fallback;
}

/**
 * The sign-out form's post: ends the session and returns the cookie-clearing headers. A post from another site is
 * refused (CROSS_SITE): the route is a resource route, which React Router's action origin check skips, and it calls
 * better-auth's API directly, past better-auth's own origin check.
 */
export async function signOut(request: Request): Promise<Headers> {
  const { auth, config } = getServices();
  requireSameOrigin(request, config);
  const { headers } = await auth.api.signOut({ headers: request.headers, returnHeaders: true });
  return headers;
}
