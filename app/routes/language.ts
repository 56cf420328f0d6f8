import { redirect } from "react-router";
import { setUserLanguage } from "~/domain/users/language.server";
import { errorResponse } from "~/http/api.server";
import { requireSameOrigin } from "~/http/csrf.server";
import { getServices } from "~/http/services.server";
import { getUiUser, safeNext } from "~/http/session.server";
import { isAppError } from "~/lib/errors";
import { serializeLanguageCookie } from "~/lib/i18n.server";
import { isLanguage, LANGUAGE_COOKIE } from "~/lib/languages";
import type { Route } from "./+types/language";

/**
 * The language menu's form post (works without JavaScript): remembers the choice in the `lng` cookie and goes back
 * to the page it came from, without a `?lng=` that would outvote the cookie.
 */
export async function action({ request }: Route.ActionArgs) {
  const { config } = getServices();
  try {
    requireSameOrigin(request, config);
  } catch (error) {
    if (isAppError(error)) return errorResponse(error, request);
    throw error;
  }
  const form = await request.formData();
  const lng = form.get(LANGUAGE_COOKIE);
  const back = new URL(safeNext(String(form.get("redirectTo") ?? ""), "/"), config.publicUrl);
  back.searchParams.delete(LANGUAGE_COOKIE);
  if (!isLanguage(lng)) return redirect(back.pathname + back.search);
  // Signed in: the account's language too, so its e-mails follow the choice.
  const ui = await getUiUser(request);
  if (ui) await setUserLanguage(getServices().db, ui.user.id, lng);
  return redirect(back.pathname + back.search + back.hash, {
    headers: { "Set-Cookie": serializeLanguageCookie(lng, config.publicUrl.startsWith("https:")) },
  });
}

export const loader = () => redirect("/");
