/**
 * The options a model declares in the catalog, as form fields named `opt_<key>`
 * (enum and boolean: selects; integer and number: number inputs; text: a text
 * input). `readOptions` turns the submitted form back into typed values; only
 * keys the chosen model declares are read, and empty fields are left out.
 */

import { inputClass, labelClass } from "~/components/ui";
import { IMAGE_URL_MAX, type Offering, type OptionSpec, optionFieldLabel } from "~/domain/catalog";

export function readOptions(
  offering: Pick<Offering, "options">,
  form: Record<string, FormDataEntryValue>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(offering.options)) {
    const raw = form[`opt_${key}`];
    if (typeof raw !== "string" || raw.trim() === "") continue;
    const v = raw.trim();
    if (spec.type === "integer" || spec.type === "number") out[key] = /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
    else if (spec.type === "boolean") out[key] = v === "true";
    else out[key] = v;
  }
  return out;
}

/**
 * The `opt_<key>` fields as typed (strings), for the keys `offering` declares: what a
 * re-rendered form shows again (after an error, or after switching model without JavaScript).
 */
export function optionFormValues(
  offering: Pick<Offering, "options">,
  get: (name: string) => unknown,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(offering.options)) {
    const raw = get(`opt_${key}`);
    if (typeof raw === "string" && raw !== "") out[key] = raw.slice(0, 4000);
  }
  return out;
}

function Control({ name, spec, id, value }: { name: string; spec: OptionSpec; id: string; value?: string }) {
  const cls = `${inputClass} mt-1 py-2`;
  switch (spec.type) {
    case "enum":
      return (
        <select id={id} name={name} defaultValue={value ?? spec.default} className={cls}>
          {spec.values.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      );
    case "boolean":
      return (
        <select id={id} name={name} defaultValue={value ?? String(spec.default)} className={cls}>
          <option value="true">Yes</option>
          <option value="false">No</option>
        </select>
      );
    case "integer":
      return spec.values ? (
        <select
          id={id}
          name={name}
          defaultValue={value ?? (spec.default === undefined ? "" : String(spec.default))}
          className={cls}
        >
          {spec.values.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          name={name}
          defaultValue={value}
          type="number"
          inputMode="numeric"
          min={spec.min}
          max={spec.max}
          step={1}
          placeholder={spec.default === undefined ? "random" : String(spec.default)}
          className={cls}
        />
      );
    case "number":
      return (
        <input
          id={id}
          name={name}
          defaultValue={value}
          type="number"
          min={spec.min}
          max={spec.max}
          step="any"
          placeholder={spec.default === undefined ? "" : String(spec.default)}
          className={cls}
        />
      );
    case "text":
      return <input id={id} name={name} defaultValue={value} type="text" maxLength={spec.maxLength} className={cls} />;
    case "image":
      // An https URL until uploads exist (docs/catalog.md "Image inputs").
      return (
        <input
          id={id}
          name={name}
          defaultValue={value}
          type="url"
          inputMode="url"
          placeholder="https://…"
          maxLength={IMAGE_URL_MAX}
          required={spec.required}
          className={cls}
        />
      );
  }
}

/** The shape of the result comes first; the rest folds away. */
const PRIMARY = new Set(["image", "aspect_ratio", "ratio", "size", "image_size", "duration"]);

function OptionField({ name, spec, value }: { name: string; spec: OptionSpec; value?: string }) {
  const id = `opt-${name}`;
  return (
    <div className={spec.type === "text" || spec.type === "image" ? "col-span-2" : undefined}>
      <label htmlFor={id} className={`${labelClass} text-xs`}>
        {optionFieldLabel(spec)}
      </label>
      <Control name={`opt_${name}`} spec={spec} id={id} value={value} />
      {spec.help ? <p className="mt-1 text-xs text-muted-foreground">{spec.help}</p> : null}
    </div>
  );
}

export function ModelOptions({
  offering,
  values = {},
  omit = [],
}: {
  offering: Pick<Offering, "options" | "label"> & { value: string };
  values?: Record<string, string>;
  /** Options the page asks for elsewhere (the studio's picture chips). */
  omit?: readonly string[];
}) {
  const entries = Object.entries(offering.options).filter(([k]) => !omit.includes(k));
  if (entries.length === 0) return null;
  const primary = entries.filter(([k]) => PRIMARY.has(k));
  const more = entries.filter(([k]) => !PRIMARY.has(k));
  const grid = "grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4";
  return (
    <fieldset className="mt-4" key={offering.value}>
      <legend className="mb-2 text-sm font-medium">Options for {offering.label}</legend>
      {primary.length ? (
        <div className={grid}>
          {primary.map(([k, spec]) => (
            <OptionField key={k} name={k} spec={spec} value={values[k]} />
          ))}
        </div>
      ) : null}
      {more.length ? (
        <details className="group mt-3">
          <summary className="cursor-pointer text-sm text-muted-foreground hover:text-foreground">
            More options: {more.map(([, s]) => s.label.toLowerCase()).join(", ")}
          </summary>
          <div className={`${grid} mt-3`}>
            {more.map(([k, spec]) => (
              <OptionField key={k} name={k} spec={spec} value={values[k]} />
            ))}
          </div>
        </details>
      ) : null}
    </fieldset>
  );
}
