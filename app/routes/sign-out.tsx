import { redirect } from "react-router";
import { getServices } from "~/lib/services.server";
import type { Route } from "./+types/sign-out";

export async function action({ request }: Route.ActionArgs) {
  try {
    const { headers } = await getServices().auth.api.signOut({ headers: request.headers, returnHeaders: true });
    return redirect("/?notice=signed-out", { headers });
  } catch {
    return redirect("/");
  }
}

export const loader = () => redirect("/");
