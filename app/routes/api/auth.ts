import { getServices } from "~/lib/services.server";
import type { Route } from "./+types/auth";

// better-auth's own HTTP API: /api/auth/sign-up/email, /sign-in/email, /sign-out, /get-session …
export const loader = ({ request }: Route.LoaderArgs) => getServices().auth.handler(request);
export const action = ({ request }: Route.ActionArgs) => getServices().auth.handler(request);
