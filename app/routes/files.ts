import { getGenerationRuntime } from "~/http/generation-runtime.server";
import { serveFile } from "~/http/serve-file.server";
import { getServices } from "~/http/services.server";
import type { Route } from "./+types/files";

// An input file (docs/api.md "Files"): to its owner (session or X-API-Key), or to anyone holding a signed link.
export const loader = ({ request, params }: Route.LoaderArgs) =>
  serveFile({ services: getServices(), store: getGenerationRuntime().files }, request, params.fileId);
export const action = loader;
