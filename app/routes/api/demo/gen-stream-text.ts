import { streamDemoText } from "~/domain/demo/demo.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { demoCallOf } from "~/http/demo-call.server";
import { beginDemoCall } from "~/http/demo-request.server";

// Spec 4.6: the reply as a plain-text stream (UTF-8 chunks as the model produces them).
// Errors before the first chunk are envelope errors.
export const action = api({
  route: "/api/demo/gen-stream-text",
  auth: "optional",
  handler: async ({ request, services, caller }) => {
    const { input, models, charge } = await beginDemoCall(services, demoCallOf(request, services, caller, "text"));
    // Once the upstream has started answering, a live call stays paid however the stream ends.
    const response = await charge.run(() => streamDemoText({ models }, input, { abortSignal: request.signal }));
    return { response };
  },
});
export const loader = methodNotAllowed;
