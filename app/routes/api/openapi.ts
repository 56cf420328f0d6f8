import { buildOpenApi } from "~/http/openapi.server";
import { getServices } from "~/http/services.server";

// GET /api/openapi.json: the API reference generated from the endpoint table (app/http/endpoints.server.ts).
let cached: string | undefined;
export function loader() {
  cached ??= JSON.stringify(buildOpenApi(getServices().config.publicUrl));
  return new Response(cached, {
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-cache" },
  });
}
