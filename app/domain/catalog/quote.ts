/**
 * `POST /api/generator/quote` (docs/catalog.md "Price rules"): what a task would cost, by the same checks as
 * generate (the model, its options) and the same rule the create charges — nothing is written.
 */
import { z } from "zod";
import { resolveOffering } from "~/domain/generations/validate.server";
import { AppError } from "~/lib/errors";
import { priceOf } from "./pricing";

export const QuoteSchema = z.object({
  ai_type: z.string().optional().describe("image | video"),
  provider: z.string().optional(),
  model: z.string().optional(),
  options: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .describe("the options the task would be created with"),
});

export function quoteTask(raw: Record<string, unknown>): { credits: number } {
  const { ai_type, provider, model, options } = raw;
  const named = (v: unknown) => typeof v === "string" && v.trim() !== "";
  if (!named(ai_type) || !named(provider) || !named(model))
    throw new AppError("INVALID_PARAMS", { reason: "ai_type, provider, model required" });
  const { offering, options: accepted } = resolveOffering(
    ai_type as string,
    provider as string,
    model as string,
    options,
  );
  return { credits: priceOf(offering, accepted) };
}
