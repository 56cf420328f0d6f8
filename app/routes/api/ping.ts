import { MESSAGES } from "~/domain/account/messages";
import { checkIn } from "~/domain/credits/checkin.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/ping");

// Spec 4.10: the daily check-in; code 0 whether or not a credit was added.
export const action = api({
  route: E.path,
  auth: E.auth,
  handler: async ({ caller, services }) => {
    const r = await checkIn(services.db, caller.user.id, services.clock);
    return {
      message: r.added ? MESSAGES.PING_ADDED : MESSAGES.PING_ALREADY,
      data: { added: r.added, day: r.day, left_credits: r.left_credits, total_credits: r.total_credits },
    };
  },
});
export const loader = methodNotAllowed;
