/**
 * A model's price rule on /admin/models (docs/catalog.md "Price rules"): each priced variant with its credits and
 * the upstream cost of the same options (per second × `duration`, or per task), so a loss-making variant shows.
 */
import type { OptionSpec } from "~/domain/catalog";
import { isFlat, type PriceRule, priceVariants } from "~/domain/catalog/pricing";

export function PriceVariants({
  pricing,
  options,
  cost,
}: {
  pricing: PriceRule;
  options: Record<string, unknown>;
  cost: { usd: number; per: "task" | "second" } | null;
}) {
  if (isFlat(pricing)) return <span>flat</span>;
  const specs = options as Record<string, OptionSpec>;
  const upstream = (o: Record<string, unknown>) => {
    if (!cost) return null;
    const seconds =
      typeof o.duration === "number" ? o.duration : Number((specs.duration as { default?: unknown })?.default);
    const factor =
      pricing.multiply_by && typeof o[pricing.multiply_by] === "number" ? (o[pricing.multiply_by] as number) : 1;
    const usd = cost.per === "second" ? cost.usd * (Number.isFinite(seconds) ? seconds : 1) : cost.usd;
    return usd * factor;
  };
  return (
    <ul className="text-xs" data-testid="price-variants">
      {priceVariants(pricing, specs).map((v) => {
        const usd = upstream(v.options);
        const label = Object.entries(v.options)
          .map(([k, x]) => `${k}=${String(x)}`)
          .join(", ");
        return (
          <li key={label}>
            {label || "default"}: {v.credits} credits{usd !== null ? ` · upstream $${usd.toFixed(4)}` : ""}
          </li>
        );
      })}
    </ul>
  );
}
