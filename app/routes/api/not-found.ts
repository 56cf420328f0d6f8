import { errorResponse } from "~/http/api.server";
import { AppError } from "~/lib/errors";
import type { Route } from "./+types/not-found";

// Unknown /api/* paths answer in the envelope, not with an HTML page.
export const loader = ({ request }: Route.LoaderArgs) => errorResponse(new AppError("NOT_FOUND"), request);
export const action = ({ request }: Route.ActionArgs) => errorResponse(new AppError("NOT_FOUND"), request);
