import { generateDemoImage } from "~/domain/demo/demo.server";
import { demoStorage } from "~/domain/demo/models.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { demoCallOf } from "~/http/demo-call.server";
import { beginDemoCall } from "~/http/demo-request.server";

// Spec 4.5: one image through generateImage, stored like generation results → {provider, model, mode, result_urls}.
export const action = api({
  route: "/api/demo/gen-image",
  auth: "optional",
  handler: async ({ request, services, caller }) => {
    const { input, models, charge } = await beginDemoCall(services, demoCallOf(request, services, caller, "image"));
    const data = await charge.run(() =>
      generateDemoImage({ models, storage: demoStorage(services.config) }, input, request.signal),
    );
    return { data };
  },
});
export const loader = methodNotAllowed;
