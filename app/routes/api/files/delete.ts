import { deleteFile } from "~/domain/files/files.server";
import { api, methodNotAllowed } from "~/lib/api.server";
import { endpoint } from "~/lib/endpoints.server";
import { AppError } from "~/lib/errors";
import { getGenerationRuntime } from "~/lib/generation-runtime.server";

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
