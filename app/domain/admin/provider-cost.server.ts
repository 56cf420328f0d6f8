/** What a provider charges Atelier for one task of a model, in cents (PROVIDER_COSTS); null when not set. */
import { getConfig } from "~/lib/config.server";

export function providerCostCents(provider: string, model: string): number | null {
  return getConfig().providerCosts[`${provider}:${model}`] ?? null;
}
