/**
 * The model picker: one row of chips (radio buttons) with each model's price, typical time and mode; a phone
 * scrolls the row sideways. Without JavaScript the Image/Video toggle still swaps the rows (CSS :has).
 */
import { Timer } from "lucide-react";
import { cn, coverInput, plural } from "~/components/ui";
import { providerName } from "~/domain/catalog";
import type { Offering } from "./types";

function ModelChip({ o, checked, onSelect }: { o: Offering; checked: boolean; onSelect: () => void }) {
  const id = `m-${o.value.replace(/[^a-z0-9]+/gi, "-")}`;
  const provider = providerName(o.provider);
  return (
    <label
      className={cn(
        "relative flex shrink-0 cursor-pointer items-center gap-2 rounded-xl border border-border bg-surface py-1.5 pr-3 pl-1.5 transition hover:border-input",
        "has-[:checked]:border-primary has-[:checked]:bg-primary/5 has-[:checked]:ring-1 has-[:checked]:ring-primary has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-ring",
      )}
      data-offering={o.value}
      title={`${o.label} by ${provider}: typically ${o.speed.slice(1)}, ${plural(o.credits, "credit")}${o.mode === "simulated" ? " (simulated here)" : ""}`}
    >
      <input
        type="radio"
        name="offering"
        value={o.value}
        checked={checked}
        onChange={onSelect}
        className={coverInput}
        aria-labelledby={`${id}-n`}
        aria-describedby={[`${id}-d`, o.affordable ? null : `${id}-x`].filter(Boolean).join(" ")}
      />
      {o.sampleImage ? (
        <img
          src={o.sampleImage.src}
          width={32}
          height={32}
          alt={o.sampleImage.alt}
          loading="lazy"
          decoding="async"
          className="size-8 shrink-0 rounded-lg bg-muted object-cover"
        />
      ) : (
        // A model the admin added ships no sample: a plain tile keeps the chips aligned.
        <span aria-hidden="true" className="size-8 shrink-0 rounded-lg bg-muted" />
      )}
      <span className="flex min-w-0 flex-col leading-tight">
        <span id={`${id}-n`} className="text-sm font-medium whitespace-nowrap">
          {o.label} <span className="sr-only">by {provider}</span>
        </span>
        <span id={`${id}-d`} className="flex items-center gap-1 text-xs whitespace-nowrap text-muted-foreground">
          <span className={cn(!o.affordable && "text-danger-soft-foreground")}>{plural(o.credits, "credit")}</span>
          <span aria-hidden="true">·</span>
          <Timer aria-hidden="true" className="size-3" />
          <span className="sr-only">typical time </span>
          {o.speed}
          {o.mode === "simulated" ? (
            <>
              <span aria-hidden="true">·</span>
              <span>Simulated</span>
            </>
          ) : null}
          {o.affordable ? null : (
            <span id={`${id}-x`} className="sr-only">
              , not enough credits
            </span>
          )}
        </span>
      </span>
    </label>
  );
}

export function ModelPicker({
  offerings,
  offering,
  onSelect,
  error,
}: {
  offerings: Offering[];
  offering: string;
  onSelect: (value: string) => void;
  error?: string;
}) {
  return (
    <fieldset className="min-w-0 flex-1" aria-describedby={error ? "f-offering-error" : undefined}>
      <legend className="sr-only">Model</legend>
      {(["image", "video"] as const).map((t) => (
        <div
          key={t}
          data-type={t}
          className={cn(
            "-mx-1 flex gap-2 overflow-x-auto px-1 py-0.5 [scrollbar-width:thin]",
            t === "image"
              ? "group-has-[#make-video:checked]/composer:hidden"
              : "group-has-[#make-image:checked]/composer:hidden",
          )}
        >
          {offerings
            .filter((o) => o.aiType === t)
            .map((o) => (
              <ModelChip key={o.value} o={o} checked={offering === o.value} onSelect={() => onSelect(o.value)} />
            ))}
        </div>
      ))}
    </fieldset>
  );
}
