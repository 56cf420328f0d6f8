import { generateDemoText } from "~/domain/demo/demo.server";
import { beginDemoCall } from "~/domain/demo/request.server";
import { api, methodNotAllowed } from "~/lib/api.server";
import { demoCallOf } from "~/lib/demo-call.server";

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
