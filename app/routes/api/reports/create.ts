import { adminInvalid } from "~/domain/admin/admin.server";
import { createReport } from "~/domain/reports/create-report.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/reports");

// docs/safety.md "Reports and takedowns": {gen_id, reason, details?} → the report (the first one, when repeated).
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: adminInvalid,
  handler: async ({ services, caller, input }) => {
    const { report } = await createReport(services, { id: caller.user.id, isAdmin: caller.isAdmin }, input);
    return { message: E.successMessage, data: report };
  },
});
export const loader = methodNotAllowed;
