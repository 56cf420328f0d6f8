import { storeFile, toFileView } from "~/domain/files/files.server";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import { fileUploadBucket, fileUploadPolicy } from "~/domain/rate-limits/policy.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";
import { getGenerationRuntime } from "~/http/generation-runtime.server";
import { readUploadedFile } from "~/lib/upload.server";

const E = endpoint("/api/files");

// docs/api.md "Files": the upload limit is taken before the body is read, so a flood costs no parsing.
export const action = api({
  route: E.path,
  auth: E.auth,
  upload: true,
  handler: async ({ request, caller, services }) => {
    const { db, clock, config } = services;
    await takeOrRefuse(db, fileUploadBucket(caller.user.id), fileUploadPolicy(config), clock.now());
    const bytes = await readUploadedFile(request, config.FILE_MAX_BYTES);
    const row = await storeFile(
      { db, clock, config, store: getGenerationRuntime().files },
      { userId: caller.user.id, bytes, source: "upload" },
    );
    return { data: toFileView(row), message: E.successMessage };
  },
});
export const loader = methodNotAllowed;
