import { Clapperboard, ImageIcon, Timer } from "lucide-react";
import { Badge, cn, coverInput, plural } from "~/components/ui";
import { providerName } from "~/domain/catalog";
import type { Offering } from "./types";

/**
 * A model to pick: its sample, name and provider, typical time, price and mode. On a phone it is one
 * compact row (a small sample beside the text); from `sm` up a tile with the sample on top.
 */
export function ModelCard({ o, checked, onSelect }: { o: Offering; checked: boolean; onSelect: () => void }) {
  const id = `m-${o.value.replace(/[^a-z0-9]+/gi, "-")}`;
  const provider = providerName(o.provider);
  return (
    <label
      className={cn(
        "group relative flex min-w-0 cursor-pointer items-center gap-3 rounded-2xl border border-border bg-surface p-2 transition hover:border-input sm:flex-col sm:items-stretch sm:gap-2 sm:pb-3",
        "has-[:checked]:border-primary has-[:checked]:ring-2 has-[:checked]:ring-primary/30 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-ring",
      )}
      data-offering={o.value}
    >
      <input
        type="radio"
        name="offering"
        value={o.value}
        checked={checked}
        onChange={onSelect}
        className={coverInput}
        aria-labelledby={`${id}-n ${id}-p`}
        aria-describedby={[`${id}-d`, `${id}-t`, o.affordable ? null : `${id}-x`].filter(Boolean).join(" ")}
      />
      <span className="relative block w-24 shrink-0 overflow-hidden rounded-xl bg-muted sm:w-auto">
        <img
          src={o.sampleImage.src}
          width={o.sampleImage.width}
          height={o.sampleImage.height}
          alt={o.sampleImage.alt}
          loading="lazy"
          decoding="async"
          className="block aspect-[4/3] h-auto w-full object-cover"
        />
        <Badge
          tone="neutral"
          className="pointer-events-none absolute bottom-1 left-1 gap-0.5 bg-black/70 px-1.5 text-[0.625rem] text-white sm:bottom-1.5 sm:left-1.5 sm:gap-1 sm:px-2.5 sm:text-xs"
        >
          {o.aiType === "video" ? <Clapperboard aria-hidden="true" /> : <ImageIcon aria-hidden="true" />}
          Sample
        </Badge>
      </span>
      <span className="flex min-w-0 flex-1 flex-col gap-1.5 px-1 sm:gap-2">
        <span className="min-w-0">
          <span id={`${id}-n`} className="block truncate text-sm font-semibold">
            {o.label}
          </span>
          <span className="flex min-w-0 items-center gap-1.5 text-xs text-muted-foreground">
            <span id={`${id}-p`} className="truncate">
              {provider}
            </span>
            <span aria-hidden="true">·</span>
            <span
              id={`${id}-t`}
              className="inline-flex shrink-0 items-center gap-1"
              title={`Typically ${o.speed.slice(1)} on ${provider}`}
            >
              <Timer aria-hidden="true" className="size-3.5" />
              <span className="sr-only">typical time </span>
              {o.speed}
            </span>
          </span>
        </span>
        <span id={`${id}-d`} className="flex flex-wrap items-center gap-1.5">
          <Badge tone={o.affordable ? "accent" : "danger"}>{plural(o.credits, "credit")}</Badge>
          <Badge status={o.mode}>{o.mode === "live" ? "Live" : "Simulated"}</Badge>
        </span>
        {o.affordable ? null : (
          <span id={`${id}-x`} className="text-xs text-danger-soft-foreground">
            Not enough credits
          </span>
        )}
      </span>
    </label>
  );
}
