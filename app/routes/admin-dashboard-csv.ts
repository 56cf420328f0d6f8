import { dashboardCsv, loadDashboard, parseRange } from "~/domain/admin/dashboard.server";
import { providerCostCents } from "~/domain/admin/provider-cost.server";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import type { Route } from "./+types/admin-dashboard-csv";

// GET /admin/dashboard.csv?range=7|30|90: the dashboard's tables for a spreadsheet (admins only; others get a 404).
export async function loader({ request }: Route.LoaderArgs) {
  const ui = await requireUiUser(request);
  if (!ui.isAdmin) return new Response("Not found\n", { status: 404, headers: { "Content-Type": "text/plain" } });
  const { db, clock } = getServices();
  const range = parseRange(new URL(request.url).searchParams.get("range"));
  const dashboard = await loadDashboard({ db, clock, costOf: providerCostCents }, range);
  return new Response(dashboardCsv(dashboard), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="atelier-dashboard-${dashboard.to.slice(0, 10)}-${range}d.csv"`,
      "Cache-Control": "no-store",
    },
  });
}
