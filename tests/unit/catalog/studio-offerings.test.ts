/** The studio's models (app/domain/catalog/studio-offerings.ts): kept per catalog, new when the catalog or a mode changes. */
import { expect, test } from "bun:test";
import { CATALOG, speedHint } from "~/domain/catalog";
import { studioOfferings } from "~/domain/catalog/studio-offerings";

const simulated = () => "simulated" as const;

test("the same catalog answers the same list; an edited catalog or a provider's mode answers a new one", () => {
  const first = studioOfferings(CATALOG, simulated, 2000);
  expect(studioOfferings(CATALOG, simulated, 2000)).toBe(first);
  expect(first.map((o) => o.value)).toEqual(
    CATALOG.filter((o) => o.enabled !== false).map((o) => `${o.aiType}|${o.provider}|${o.model}`),
  );
  // Only what the page uses reaches the browser (the price rule: the live price on Generate): not the provider's own price or the upstream model id.
  expect(Object.keys(first[0]!).sort()).toEqual(
    [
      "aiType",
      "credits",
      "label",
      "mode",
      "model",
      "options",
      "pricing",
      "provider",
      "sampleImage",
      "speed",
      "value",
    ].sort(),
  );

  const repriced = CATALOG.map((o, i) => (i === 0 ? { ...o, credits: o.credits + 7 } : o));
  const edited = studioOfferings(repriced, simulated, 2000);
  expect(edited).not.toBe(first);
  expect(edited[0]!.credits).toBe(CATALOG[0]!.credits + 7);

  const disabled = CATALOG.map((o, i) => (i === 0 ? { ...o, enabled: false } : o));
  expect(studioOfferings(disabled, simulated, 2000).map((o) => o.value)).not.toContain(first[0]!.value);

  const live = studioOfferings(CATALOG, () => "live", 2000);
  expect(live[0]!.mode).toBe("live");
  expect(first[0]!.speed).toBe("~2 s");
  expect(live[0]!.speed).toBe(speedHint(CATALOG[0]!.typicalSeconds));
});
