import { clientIpOf } from "~/domain/demo/access.server";
import { VERIFY_LIMIT, verifyFile } from "~/domain/provenance/verify.server";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";
import { currentClientIp } from "~/lib/log.server";
import { readUploadedFile } from "~/lib/upload.server";

const E = endpoint("/api/provenance/verify");

// docs/provenance.md: the limit is taken before the body is read.
export const action = api({
  route: E.path,
  auth: E.auth,
  upload: true,
  handler: async ({ request, services }) => {
    const { db, clock, config } = services;
    const ip = clientIpOf(config, request, currentClientIp());
    await takeOrRefuse(db, `provenance-verify:${ip}`, { limit: VERIFY_LIMIT, windowMs: 60_000 }, clock.now());
    return { data: await verifyFile(await readUploadedFile(request, config.FILE_MAX_BYTES)) };
  },
});
export const loader = methodNotAllowed;
