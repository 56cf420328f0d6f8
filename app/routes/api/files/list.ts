import { listFiles } from "~/domain/files/files.server";
import { normalizePaging } from "~/domain/generations/history.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";
import { AppError, isAppError } from "~/lib/errors";

const E = endpoint("/api/files/list");

export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  // Refusals of the files endpoints are HTTP 4xx (docs/api.md "Files").
  onInvalid: () => new AppError("FILE_PARAMS"),
  handler: async ({ caller, input, services }) => {
    let paging: ReturnType<typeof normalizePaging>;
    try {
      paging = normalizePaging(input);
    } catch (error) {
      throw isAppError(error)
        ? new AppError("FILE_PARAMS", { reason: "page and page_size must be integers ≥ 1" })
        : error;
    }
    return { data: await listFiles(services.db, caller.user.id, paging) };
  },
});
export const loader = methodNotAllowed;
