import { redirect } from "react-router";
import { authPost } from "~/http/auth-forms.server";
import { requireSameOrigin } from "~/http/csrf.server";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { signInProviders, toProvider } from "~/http/sign-in-providers.server";
import { isAppError } from "~/lib/errors";
import type { Route } from "./+types/account-sign-in";

/**
 * The account page's sign-in method forms (plain posts, no JavaScript needed): link a provider (a round trip to it,
 * back to /account) or unlink one while another way in remains (better-auth refuses to unlink the last one).
 * Each ends on /account with `?signin=<outcome>`, which the page explains.
 */
export async function action({ request }: Route.ActionArgs) {
  await requireUiUser(request);
  const { config } = getServices();
  const back = (outcome: string) => redirect(`/account?signin=${encodeURIComponent(outcome)}#sign-in-methods`);
  try {
    requireSameOrigin(request, config);
  } catch (error) {
    if (isAppError(error)) return back("cross_site");
    throw error;
  }
  const form = await request.formData();
  switch (form.get("intent")) {
    case "link": {
      const provider = signInProviders(config).find((p) => p.id === form.get("provider"));
      if (!provider) return back("provider_not_configured");
      const reply = await authPost(request, "/link-social", {
        provider: provider.id,
        callbackURL: "/account?signin=linked#sign-in-methods",
        errorCallbackURL: "/account",
      });
      const url = reply.data?.url;
      if (!reply.ok || typeof url !== "string") return back(reply.code?.toLowerCase() ?? "provider_unavailable");
      return toProvider(config, url, reply.headers);
    }
    case "unlink": {
      const accountId = form.get("account");
      if (typeof accountId !== "string" || !accountId) return back("account_not_found");
      const reply = await authPost(request, "/unlink-account", { accountId });
      return back(reply.ok ? "unlinked" : (reply.code?.toLowerCase() ?? "unlink_failed"));
    }
    case "passkey-delete": {
      const id = form.get("passkey");
      if (typeof id !== "string" || !id) return back("account_not_found");
      const reply = await authPost(request, "/passkey/delete-passkey", { id });
      return back(reply.ok ? "passkey_removed" : "account_not_found");
    }
    default:
      return back("unknown_action");
  }
}

export const loader = () => redirect("/account#sign-in-methods");
