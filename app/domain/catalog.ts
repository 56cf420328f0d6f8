/**
 * The catalog (DESIGN §2): the single source of truth for which provider
 * offers which model for which ai_type, and what it costs. Validation, pricing,
 * the studio's pickers and the API docs all read this table.
 */
export type AiType = "image" | "video";
export const AI_TYPES: readonly AiType[] = ["image", "video"];

export type ProviderName = "openai" | "replicate" | "kling" | "runway";
export const PROVIDERS: readonly ProviderName[] = ["openai", "replicate", "kling", "runway"];

export interface Offering {
  aiType: AiType;
  provider: ProviderName;
  model: string;
  credits: number;
  label: string;
  /** How the upstream API behaves: one call returns results, or submit + poll. */
  lifecycle: "sync" | "async";
}

export const CATALOG: readonly Offering[] = [
  { aiType: "image", provider: "openai", model: "dall-e-3", credits: 5, label: "DALL·E 3", lifecycle: "sync" },
  { aiType: "image", provider: "openai", model: "gpt-image-1", credits: 8, label: "GPT Image 1", lifecycle: "sync" },
  { aiType: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", credits: 3, label: "FLUX.1 [schnell]", lifecycle: "async" },
  { aiType: "image", provider: "kling", model: "kling-v1", credits: 4, label: "Kling v1 image", lifecycle: "async" },
  { aiType: "video", provider: "runway", model: "gen4.5", credits: 10, label: "Runway Gen-4.5", lifecycle: "async" },
  { aiType: "video", provider: "kling", model: "kling-v1", credits: 10, label: "Kling v1 video", lifecycle: "async" },
  { aiType: "video", provider: "kling", model: "kling-v1-6", credits: 15, label: "Kling v1.6 video", lifecycle: "async" },
];

export const isAiType = (v: unknown): v is AiType => v === "image" || v === "video";

export function providersFor(aiType: AiType): ProviderName[] {
  return [...new Set(CATALOG.filter((o) => o.aiType === aiType).map((o) => o.provider))];
}

export function modelsFor(aiType: AiType, provider: string): Offering[] {
  return CATALOG.filter((o) => o.aiType === aiType && o.provider === provider);
}

export function findOffering(aiType: string, provider: string, model: string): Offering | undefined {
  return CATALOG.find((o) => o.aiType === aiType && o.provider === provider && o.model === model);
}
