/** Price rules (docs/catalog.md "Price rules"): the quote, its bounds and rounding, and the checks made on save. */
import { describe, expect, test } from "bun:test";
import type { OptionSpec } from "~/domain/catalog";
import {
  isFlat,
  MAX_TASK_CREDITS,
  type PriceRule,
  priceRuleProblem,
  priceVariants,
  quoteCredits,
} from "~/domain/catalog/pricing";

const VIDEO: Record<string, OptionSpec> = {
  duration: { type: "integer", min: 5, max: 10, values: [5, 10], default: 5, label: "Duration", unit: "s" },
  quality: { type: "enum", values: ["low", "medium", "high"], default: "low", label: "Quality" },
  num_images: { type: "integer", min: 1, max: 4, default: 1, label: "Images" },
  seconds: { type: "integer", min: 1, max: 100_000, label: "Seconds" },
  cfg_scale: { type: "number", min: 0, max: 1, default: 0.5, label: "Adherence" },
  hd: { type: "boolean", default: false, label: "HD" },
  negative_prompt: { type: "text", maxLength: 100, label: "Negative" },
};

describe("quoteCredits", () => {
  test("the contract's rule: base 10 + 2 per second", () => {
    const rule = { base: 10, per_unit: { duration: 2 } };
    expect(quoteCredits(rule, VIDEO, { duration: 10 })).toBe(30);
    expect(quoteCredits(rule, VIDEO, { duration: 5 })).toBe(20);
    // Left out: the option's default (5).
    expect(quoteCredits(rule, VIDEO, {})).toBe(20);
  });

  test("a flat price is the base whatever the options", () => {
    expect(quoteCredits({ base: 5 }, VIDEO, { duration: 10, quality: "high" })).toBe(5);
    expect(isFlat({ base: 5 })).toBe(true);
    expect(isFlat({ base: 5, add: {} })).toBe(true);
    expect(isFlat({ base: 5, multiply_by: "num_images" })).toBe(false);
  });

  test("add per value, unlisted values add nothing, booleans by their text", () => {
    const rule: PriceRule = { base: 4, add: { quality: { high: 6, medium: 2 }, hd: { true: 3 } } };
    expect(quoteCredits(rule, VIDEO, { quality: "high" })).toBe(10);
    expect(quoteCredits(rule, VIDEO, { quality: "medium" })).toBe(6);
    expect(quoteCredits(rule, VIDEO, { quality: "low" })).toBe(4);
    expect(quoteCredits(rule, VIDEO, { quality: "high", hd: true })).toBe(13);
  });

  test("multiply_by multiplies the whole, after add and per_unit", () => {
    const rule: PriceRule = { base: 4, add: { quality: { high: 6 } }, multiply_by: "num_images" };
    expect(quoteCredits(rule, VIDEO, { quality: "high", num_images: 4 })).toBe(40);
    expect(quoteCredits(rule, VIDEO, { num_images: 1 })).toBe(4);
    expect(quoteCredits(rule, VIDEO, {})).toBe(4);
  });

  test("a fraction rounds up; exact products do not gain a credit from float noise", () => {
    expect(quoteCredits({ base: 1, per_unit: { cfg_scale: 3 } }, VIDEO, { cfg_scale: 0.5 })).toBe(3); // 2.5 → 3
    expect(quoteCredits({ base: 1, per_unit: { cfg_scale: 30 } }, VIDEO, { cfg_scale: 0.1 })).toBe(4); // 1 + 3.0000000000000004
  });

  test("never above the cap, never below 1", () => {
    const rule = { base: 1, per_unit: { seconds: 1_000_000 } };
    expect(quoteCredits(rule, VIDEO, { seconds: 100_000 })).toBe(MAX_TASK_CREDITS);
    expect(quoteCredits({ base: 1, per_unit: { seconds: Number.MAX_SAFE_INTEGER } }, VIDEO, { seconds: 1e6 })).toBe(
      MAX_TASK_CREDITS,
    );
    expect(quoteCredits({ base: 1, add: { quality: { high: -5 } } }, VIDEO, { quality: "high" })).toBe(1);
  });
});

