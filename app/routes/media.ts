import { getServices } from "~/http/services.server";
import { serveMedia } from "~/storage/serve.server";
import type { Route } from "./+types/media";

// Result files stored on local disk (docs/design.md §4): /media/<gen_id>/<n>-<random>.<ext>.
export const loader = ({ request, params }: Route.LoaderArgs) =>
  serveMedia(request, getServices().config.mediaDir, params["*"] ?? "");
export const action = ({ request, params }: Route.ActionArgs) =>
  serveMedia(request, getServices().config.mediaDir, params["*"] ?? "");
