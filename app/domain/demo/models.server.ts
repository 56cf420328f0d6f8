/**
 * Chooses the `ai` SDK model for a demo call: a live OpenAI-compatible
 * endpoint through `@ai-sdk/openai` when the provider's key is configured,
 * otherwise the simulator. Both are real providers of the SDK's interfaces, so
 * everything downstream is one code path.
 */
import { createOpenAI } from "@ai-sdk/openai";
import type { ImageModelV4, LanguageModelV4 } from "@ai-sdk/provider";
import { REWRITER_INSTRUCTIONS, simulatedEnhancement } from "~/domain/studio/enhance";
import type { Config } from "~/lib/config.server";
import { type RenderPng, SimulatedImageModel } from "~/providers/simulator/image-model.server";
import { SimulatedLanguageModel } from "~/providers/simulator/language-model.server";
import { renderImagePng } from "~/providers/simulator/render.server";
import { createStorage } from "~/storage/index.server";
import type { ResultStorage } from "~/storage/types";
import type { TextProviderInfo, TextProviderName } from "./catalog";

export type DemoMode = "live" | "simulated";

export interface ResolvedModel<M> {
  model: M;
  mode: DemoMode;
}

/** The credentials and endpoint of each text provider, from configuration. */
export function textProviderEndpoint(config: Config, name: TextProviderName): { apiKey?: string; baseURL: string } {
  switch (name) {
    case "openai":
      return { apiKey: config.OPENAI_API_KEY, baseURL: config.OPENAI_BASE_URL };
    case "deepseek":
      return { apiKey: config.DEEPSEEK_API_KEY, baseURL: config.DEEPSEEK_BASE_URL };
    case "openrouter":
      return { apiKey: config.OPENROUTER_API_KEY, baseURL: config.OPENROUTER_BASE_URL };
    case "siliconflow":
      return { apiKey: config.SILICONFLOW_API_KEY, baseURL: config.SILICONFLOW_BASE_URL };
  }
}

export function textProviderMode(config: Config, name: TextProviderName): DemoMode {
  return textProviderEndpoint(config, name).apiKey ? "live" : "simulated";
}

export function imageProviderMode(config: Config, name: string): DemoMode {
  return name === "openai" && config.OPENAI_API_KEY ? "live" : "simulated";
}

/** Where demo images are stored: the same result storage as generations (docs/design.md §4). */
export function demoStorage(config: Config): ResultStorage {
  return createStorage(config);
}

/** MODEL_MAP may point a public model id at another upstream id. */
const upstreamModel = (config: Config, provider: string, model: string) =>
  config.modelMap[`${provider}:${model}`] ?? model;

export interface DemoModels {
  text(provider: TextProviderInfo, model: string): ResolvedModel<LanguageModelV4>;
  image(provider: string, model: string): ResolvedModel<ImageModelV4>;
}

/** `renderPng` defaults to the simulator's renderer (the one generation tasks use). */
export function createDemoModels(config: Config, deps: { renderPng?: RenderPng } = {}): DemoModels {
  const renderPng = deps.renderPng ?? renderImagePng;
  return {
    text(provider, model) {
      const { apiKey, baseURL } = textProviderEndpoint(config, provider.name);
      if (!apiKey) {
        return {
          mode: "simulated",
          model: new SimulatedLanguageModel(provider.name, model, {
            wordDelayMs: config.DEMO_SIMULATOR_WORD_MS,
            rewriter: { instructions: REWRITER_INSTRUCTIONS, rewrite: simulatedEnhancement },
          }),
        };
      }
      const client = createOpenAI({ apiKey, baseURL, name: provider.name });
      const id = upstreamModel(config, provider.name, model);
      return { mode: "live", model: provider.api === "responses" ? client.responses(id) : client.chat(id) };
    },
    image(provider, model) {
      if (provider === "openai" && config.OPENAI_API_KEY) {
        const client = createOpenAI({ apiKey: config.OPENAI_API_KEY, baseURL: config.OPENAI_BASE_URL });
        return { mode: "live", model: client.image(upstreamModel(config, provider, model)) };
      }
      return { mode: "simulated", model: new SimulatedImageModel(provider, model, renderPng) };
    },
  };
}
