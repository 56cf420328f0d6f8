/**
 * Price rules (docs/catalog.md "Price rules"): a model's price follows the options of the task. Pure, shared by the
 * server (which decides) and the studio (which shows the live price on Generate).
 *
 *   credits = (base + Σ add[option][value] + Σ per_unit[option] × value) × value of multiply_by
 *
 * rounded up to a whole credit and never above MAX_TASK_CREDITS. An option left out counts at its default.
 */
import type { OptionSpec, PriceRule } from "~/providers/offering";

export type { PriceRule };

/** The most one task can cost: a rule that can quote more is refused when saved, and a quote never exceeds it. */
export const MAX_TASK_CREDITS = 1_000_000;
/** The bounds of one `add` or `per_unit` figure. */
export const MAX_RULE_FIGURE = 1_000_000;

/** The rule a model follows: its `pricing`, or a flat `credits` as `{base: credits}`. */
export const ruleOf = (o: { credits: number; pricing?: PriceRule | null }): PriceRule =>
  o.pricing ?? { base: o.credits };

/** Whether the rule is a flat price (no option changes it). */
export const isFlat = (rule: PriceRule) =>
  !rule.multiply_by && Object.keys(rule.add ?? {}).length === 0 && Object.keys(rule.per_unit ?? {}).length === 0;

function optionValue(
  specs: Readonly<Record<string, OptionSpec>>,
  options: Record<string, unknown>,
  name: string,
): unknown {
  if (Object.hasOwn(options, name) && options[name] !== undefined && options[name] !== null) return options[name];
  const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
  return spec && "default" in spec ? spec.default : undefined;
}

/**
 * The credits a task of this rule costs with these options (already validated against the model's options).
 * Integers throughout; a fraction (a per-unit price of a decimal option) rounds up; at least 1, at most MAX_TASK_CREDITS.
 */
export function quoteCredits(
  rule: PriceRule,
  specs: Readonly<Record<string, OptionSpec>>,
  options: Record<string, unknown>,
): number {
  let sum = rule.base;
  for (const [name, table] of Object.entries(rule.add ?? {})) {
    const v = optionValue(specs, options, name);
    if (v === undefined) continue;
    const key = String(v);
    if (Object.hasOwn(table, key)) sum += table[key]!;
  }
  for (const [name, perUnit] of Object.entries(rule.per_unit ?? {})) {
    const v = optionValue(specs, options, name);
    if (typeof v === "number" && Number.isFinite(v)) sum += perUnit * v;
  }
  if (rule.multiply_by) {
    const m = optionValue(specs, options, rule.multiply_by);
    if (typeof m === "number" && Number.isFinite(m)) sum *= m;
  }
  if (!Number.isFinite(sum)) return MAX_TASK_CREDITS;
  // 1e-9 absorbs binary noise (0.1 × 30 = 3.0000000000000004) so an exact price does not round up a whole credit.
  return Math.min(MAX_TASK_CREDITS, Math.max(1, Math.ceil(sum - 1e-9)));
}

/** The values an option can take for pricing, as bounds: [min, max] of its contribution or factor. */
function numericBounds(spec: OptionSpec): { min: number; max: number; absent: boolean } | null {
  if (spec.type === "integer") {
    const values = spec.values ?? [spec.min, spec.max];
    return { min: Math.min(...values), max: Math.max(...values), absent: spec.default === undefined };
  }
  if (spec.type === "number") return { min: spec.min, max: spec.max, absent: spec.default === undefined };
  return null;
}

function addKeys(spec: OptionSpec): string[] | null {
  if (spec.type === "enum") return [...spec.values];
  if (spec.type === "boolean") return ["true", "false"];
  if (spec.type === "integer" && spec.values) return spec.values.map(String);
  return null;
}

/**
 * Why a rule cannot be saved for a model with these options, or null: unknown options, an option of a kind the
 * part cannot price, a value the option never takes, figures that are not integers, and a rule whose cheapest
 * variant costs nothing (or less) or whose dearest exceeds MAX_TASK_CREDITS (overflow).
 */
