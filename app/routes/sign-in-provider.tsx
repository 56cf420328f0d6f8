import { redirect } from "react-router";
import { authPost } from "~/http/auth-forms.server";
import { requireSameOrigin } from "~/http/csrf.server";
import { getServices } from "~/http/services.server";
import { safeNext } from "~/http/session.server";
import { signInProviders, toProvider } from "~/http/sign-in-providers.server";
import { isAppError } from "~/lib/errors";
import type { Route } from "./+types/sign-in-provider";

/**
 * "Continue with …": a plain form post (no JavaScript needed) that starts the provider's round trip through
 * better-auth (state and PKCE verifier kept by it) and sends the browser to the provider. The invite code of the
 * sign-up link rides in the OAuth state to the account it makes (auth.server.ts, user create hook).
 */
export async function action({ request }: Route.ActionArgs) {
  const { config } = getServices();
  const back = (error: string) => redirect(`/sign-in?error=${encodeURIComponent(error)}`);
  try {
    requireSameOrigin(request, config);
  } catch (error) {
    if (isAppError(error)) return back("cross_site");
    throw error;
  }
  const form = await request.formData();
  const provider = signInProviders(config).find((p) => p.id === form.get("provider"));
  if (!provider) return back("provider_not_configured");
  const next = form.get("next");
  const ref = form.get("ref");
  const reply = await authPost(request, "/sign-in/social", {
    provider: provider.id,
    callbackURL: safeNext(typeof next === "string" ? next : null),
    errorCallbackURL: "/sign-in",
    requestSignUp: true,
    additionalData: typeof ref === "string" && /^[A-Za-z0-9]{4,32}$/.test(ref) ? { ref } : undefined,
  });
  const url = reply.data?.url;
  if (!reply.ok || typeof url !== "string") return back(reply.code?.toLowerCase() ?? "provider_unavailable");
  return toProvider(config, url, reply.headers);
}

export const loader = () => redirect("/sign-in");
