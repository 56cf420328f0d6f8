/** Variations (docs/studio.md): the same request with a new seed, where the model takes a seed. */
import type { Offering } from "~/domain/catalog";

/** A random seed within the model's seed option, or undefined when it has none (each run is then a new draw). */
export function variationSeed(offering: Pick<Offering, "options">, random = Math.random): number | undefined {
  const spec = offering.options.seed;
  if (!spec || spec.type !== "integer") return undefined;
  const min = spec.min ?? 0;
  const max = spec.max ?? 2_147_483_647;
  return min + Math.floor(random() * (max - min + 1));
}
