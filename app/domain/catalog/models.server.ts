/** `POST /api/models` (docs/catalog.md): the models on sale, each with its price, mode, inputs and options. */
import { inputsOf, type Offering, offeredModels, typicalSecondsHere } from "~/domain/catalog";
import type { ProviderRegistry } from "~/domain/generations/registry.server";
import type { Config } from "~/lib/config.server";
import { type ModelInfo, optionsJsonSchema } from "./json-schema";
import { ruleOf } from "./pricing";

export function toModelInfo(o: Offering, mode: "live" | "simulated", simulatorDelayMs: number): ModelInfo {
  return {
    ai_type: o.aiType,
    provider: o.provider,
    model: o.model,
    label: o.label,
    credits: o.credits,
    pricing: ruleOf(o),
    mode,
    inputs: inputsOf(o),
    options: optionsJsonSchema(o),
    typical_seconds: typicalSecondsHere(o, mode, simulatorDelayMs),
    requires_plan: o.requiresPlan === true,
  };
}

export async function listModels(deps: {
  providers: Pick<ProviderRegistry, "mode">;
  config: Pick<Config, "SIMULATOR_DELAY_MS">;
}): Promise<ModelInfo[]> {
  return offeredModels().map((o) => toModelInfo(o, deps.providers.mode(o.provider), deps.config.SIMULATOR_DELAY_MS));
}
