/**
 * Compare: check two to four models and the prompt runs on each, side by side in one row of the gallery. Each is
 * its own task at its own price; the button says the total before anything is sent. Without JavaScript the boxes
 * and the button still post (the server applies the same rules and says which one a selection breaks).
 */
import { Columns3 } from "lucide-react";
import { type RefObject, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button, cn, FieldError } from "~/components/ui";
import type { AiType } from "~/domain/catalog";
import { COMPARE_MAX, COMPARE_MIN, comparable, compareTotal } from "~/domain/studio/compare";
import type { Offering } from "./types";

export function ComparePanel({
  offerings,
  make,
  initial,
  error,
  busy,
  hydrated,
  panelRef,
}: {
  offerings: readonly Offering[];
  make: AiType;
  /** The models checked before (a refused comparison comes back with them). */
  initial: readonly string[];
  error?: string;
  busy: boolean;
  hydrated: boolean;
  panelRef: RefObject<HTMLDetailsElement | null>;
}) {
  const [checked, setChecked] = useState<string[]>(() => [...initial]);
  const { t: tr } = useTranslation("studio");
  const candidates = offerings.filter((o) => comparable(o));
  // With JavaScript only the kind being made is offered; without, both rows are there and CSS shows one.
  const chosen = candidates.filter((o) => checked.includes(o.value) && (!hydrated || o.aiType === make));
  const total = compareTotal(chosen);
  const full = chosen.length >= COMPARE_MAX;
  return (
    <details ref={panelRef} className="group/cmp" open={error ? true : undefined}>
      <summary
        className="flex cursor-pointer list-none items-center gap-1.5 rounded-lg px-2 py-1.5 text-sm font-medium text-muted-foreground hover:bg-muted hover:text-foreground group-open/cmp:bg-muted group-open/cmp:text-foreground [&::-webkit-details-marker]:hidden"
        data-testid="compare-toggle"
      >
        <Columns3 aria-hidden="true" className="size-4" />
        <span className="max-sm:sr-only">{tr("compare.toggle")}</span>
      </summary>
      <div
        className="absolute inset-x-0 z-20 mt-2 rounded-2xl border border-border bg-surface-raised p-4 shadow-lg"
        data-testid="compare-panel"
      >
        <fieldset aria-describedby={error ? "f-compare-error" : "f-compare-hint"}>
          <legend className="text-sm font-semibold">{tr("compare.legend")}</legend>
          <p id="f-compare-hint" className="mt-0.5 text-xs text-muted-foreground">
            {tr("compare.hint", { min: COMPARE_MIN, max: COMPARE_MAX })}
          </p>
          {(["image", "video"] as const).map((t) => (
            <div
              key={t}
              className={cn(
                "mt-3 grid gap-1.5 sm:grid-cols-2",
                t === "image"
                  ? "group-has-[#make-video:checked]/composer:hidden"
                  : "group-has-[#make-image:checked]/composer:hidden",
              )}
            >
              {candidates
                .filter((o) => o.aiType === t)
                .map((o) => {
                  const on = checked.includes(o.value);
                  return (
                    <label
                      key={o.value}
                      className="flex cursor-pointer items-center gap-2 rounded-lg border border-border px-2.5 py-1.5 text-sm has-[:checked]:border-primary has-[:checked]:bg-primary/5 has-[:disabled]:cursor-not-allowed has-[:disabled]:opacity-60"
                    >
                      <input
                        type="checkbox"
                        name="compare"
                        value={o.value}
                        checked={on}
                        disabled={hydrated && !on && (full || o.aiType !== make)}
                        onChange={(e) =>
                          setChecked((s) => (e.target.checked ? [...s, o.value] : s.filter((v) => v !== o.value)))
                        }
                        className="size-4 accent-[var(--color-primary)]"
                      />
                      <span className="min-w-0 flex-1 truncate font-medium">{o.label}</span>
                      <span className="shrink-0 text-xs text-muted-foreground">
                        {tr("credits", { count: o.credits })}
                      </span>
                    </label>
                  );
                })}
            </div>
          ))}
        </fieldset>
        {error ? <FieldError id="f-compare-error">{error}</FieldError> : null}
        <div className="mt-3 flex flex-wrap items-center justify-end gap-2">
          {hydrated && full ? (
            <p className="mr-auto text-xs text-muted-foreground">{tr("compare.most", { max: COMPARE_MAX })}</p>
          ) : null}
          <Button
            type="submit"
            name="intent"
            value="compare"
            disabled={busy || (hydrated && chosen.length < COMPARE_MIN)}
            data-testid="compare-submit"
          >
            <Columns3 aria-hidden="true" />
            {hydrated
              ? chosen.length < COMPARE_MIN
                ? tr("compare.checkMore", { min: COMPARE_MIN })
                : tr("compare.run", { models: chosen.length, credits: tr("credits", { count: total }) })
              : tr("compare.runChecked")}
          </Button>
        </div>
      </div>
    </details>
  );
}
