import { adminInvalid } from "~/domain/admin/admin.server";
import { resolveReport } from "~/domain/reports/resolve-report.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";
import { getGenerationRuntime } from "~/http/generation-runtime.server";

const E = endpoint("/api/admin/reports/resolve");

// docs/safety.md "Reports and takedowns": {report_id, action: remove | dismiss, note?}.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: adminInvalid,
  handler: async ({ services, input, caller }) => {
    const result = await resolveReport(
      {
        db: services.db,
        clock: services.clock,
        storage: getGenerationRuntime().storage,
        dataDir: services.config.dataDir,
      },
      caller.user.id,
      input,
    );
    return { message: input.action === "remove" ? "result removed" : "report dismissed", data: result };
  },
});
export const loader = methodNotAllowed;
