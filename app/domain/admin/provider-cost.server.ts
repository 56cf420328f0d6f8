/**
 * What a provider charges Atelier for one task of a model, in cents, for the dashboard's margins: PROVIDER_COSTS
 * when it names the model (an operator's own figure wins), else the catalog's upstream cost. A per-second cost is
 * counted at the model's default duration (the dashboard counts tasks, not their seconds). Null when neither is set.
 */
import { allOfferings } from "~/domain/catalog";
import { getConfig } from "~/lib/config.server";

/** Seconds a per-second price is counted for when the model declares no default duration. */
const FALLBACK_SECONDS = 5;

export function providerCostCents(provider: string, model: string): number | null {
  const configured = getConfig().providerCosts[`${provider}:${model}`];
  if (configured !== undefined) return configured;
  const offering = allOfferings().find((o) => o.provider === provider && o.model === model);
  if (!offering?.cost) return null;
  const duration = offering.options.duration;
  const seconds =
    duration && "default" in duration && typeof duration.default === "number" ? duration.default : FALLBACK_SECONDS;
  const usd = offering.cost.per === "second" ? offering.cost.usd * seconds : offering.cost.usd;
  return Math.round(usd * 10_000) / 100;
}
