import { z } from "zod";
import { getOwnGeneration, toQueryView } from "~/domain/generations/generations.server";
import { api, methodNotAllowed } from "~/lib/api.server";

// Spec 4.2: one task's status, with the fields of its status.
export const action = api({
  auth: "user",
  body: z.object({ gen_id: z.string().min(1).max(200) }),
  handler: ({ caller, input, services }) => ({ data: toQueryView(getOwnGeneration(services.db, caller.user.id, input.gen_id)) }),
});
export const loader = methodNotAllowed;
