import { z } from "zod";
import { listHistory, normalizePaging } from "~/domain/generations/generations.server";
import { api, methodNotAllowed } from "~/lib/api.server";

// Spec 4.3: the caller's tasks, newest first, paged.
export const action = api({
  auth: "user",
  body: z.object({ page: z.unknown().optional(), page_size: z.unknown().optional() }),
  handler: ({ caller, input, services }) => ({ data: listHistory(services.db, caller.user.id, normalizePaging(input)) }),
});
export const loader = methodNotAllowed;
