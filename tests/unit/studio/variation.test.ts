/** Variation's seed (app/domain/studio/variation.ts): within the model's seed option, none where it has none. */
import { expect, test } from "bun:test";
import { findOffering } from "~/domain/catalog";
import { variationSeed } from "~/domain/studio/variation";

test("a seed within the model's range; none for a model without a seed", () => {
  const flux = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!;
  expect(variationSeed(flux, () => 0)).toBe(0);
  expect(variationSeed(flux, () => 0.999999999999)).toBe(2_147_483_647);
  expect(variationSeed(flux, () => 0.5)).toBe(1_073_741_824);
  expect(variationSeed(findOffering("image", "openai", "dall-e-3")!)).toBeUndefined();
});
