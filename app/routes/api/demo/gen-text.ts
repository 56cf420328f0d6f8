import { generateDemoText } from "~/domain/demo/demo.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { demoCallOf } from "~/http/demo-call.server";
import { beginDemoCall } from "~/http/demo-request.server";

// Spec 4.4: the whole reply at once → {provider, model, mode, text, usage}.
export const action = api({
  route: "/api/demo/gen-text",
  auth: "optional",
  handler: async ({ request, services, caller }) => {
    const { input, models, charge } = await beginDemoCall(services, demoCallOf(request, services, caller, "text"));
    const data = await charge.run(() => generateDemoText({ models }, input, request.signal));
    return { data };
  },
});
export const loader = methodNotAllowed;
