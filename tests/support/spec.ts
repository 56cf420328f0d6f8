/**
 * Figures copied by hand from docs/api.md (and docs/design.md for what the contract leaves open), for tests that
 * must not take their expectations from the code under test (docs/testing.md, "Tests pin the contract, not the code").
 */

/** Every model offered and its price: docs/api.md §8.1 (the five rows it shows) + docs/design.md §2 (the other two). */
export const PRICES: [aiType: "image" | "video", provider: string, model: string, credits: number, source: string][] = [
  ["image", "openai", "dall-e-3", 5, "docs/api.md §8.1"],
  ["image", "replicate", "black-forest-labs/flux-schnell", 3, "docs/api.md §8.1"],
  ["image", "kling", "kling-v1", 4, "docs/api.md §8.1"],
  ["video", "runway", "gen4.5", 10, "docs/api.md §8.1"],
  ["video", "kling", "kling-v1", 10, "docs/api.md §8.1"],
  ["image", "openai", "gpt-image-1", 8, "docs/design.md §2"],
  ["video", "kling", "kling-v1-6", 15, "docs/design.md §2"],
];

/** The same rows as objects. */
export const PRICED = PRICES.map(([aiType, provider, model, credits]) => ({ aiType, provider, model, credits }));
