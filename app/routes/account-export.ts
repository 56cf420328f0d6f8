import { redirect } from "react-router";
import { exportAccount } from "~/domain/account/export.server";
import { errorResponse } from "~/http/api.server";
import { requireSameOrigin } from "~/http/csrf.server";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { isAppError } from "~/lib/errors";
import type { Route } from "./+types/account-export";

// The account page's "Download my data" form (works without JavaScript): the archive of POST /api/account/export as a file.
export async function action({ request }: Route.ActionArgs) {
  const services = getServices();
  try {
    requireSameOrigin(request, services.config);
  } catch (error) {
    if (isAppError(error)) return errorResponse(error, request);
    throw error;
  }
  const { user } = await requireUiUser(request);
  const archive = await exportAccount(services, user);
  return new Response(JSON.stringify(archive, null, 2), {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="atelier-export-${archive.exported_at.slice(0, 10)}.json"`,
      "Cache-Control": "no-store",
    },
  });
}

export const loader = () => redirect("/account#your-data");
