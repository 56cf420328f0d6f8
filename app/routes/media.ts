import { isTakenDown } from "~/domain/reports/takedowns.server";
import { getServices } from "~/http/services.server";
import { serveMedia } from "~/storage/serve.server";
import type { Route } from "./+types/media";

const gone = () =>
  new Response("gone: this result was removed under the content policy", {
    status: 410,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });

// Result files stored on local disk (docs/design.md §4): /media/<gen_id>/<n>-<random>.<ext>. A task taken down
// answers 410 Gone on every node from its takedown on (docs/safety.md "Reports and takedowns").
async function media(request: Request, key: string) {
  const services = getServices();
  const genId = key.split("/", 1)[0] ?? "";
  // Only a well-formed task id is looked up (PostgreSQL refuses a NUL in text: `/media/%00` must stay a 404).
  if (/^[A-Za-z0-9_-]{1,100}$/.test(genId) && (await isTakenDown(services.db, genId))) return gone();
  return serveMedia(request, services.config.mediaDir, key);
}
export const loader = ({ request, params }: Route.LoaderArgs) => media(request, params["*"] ?? "");
export const action = ({ request, params }: Route.ActionArgs) => media(request, params["*"] ?? "");
