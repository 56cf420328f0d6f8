import { deleteFile } from "~/domain/files/files.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";
import { getGenerationRuntime } from "~/http/generation-runtime.server";
import { AppError } from "~/lib/errors";

const E = endpoint("/api/files/delete");

export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: () => new AppError("FILE_PARAMS", { reason: "file_id required" }),
  handler: async ({ caller, input, services }) => ({
    data: await deleteFile({ db: services.db, store: getGenerationRuntime().files }, caller.user.id, input.file_id),
    message: E.successMessage,
  }),
});
export const loader = methodNotAllowed;