export function priceRuleProblem(rule: PriceRule, specs: Readonly<Record<string, OptionSpec>>): string | null {
  const spec = (name: string) => (Object.hasOwn(specs, name) ? specs[name] : undefined);
  let min = rule.base;
  let max = rule.base;
  for (const [name, table] of Object.entries(rule.add ?? {})) {
    const s = spec(name);
    if (!s) return `pricing.add.${name} is not an option of this model`;
    const keys = addKeys(s);
    if (!keys) return `pricing.add.${name} must name an enum, boolean or listed-integer option`;
    const listed = Object.entries(table);
    const unknown = listed.find(([k]) => !keys.includes(k));
    if (unknown) return `pricing.add.${name}.${unknown[0]} is not a value of ${name} (values: ${keys.join(", ")})`;
    const figures = keys.map((k) => (Object.hasOwn(table, k) ? table[k]! : 0));
    // Left out with no default, the option adds nothing.
    if (!("default" in s) || s.default === undefined) figures.push(0);
    min += Math.min(...figures);
    max += Math.max(...figures);
  }
  for (const [name, perUnit] of Object.entries(rule.per_unit ?? {})) {
    const s = spec(name);
    if (!s) return `pricing.per_unit.${name} is not an option of this model`;
    const b = numericBounds(s);
    if (!b) return `pricing.per_unit.${name} must name an integer or number option`;
    const ends = [perUnit * b.min, perUnit * b.max, ...(b.absent ? [0] : [])];
    min += Math.min(...ends);
    max += Math.max(...ends);
  }
  if (rule.multiply_by) {
    const s = spec(rule.multiply_by);
    if (!s) return `pricing.multiply_by: ${rule.multiply_by} is not an option of this model`;
    if (s.type !== "integer") return `pricing.multiply_by must name an integer option`;
    const b = numericBounds(s)!;
    if (b.min < 1) return `pricing.multiply_by: ${rule.multiply_by} must be at least 1 (its minimum is ${b.min})`;
    if (min > 0) {
      min *= b.absent ? 1 : b.min;
      max *= b.max;
    }
  }
  if (min <= 0) return `pricing can quote ${Math.ceil(min)} credits for some options: every price must be at least 1`;
  if (max > MAX_TASK_CREDITS)
    return `pricing can quote ${max > Number.MAX_SAFE_INTEGER ? "more than 2^53" : Math.ceil(max)} credits for some options, above the limit of ${MAX_TASK_CREDITS}`;
  return null;
}

/**
 * Every priced variant of a rule for the admin's margin table: the cartesian product of the values of the options
 * the rule names (enum values, listed integers, a numeric option's bounds), at most `limit` rows.
 */
export function priceVariants(
  rule: PriceRule,
  specs: Readonly<Record<string, OptionSpec>>,
  limit = 24,
): { options: Record<string, unknown>; credits: number }[] {
  const names = [
    ...new Set([...Object.keys(rule.add ?? {}), ...Object.keys(rule.per_unit ?? {}), rule.multiply_by ?? ""]),
  ].filter((n) => n && Object.hasOwn(specs, n));
  const valuesOf = (s: OptionSpec): unknown[] => {
    if (s.type === "enum") return [...s.values];
    if (s.type === "boolean") return [false, true];
    if (s.type === "integer") return s.values ? [...s.values] : [...new Set([s.min, s.max])];
    if (s.type === "number") return [...new Set([s.min, s.max])];
    return [];
  };
  let combos: Record<string, unknown>[] = [{}];
  for (const name of names) {
    const next: Record<string, unknown>[] = [];
    for (const c of combos) for (const v of valuesOf(specs[name]!)) next.push({ ...c, [name]: v });
    combos = next.slice(0, limit);
  }
  return combos.map((options) => ({ options, credits: quoteCredits(rule, specs, options) }));
}

/** The price of one task of this model with these options (validated): the server's quote. */
export const priceOf = (
  o: { credits: number; pricing?: PriceRule | null; options: Readonly<Record<string, OptionSpec>> },
  options: Record<string, unknown>,
): number => quoteCredits(ruleOf(o), o.options, options);
