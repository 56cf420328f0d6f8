import { handleAuthRequest } from "~/http/auth.server";
import { getServices } from "~/http/services.server";
import type { Route } from "./+types/auth";

// better-auth's own HTTP API: /api/auth/sign-up/email, /sign-in/email, /sign-out, /get-session …
// It sees the client address the server vouches for (its per-IP limiter keys on it) and a bounded body.
const handle = (request: Request) => {
  const { auth, config } = getServices();
  return handleAuthRequest(auth, config, request);
};
export const loader = ({ request }: Route.LoaderArgs) => handle(request);
export const action = ({ request }: Route.ActionArgs) => handle(request);
