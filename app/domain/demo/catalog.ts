/**
 * The demo catalog (spec §4.4–4.6): which text providers and models the demo
 * endpoints accept. One table drives validation, the playground's picker and
 * the README. Simulated demo calls are free; a call to a live provider costs
 * DEMO_TEXT_CREDITS (text) or the image model's catalog price (billing.server.ts).
 * All are gated by access and DEMO_RATE_LIMIT (docs/design.md §5).
 *
 * Text providers are OpenAI-compatible endpoints. OpenAI itself is called
 * through the Responses API (`/responses`); the others only speak Chat
 * Completions (`/chat/completions`).
 */
export type TextProviderName = "openai" | "deepseek" | "openrouter" | "siliconflow";
export type TextApi = "responses" | "chat";

export interface TextProviderInfo {
  name: TextProviderName;
  label: string;
  api: TextApi;
  models: readonly string[];
}

export const TEXT_PROVIDERS: readonly TextProviderInfo[] = [
  { name: "openai", label: "OpenAI", api: "responses", models: ["gpt-4o-mini", "gpt-4.1-mini"] },
  { name: "deepseek", label: "DeepSeek", api: "chat", models: ["deepseek-chat"] },
  {
    name: "openrouter",
    label: "OpenRouter",
    api: "chat",
    models: ["openai/gpt-4o-mini", "meta-llama/llama-3.3-70b-instruct"],
  },
  {
    name: "siliconflow",
    label: "SiliconFlow",
    api: "chat",
    models: ["Qwen/Qwen2.5-7B-Instruct", "deepseek-ai/DeepSeek-V3"],
  },
];

export function findTextProvider(provider: string): TextProviderInfo | undefined {
  return TEXT_PROVIDERS.find((p) => p.name === provider);
}

/**
 * Demo images go through the `ai` SDK's `generateImage`, which speaks OpenAI's
 * Images API; the async providers (Replicate, Kling) are for the studio only.
 */
export type DemoImageProviderName = "openai";
export const IMAGE_PROVIDERS: readonly { name: DemoImageProviderName; label: string; models: readonly string[] }[] = [
  { name: "openai", label: "OpenAI", models: ["dall-e-3"] },
];

export function findImageProvider(provider: string) {
  return IMAGE_PROVIDERS.find((p) => p.name === provider);
}

/** What one live text reply costs (a live image costs its model's catalog price). */
export const DEMO_TEXT_CREDITS = 1;

/**
 * The most output tokens a demo text reply may ask for: the
 * price is flat, so the reply must be bounded, or one prompt buys the model's
 * whole output budget (32,768 tokens on gpt-4.1-mini) for one credit.
 */
export const DEMO_TEXT_MAX_OUTPUT_TOKENS = 1024;

/** The longest prompt any endpoint accepts (docs/design.md §1). */
export const MAX_PROMPT = 4000;

/** `provider:model` — the value of the playground's single picker (provider names contain no colon). */
export const targetValue = (provider: string, model: string) => `${provider}:${model}`;
export function splitTarget(value: string): { provider: string; model: string } {
  const i = value.indexOf(":");
  return i < 0 ? { provider: value, model: "" } : { provider: value.slice(0, i), model: value.slice(i + 1) };
}
