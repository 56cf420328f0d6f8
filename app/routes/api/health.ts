import { checkHealth } from "~/domain/health.server";
import { getServices } from "~/http/services.server";
import { envelopeResponse, okBody } from "~/lib/envelope";

// GET (and POST) /api/health: for load balancers and operators; no auth.
async function health() {
  const { db, config } = getServices();
  const data = await checkHealth(db, config);
  return envelopeResponse(okBody(data), { status: data.database === "ok" ? 200 : 503 });
}
export const loader = health;
export const action = health;
