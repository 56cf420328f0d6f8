import { timingSafeEqual } from "node:crypto";
import { scrapeGauges } from "~/domain/ops/gauges.server";
import { getServices } from "~/http/services.server";
import { getConfig } from "~/lib/config.server";
import { getMetrics } from "~/lib/metrics.server";

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

let gaugesSet = false;

// GET /metrics: Prometheus text for this process; off (404) without METRICS_TOKEN, else only with that bearer token.
export async function loader({ request }: { request: Request }) {
  const metrics = getMetrics();
  const token = getConfig().METRICS_TOKEN;
  if (!metrics || !token)
    return new Response("Not Found\n", { status: 404, headers: { "Content-Type": "text/plain" } });
  const given = /^Bearer (.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
  if (!sameSecret(given, token))
    return new Response("Unauthorized\n", {
      status: 401,
      headers: { "Content-Type": "text/plain", "WWW-Authenticate": 'Bearer realm="metrics"' },
    });
  if (!gaugesSet) {
    const { db, clock } = getServices();
    metrics.setGauges(scrapeGauges({ db, clock }));
    gaugesSet = true;
  }
  return new Response(await metrics.registry.metrics(), {
    headers: { "Content-Type": metrics.registry.contentType, "Cache-Control": "no-store" },
  });
}
