import { redirect } from "react-router";
import { errorResponse } from "~/http/api.server";
import { signOut } from "~/http/session.server";
import { isAppError } from "~/lib/errors";
import type { Route } from "./+types/sign-out";

export async function action({ request }: Route.ActionArgs) {
  try {
    return redirect("/?notice=signed-out", { headers: await signOut(request) });
  } catch (error) {
    if (isAppError(error) && error.code === "CROSS_SITE") return errorResponse(error, request);
    return redirect("/");
  }
}

export const loader = () => redirect("/");
