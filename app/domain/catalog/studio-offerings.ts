/**
 * The models on sale as the studio's page carries them to the browser (docs/studio.md): computed once per catalog
 * rather than on every page view.
 */
import { isOnSale, type Offering, offeringKey, sampleImage, speedHint, typicalSecondsHere } from "~/domain/catalog";

/** A model on offer as the studio shows it: what its chip and its options need, nothing the browser has no use for. */
function studioOffering(o: Offering, mode: "live" | "simulated", simulatorDelayMs: number) {
  return {
    aiType: o.aiType,
    provider: o.provider,
    model: o.model,
    credits: o.credits,
    pricing: o.pricing ?? null,
    label: o.label,
    options: o.options,
    value: offeringKey(o),
    mode,
    speed: speedHint(typicalSecondsHere(o, mode, simulatorDelayMs)),
    sampleImage: sampleImage(o),
  };
}

/**
 * The catalog as the admin keeps it (enabled models at today's prices, admin-added ones included), kept per process:
 * it changes only when the catalog does (a new catalog is a new array: its identity is the key) or a provider's
 * mode does (part of the key).
 */
let offeringsCache: { catalog: readonly Offering[]; key: string; list: ReturnType<typeof studioOffering>[] } | null =
  null;
export function studioOfferings(
  catalog: readonly Offering[],
  modeOf: (o: Offering) => "live" | "simulated",
  simulatorDelayMs: number,
) {
  const offered = catalog.filter(isOnSale);
  const modes = offered.map(modeOf);
  const key = `${simulatorDelayMs}|${modes.join(",")}`;
  if (offeringsCache?.catalog !== catalog || offeringsCache.key !== key)
    offeringsCache = { catalog, key, list: offered.map((o, i) => studioOffering(o, modes[i]!, simulatorDelayMs)) };
  return offeringsCache.list;
}