describe("priceRuleProblem", () => {
  test("accepts the rules of the docs", () => {
    expect(priceRuleProblem({ base: 10, per_unit: { duration: 2 } }, VIDEO)).toBeNull();
    expect(priceRuleProblem({ base: 4, add: { quality: { high: 6, medium: 2 } } }, VIDEO)).toBeNull();
    expect(priceRuleProblem({ base: 4, multiply_by: "num_images" }, VIDEO)).toBeNull();
    expect(priceRuleProblem({ base: 3 }, {})).toBeNull();
  });

  test("unknown options and values, and options of the wrong kind", () => {
    expect(priceRuleProblem({ base: 1, per_unit: { speed: 2 } }, VIDEO)).toContain("speed is not an option");
    expect(priceRuleProblem({ base: 1, add: { colour: { red: 1 } } }, VIDEO)).toContain("colour is not an option");
    expect(priceRuleProblem({ base: 1, add: { quality: { ultra: 1 } } }, VIDEO)).toContain("ultra is not a value");
    expect(priceRuleProblem({ base: 1, per_unit: { quality: 2 } }, VIDEO)).toContain("integer or number option");
    expect(priceRuleProblem({ base: 1, add: { negative_prompt: { x: 1 } } }, VIDEO)).toContain("enum, boolean");
    expect(priceRuleProblem({ base: 1, multiply_by: "cfg_scale" }, VIDEO)).toContain("integer option");
    expect(priceRuleProblem({ base: 1, multiply_by: "nothing" }, VIDEO)).toContain("not an option");
  });

  test("zero and negative quotes: refused at the boundary, accepted one above", () => {
    // cheapest variant: 5 + (-4) = 1 → fine; 5 + (-5) = 0 → refused; -6 → refused.
    expect(priceRuleProblem({ base: 5, add: { quality: { high: -4 } } }, VIDEO)).toBeNull();
    expect(priceRuleProblem({ base: 5, add: { quality: { high: -5 } } }, VIDEO)).toContain("at least 1");
    expect(priceRuleProblem({ base: 5, add: { quality: { high: -6 } } }, VIDEO)).toContain("at least 1");
    // A per-unit discount over the option's whole range: 21 - 2×10 = 1 fine, 20 - 2×10 = 0 refused.
    expect(priceRuleProblem({ base: 21, per_unit: { duration: -2 } }, VIDEO)).toBeNull();
    expect(priceRuleProblem({ base: 20, per_unit: { duration: -2 } }, VIDEO)).toContain("at least 1");
    const zeroFactor: Record<string, OptionSpec> = { n: { type: "integer", min: 0, max: 4, default: 1, label: "n" } };
    expect(priceRuleProblem({ base: 5, multiply_by: "n" }, zeroFactor)).toContain("at least 1");
  });

  test("overflow: the dearest variant at the cap is accepted, one over is refused", () => {
    // seconds ≤ 100000: 10 × 100000 = 1000000 exactly.
    expect(priceRuleProblem({ base: 0 + 1, per_unit: { seconds: 10 } }, VIDEO)).toContain("above the limit");
    expect(priceRuleProblem({ base: 1, per_unit: { seconds: 9 } }, VIDEO)).toBeNull();
    expect(priceRuleProblem({ base: 250_000, multiply_by: "num_images" }, VIDEO)).toBeNull();
    expect(priceRuleProblem({ base: 250_001, multiply_by: "num_images" }, VIDEO)).toContain("above the limit");
    const huge: Record<string, OptionSpec> = {
      n: { type: "integer", min: 1, max: Number.MAX_SAFE_INTEGER, default: 1, label: "n" },
    };
    expect(priceRuleProblem({ base: 1_000_000, per_unit: { n: 1_000_000 }, multiply_by: "n" }, huge)).toContain(
      "more than 2^53",
    );
  });

  test("an option with no default counts as left out (adds nothing) for the cheapest variant", () => {
    // seconds has no default: a task may leave it out, so base alone must be ≥ 1.
    expect(priceRuleProblem({ base: 1, per_unit: { seconds: 1 } }, VIDEO)).toBeNull();
  });
});

test("priceVariants lists each priced combination with its quote", () => {
  const variants = priceVariants({ base: 10, per_unit: { duration: 2 }, add: { quality: { high: 6 } } }, VIDEO);
  expect(variants).toHaveLength(6);
  expect(variants).toContainEqual({ options: { quality: "high", duration: 10 }, credits: 36 });
  expect(variants).toContainEqual({ options: { quality: "low", duration: 5 }, credits: 20 });
  expect(priceVariants({ base: 3 }, VIDEO)).toEqual([{ options: {}, credits: 3 }]);
});
