import { MESSAGES } from "~/domain/account/messages";
import { addFeedback } from "~/domain/feedback/feedback.server";
import { api, methodNotAllowed } from "~/lib/api.server";
import { AppError } from "~/lib/errors";
import { FeedbackSchema } from "~/lib/forms";

// Spec 4.12: code 0, a success message, data null; `invalid params: <reason>` otherwise (DESIGN §1).
export const action = api({
  auth: "user",
  body: FeedbackSchema,
  onInvalid: (error) => {
    const reason = error.issues[0]?.message;
    return new AppError("INVALID_PARAMS", reason ? { reason } : undefined);
  },
  handler: ({ caller, services, input }) => {
    addFeedback(services.db, caller.user.id, input, services.clock);
    return { message: MESSAGES.FEEDBACK_RECEIVED, data: null };
  },
});
export const loader = methodNotAllowed;
