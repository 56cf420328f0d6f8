import { adminInvalid } from "~/domain/admin/admin.server";
import { listReports } from "~/domain/reports/list-reports.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/admin/reports/list");

// docs/safety.md "Reports and takedowns": the queue, earliest due first.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: adminInvalid,
  handler: async ({ services, input }) => ({ data: { reports: await listReports(services, input) } }),
});
export const loader = methodNotAllowed;
