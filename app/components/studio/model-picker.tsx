/**
 * The model picker: one row of chips (radio buttons) with each model's price, typical time and mode; a phone
 * scrolls the row sideways. Without JavaScript the Image/Video toggle still swaps the rows (CSS :has).
 * A model that takes a picture carries a picture mark ("needs a picture" where it refuses a task without one);
 * while a picture is attached the others are dimmed.
 */
import { ImageIcon, Timer } from "lucide-react";
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { cn, coverInput } from "~/components/ui";
import { providerName } from "~/domain/catalog";
import { needsImage, takesImage } from "./inputs";
import type { Offering } from "./types";

function ModelChip({
  o,
  checked,
  onSelect,
  attached,
}: {
  o: Offering;
  checked: boolean;
  onSelect: () => void;
  attached: boolean;
}) {
  const id = `m-${o.value.replace(/[^a-z0-9]+/gi, "-")}`;
  const provider = providerName(o.provider);
  const picture = takesImage(o);
  const needs = needsImage(o);
  const { t } = useTranslation("studio");
  const credits = t("credits", { count: o.credits });
  const title = [
    t("models.title", { model: o.label, provider, speed: o.speed.slice(1), credits }),
    o.mode === "simulated" ? t("models.simulatedHere") : "",
    needs ? t("models.startsFromPicture") : picture ? t("models.canStartFromPicture") : "",
  ].join("");
  return (
    <label
      className={cn(
        "relative flex shrink-0 cursor-pointer items-center gap-2 rounded-xl border border-border bg-surface py-1.5 pr-3 pl-1.5 transition hover:border-input",
        // Dimmed, yet readable (text contrast stays AA): a faded sample, a dashed edge, a muted name.
        attached && !picture && "border-dashed text-muted-foreground [&_img]:opacity-35 [&_img]:grayscale",
        "has-[:checked]:border-primary has-[:checked]:bg-primary/5 has-[:checked]:ring-1 has-[:checked]:ring-primary has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-ring",
      )}
      data-offering={o.value}
      data-takes-image={picture ? (needs ? "required" : "optional") : undefined}
      data-dimmed={attached && !picture ? true : undefined}
      title={title}
    >
      <input
        type="radio"
        name="offering"
        value={o.value}
        checked={checked}
        onChange={onSelect}
        className={coverInput}
        aria-labelledby={`${id}-n`}
        aria-describedby={[`${id}-d`, o.affordable ? null : `${id}-x`, attached && !picture ? `${id}-p` : null]
          .filter(Boolean)
          .join(" ")}
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
        <span id={`${id}-n`} className="flex items-center gap-1 text-sm font-medium whitespace-nowrap">
          {o.label} <span className="sr-only">{t("models.by", { provider })}</span>
          {picture ? (
            <span
              className={cn(
                "inline-flex items-center gap-0.5 rounded-md px-1 text-[0.6875rem] leading-4 font-medium",
                needs ? "bg-accent-soft text-accent-soft-foreground" : "bg-muted text-muted-foreground",
              )}
            >
              <ImageIcon aria-hidden="true" className="size-3" />
              <span className={needs ? undefined : "sr-only"}>
                {needs ? t("models.needsPicture") : t("models.takesPicture")}
              </span>
            </span>
          ) : null}
        </span>
        <span id={`${id}-d`} className="flex items-center gap-1 text-xs whitespace-nowrap text-muted-foreground">
          <span className={cn(!o.affordable && "text-danger-soft-foreground")}>{credits}</span>
          <span aria-hidden="true">·</span>
          <Timer aria-hidden="true" className="size-3" />
          <span className="sr-only">{t("models.typicalTime")} </span>
          {o.speed}
          {o.mode === "simulated" ? (
            <>
              <span aria-hidden="true">·</span>
              <span>{t("models.simulated")}</span>
            </>
          ) : null}
          {o.affordable ? null : (
            <span id={`${id}-x`} className="sr-only">
              {t("models.notEnough")}
            </span>
          )}
          {attached && !picture ? (
            <span id={`${id}-p`} className="sr-only">
              {t("models.noPicture")}
            </span>
          ) : null}
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
  attached = false,
}: {
  offerings: Offering[];
  offering: string;
  onSelect: (value: string) => void;
  error?: string;
  /** A picture is attached: models that take none are dimmed. */
  attached?: boolean;
}) {
  const ref = useRef<HTMLFieldSetElement>(null);
  const { t: tr } = useTranslation("studio");
  // A model chosen for the person (a picture attached, Edit, Animate, Reuse) is scrolled into its row's view.
  useEffect(() => {
    const chip = ref.current?.querySelector<HTMLElement>(`[data-offering="${CSS.escape(offering)}"]`);
    const row = chip?.parentElement;
    if (!chip || !row || row.clientWidth === 0) return;
    const left = chip.getBoundingClientRect().left - row.getBoundingClientRect().left;
    if (left < 0 || left + chip.offsetWidth > row.clientWidth) row.scrollBy({ left: left - 8, behavior: "smooth" });
  }, [offering]);
  return (
    <fieldset ref={ref} className="min-w-0 flex-1" aria-describedby={error ? "f-offering-error" : undefined}>
      <legend className="sr-only">{tr("models.legend")}</legend>
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
              <ModelChip
                key={o.value}
                o={o}
                checked={offering === o.value}
                onSelect={() => onSelect(o.value)}
                attached={attached}
              />
            ))}
        </div>
      ))}
    </fieldset>
  );
}
