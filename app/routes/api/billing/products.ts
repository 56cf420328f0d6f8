import { listProducts, toProductInfo } from "~/domain/billing/products.server";
import { api, methodNotAllowed } from "~/http/api.server";
import { endpoint } from "~/http/endpoints.server";

const E = endpoint("/api/billing/products");

// docs/design.md §9: public list of packs and plans.
export const action = api({
  route: E.path,
  auth: E.auth,
  handler: async ({ services }) => ({ data: { products: (await listProducts(services.db)).map(toProductInfo) } }),
});
export const loader = methodNotAllowed;
