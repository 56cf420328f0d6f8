/**
 * Enhance prompt (docs/studio.md "Enhance prompt"): the demo's text model rewrites a short prompt, charged at its
 * catalog price when the provider is live (chargeDemoCall: check and debit together, given back if the upstream
 * fails) and free when simulated, which it is without a provider key.
 */
import { generateText } from "ai";
import type { Db } from "#db/client";
import { chargeDemoCall, demoPrice } from "~/domain/demo/billing.server";
import { TEXT_PROVIDERS, type TextProviderInfo } from "~/domain/demo/catalog";
import { upstreamError } from "~/domain/demo/demo.server";
import { type DemoModels, textProviderMode } from "~/domain/demo/models.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";
import { cleanEnhanced, ENHANCE_MAX_INPUT, REWRITER_INSTRUCTIONS } from "./enhance";

export interface EnhanceDeps {
  db: Db;
  clock: Clock;
  config: Config;
  models: DemoModels;
}

export interface Enhanced {
  prompt: string;
  provider: string;
  model: string;
  mode: "live" | "simulated";
}

/** The text model that rewrites: the first live provider's first model, else the first one (simulated). */
export function enhanceModel(config: Config): { provider: TextProviderInfo; model: string } {
  const provider = TEXT_PROVIDERS.find((p) => textProviderMode(config, p.name) === "live") ?? TEXT_PROVIDERS[0]!;
  return { provider, model: provider.models[0]! };
}

/** What an Enhance costs here, for the button: the text catalog price when live, nothing when simulated. */
export function enhanceOffer(config: Config): { credits: number; mode: "live" | "simulated" } {
  const { provider, model } = enhanceModel(config);
  return {
    credits: demoPrice(config, "text", { provider: provider.name, model }),
    mode: textProviderMode(config, provider.name),
  };
}

export async function enhancePrompt(
  deps: EnhanceDeps,
  args: { userId: string; prompt: string; signal?: AbortSignal },
): Promise<Enhanced> {
  const prompt = args.prompt.trim();
  if (!prompt) throw new AppError("INVALID_PARAMS", { reason: "write a few words to enhance first" });
  if (prompt.length > ENHANCE_MAX_INPUT)
    throw new AppError("INVALID_PARAMS", {
      reason: `prompt too long to enhance (max ${ENHANCE_MAX_INPUT} characters): it is detailed already`,
    });
  const { provider, model: modelId } = enhanceModel(deps.config);
  const { model, mode } = deps.models.text(provider, modelId);
  const charge = await chargeDemoCall(
    deps,
    "text",
    { provider: provider.name, model: modelId },
    args.userId,
    args.signal,
  );
  try {
    const result = await charge.run(() =>
      generateText({
        model,
        system: REWRITER_INSTRUCTIONS,
        prompt,
        maxOutputTokens: 300,
        maxRetries: 0,
        abortSignal: args.signal,
      }),
    );
    const text = cleanEnhanced(result.text);
    if (!text) throw new AppError("UPSTREAM_FAILED", { provider: provider.name });
    return { prompt: text, provider: provider.name, model: modelId, mode };
  } catch (error) {
    throw upstreamError(provider.name, error);
  }
}
