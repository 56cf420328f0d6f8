/**
 * The price on Generate as the options change (docs/catalog.md "Price rules"): the model's rule applied in the
 * browser to the option fields as typed. Only a display — the server quotes again when the task is created.
 */
import { type RefObject, useEffect, useState } from "react";
import { readOptions } from "~/components/model-options";
import type { OptionSpec } from "~/domain/catalog";
import { type PriceRule, priceOf } from "~/domain/catalog/pricing";

type Priced = { value: string; credits: number; pricing?: PriceRule | null; options: Record<string, OptionSpec> };

export function useLivePrice(form: RefObject<HTMLFormElement | null>, selected: Priced | undefined): number | null {
  const [fields, setFields] = useState<Record<string, FormDataEntryValue> | null>(null);
  useEffect(() => {
    const el = form.current;
    if (!el) return;
    const read = () => setFields(Object.fromEntries(new FormData(el)));
    read();
    el.addEventListener("input", read);
    el.addEventListener("change", read);
    return () => {
      el.removeEventListener("input", read);
      el.removeEventListener("change", read);
    };
  }, [form]);
  // A new model renders its own fields: read them once they are in the form.
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read when the chosen model changes
  useEffect(() => {
    if (form.current) setFields(Object.fromEntries(new FormData(form.current)));
  }, [selected?.value]);
  if (!selected) return null;
  if (!selected.pricing || !fields) return selected.credits;
  return priceOf(selected, readOptions(selected, fields));
}
