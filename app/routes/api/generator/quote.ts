import { quoteTask } from "~/domain/catalog/quote";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/generator/quote");

// docs/catalog.md "Price rules": {ai_type, provider, model, options} → the credits such a task costs now.
export const action = api({
  route: E.path,
  auth: E.auth,
  body: E.body,
  handler: async ({ input }) => ({ data: quoteTask(input) }),
});
export const loader = methodNotAllowed;
