/** Spec 4.1's checks of a generate request, in order, before anything is written. */
import {
  type AiType,
  findOffering,
  isAiType,
  type Offering,
  optionsProblem,
  type ProviderName,
  providersFor,
} from "~/domain/catalog";
import { priceOf } from "~/domain/catalog/pricing";
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";

export const MAX_PROMPT_LENGTH = 4000;

export interface GenerateInput {
  offering: Offering;
  prompt: string;
  options: Record<string, unknown>;
  /**
   * The price of this task by its model's rule and options (docs/catalog.md "Price rules"): what is reserved and
   * charged. Absent (an input built by hand), taskPrice works it out from the offering and the options.
   */
  credits?: number;
}

const present = (v: unknown): v is string => typeof v === "string" && v.trim() !== "";

/**
 * Spec 4.1 rules in order: the four fields (missing, empty or not a string),
 * then ai_type, provider for that type, model for that provider, prompt
 * length, options (what the model declares in the catalog: known keys,
 * values in range, ≤ 8 KB of JSON) — all before anything is written.
 */
export function validateGenerateInput(raw: Record<string, unknown>): GenerateInput {
  const { ai_type, provider, model, prompt, options } = raw;
  if (!present(ai_type) || !present(provider) || !present(model) || !present(prompt)) {
    throw new AppError("GENERATION_FIELDS_REQUIRED");
  }
  const resolved = resolveOffering(ai_type, provider, model, options, () => {
    if (prompt.length > MAX_PROMPT_LENGTH) throw new AppError("PROMPT_TOO_LONG", { max: MAX_PROMPT_LENGTH });
  });
  return { ...resolved, prompt, credits: priceOf(resolved.offering, resolved.options) };
}

/**
 * The model and options of a request in spec 4.1's order (ai_type, provider, model, enabled, then `between` — the
 * prompt's length for generate — then the options), shared by generate and quote.
 */
export function resolveOffering(
  ai_type: string,
  provider: string,
  model: string,
  options: unknown,
  between?: () => void,
): { offering: Offering; options: Record<string, unknown> } {
  if (!isAiType(ai_type)) throw new AppError("INVALID_AI_TYPE");
  if (!providersFor(ai_type).includes(provider as ProviderName)) {
    throw new AppError("UNSUPPORTED_PROVIDER", { aiType: ai_type, provider });
  }
  const offering = findOffering(ai_type, provider, model);
  if (!offering) throw new AppError("UNSUPPORTED_MODEL", { model });
  if (offering.enabled === false) throw new AppError("MODEL_DISABLED", { model });
  between?.();
  const problem = optionsProblem(offering, options);
  if (problem) throw new AppError("INVALID_OPTIONS", { reason: problem });
  return { offering, options: (options as Record<string, unknown> | null | undefined) ?? {} };
}

/** What a task of this input costs: its quote, or the rule applied to its options. */
export const taskPrice = (input: GenerateInput): number => input.credits ?? priceOf(input.offering, input.options);

export function deadlineFor(aiType: AiType, config: Pick<Config, "IMAGE_DEADLINE_MS" | "VIDEO_DEADLINE_MS">): number {
  return aiType === "video" ? config.VIDEO_DEADLINE_MS : config.IMAGE_DEADLINE_MS;
}
