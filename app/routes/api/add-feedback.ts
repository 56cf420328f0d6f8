import { MESSAGES } from "~/domain/account/messages";
import { addFeedback } from "~/domain/feedback/feedback.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";
import { AppError } from "~/lib/errors";

const E = endpoint("/api/add-feedback");

// Spec 4.12: code 0, a success message, data null; `invalid params: <reason>` otherwise (docs/design.md §1).
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  onInvalid: (error) => {
    const reason = error.issues[0]?.message;
    return new AppError("INVALID_PARAMS", reason ? { reason } : undefined);
  },
  handler: async ({ caller, services, input }) => {
    await addFeedback(services.db, caller.user.id, input, services.clock);
    return { message: MESSAGES.FEEDBACK_RECEIVED, data: null };
  },
});
export const loader = methodNotAllowed;
