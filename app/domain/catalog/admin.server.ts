/**
 * The admin's changes to the catalog (docs/catalog.md): list every model, and upsert one — a new model (of any
 * provider; for Replicate any `owner/name`, for fal any endpoint id) or a change to one (price, on/off sale,
 * label, upstream id, options, plan-only, upstream cost). A price change applies to tasks created after it.
 */
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, one, run } from "#db/client";
import { catalogModels } from "#db/schema";
import {
  AI_TYPES,
  allOfferings,
  findOffering,
  IMAGE_OPTION_NAMES,
  type Offering,
  type OptionSpec,
  PROVIDERS,
  type ProviderName,
} from "~/domain/catalog";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { googleLifecycle } from "~/providers/google.server";
import { optionsJsonSchema } from "./json-schema";
import { isFlat, MAX_RULE_FIGURE, MAX_TASK_CREDITS, type PriceRule, priceRuleProblem, ruleOf } from "./pricing";
import { refreshCatalog, toCatalogRow, toOffering } from "./store.server";

const reason = (name: string, rule: string) => `${name} must be ${rule}`;
const label = z.string().trim().min(1).max(100);
const help = z.string().trim().max(300).optional();
const unit = z.string().trim().max(10).optional();
const param = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "param must be a field name")
  .optional();
const common = { label, help, unit, required: z.boolean().optional(), param };
const finite = z.number().finite();

export const OptionSpecSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("enum"),
    values: z.array(z.string().max(100)).min(1).max(100),
    default: z.string(),
    ...common,
  }),
  z.strictObject({
    type: z.literal("integer"),
    min: z.int(),
    max: z.int(),
    default: z.int().optional(),
    values: z.array(z.int()).min(1).max(100).optional(),
    ...common,
  }),
  z.strictObject({ type: z.literal("number"), min: finite, max: finite, default: finite.optional(), ...common }),
  z.strictObject({ type: z.literal("boolean"), default: z.boolean(), ...common }),
  z.strictObject({ type: z.literal("text"), maxLength: z.int().min(1).max(10_000), ...common }),
  z.strictObject({ type: z.literal("image"), ...common }),
]);

/** The options of a model: known names, each spec consistent (bounds in order, default among the values). */
export const OptionsSchema = z
  .record(
    z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "option names are lowercase letters, digits and _"),
    OptionSpecSchema,
  )
  .refine((o) => Object.keys(o).length <= 40, "at most 40 options")
  .superRefine((options, ctx) => {
    for (const [name, spec] of Object.entries(options)) {
      const problem = specProblem(name, spec as OptionSpec);
      if (problem) ctx.addIssue({ code: "custom", message: `options.${name}: ${problem}`, path: [name] });
    }
  });

function specProblem(name: string, spec: OptionSpec): string | null {
  const imageName = (IMAGE_OPTION_NAMES as readonly string[]).includes(name);
  if (spec.type === "image" && !imageName) return `an image option is named ${IMAGE_OPTION_NAMES.join(", ")}`;
  if (spec.type !== "image" && imageName) return `${name} is reserved for an image option`;
  if (name === "prompt") return "prompt is the task's prompt, not an option";
  if ((spec.type === "integer" || spec.type === "number") && spec.min > spec.max) return "min is above max";
  if ((spec.type === "integer" || spec.type === "number") && spec.default !== undefined) {
    if (spec.default < spec.min || spec.default > spec.max) return "the default is out of bounds";
  }
  if (spec.type === "integer" && spec.values && spec.default !== undefined && !spec.values.includes(spec.default))
    return "the default is not one of the values";
  if (spec.type === "enum" && !spec.values.includes(spec.default)) return "the default is not one of the values";
  return null;
}

const figure = (name: string) =>
  z
    .int({ error: reason(name, `an integer from -${MAX_RULE_FIGURE} to ${MAX_RULE_FIGURE}`) })
    .min(-MAX_RULE_FIGURE, reason(name, `an integer from -${MAX_RULE_FIGURE} to ${MAX_RULE_FIGURE}`))
    .max(MAX_RULE_FIGURE, reason(name, `an integer from -${MAX_RULE_FIGURE} to ${MAX_RULE_FIGURE}`));
const optionName = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "pricing names options by their lowercase names");

/** A price rule as the admin sends it (docs/catalog.md "Price rules"); checked against the model's options on save. */
export const PriceRuleSchema = z.strictObject(
  {
    base: z
      .int({ error: reason("pricing.base", `an integer from 1 to ${MAX_TASK_CREDITS}`) })
      .min(1, reason("pricing.base", `an integer from 1 to ${MAX_TASK_CREDITS}`))
      .max(MAX_TASK_CREDITS, reason("pricing.base", `an integer from 1 to ${MAX_TASK_CREDITS}`)),
    add: z
      .record(optionName, z.record(z.string().max(100), figure("pricing.add values")))
      .refine((a) => Object.keys(a).length <= 40, "pricing.add: at most 40 options")
      .optional(),
    per_unit: z
      .record(optionName, figure("pricing.per_unit values"))
      .refine((a) => Object.keys(a).length <= 40, "pricing.per_unit: at most 40 options")
      .optional(),
    multiply_by: optionName.optional(),
  },
  { error: "pricing must be {base, add?, per_unit?, multiply_by?}" },
);

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;

export const ModelUpsertSchema = z.object({
  ai_type: z.enum(AI_TYPES, { error: reason("ai_type", "image or video") }),
  provider: z.enum(PROVIDERS, { error: reason("provider", PROVIDERS.join(", ")) }),
  model: z
    .string({ error: reason("model", "a string") })
    .trim()
    .regex(MODEL_ID, reason("model", "letters, digits and . _ : / - (max 200)"))
    .refine((m) => !m.split("/").includes(".."), reason("model", "without .. segments")),
  label: label.optional(),
  credits: z
    .int({ error: reason("credits", "an integer from 1 to 1000000") })
    .min(1, reason("credits", "an integer from 1 to 1000000"))
    .max(1_000_000, reason("credits", "an integer from 1 to 1000000"))
    .optional(),
  pricing: PriceRuleSchema.nullable().optional(),
  enabled: z.boolean({ error: reason("enabled", "true or false") }).optional(),
  upstream_model: z
    .string()
    .trim()
    .regex(MODEL_ID, reason("upstream_model", "letters, digits and . _ : / - (max 200)"))
    .nullable()
    .optional(),
  options: OptionsSchema.optional(),
  requires_plan: z.boolean({ error: reason("requires_plan", "true or false") }).optional(),
  cost: z
    .strictObject({ usd: z.number().min(0).max(10_000), per: z.enum(["task", "second"]) })
    .nullable()
    .optional(),
  typical_seconds: z.int().min(1).max(86_400).optional(),
});
export type ModelUpsertInput = z.output<typeof ModelUpsertSchema>;

/** One model as the admin sees it. */
export function toAdminModel(o: Offering) {
  return {
    ai_type: o.aiType,
    provider: o.provider,
    model: o.model,
    label: o.label,
    credits: o.credits,
    pricing: ruleOf(o),
    enabled: o.enabled !== false,
    requires_plan: o.requiresPlan === true,
    upstream_model: o.upstreamModel ?? null,
    options: o.options as Record<string, unknown>,
    options_schema: optionsJsonSchema(o),
    cost: o.cost ?? null,
    lifecycle: o.lifecycle,
    typical_seconds: o.typicalSeconds,
  };
}
export type AdminModel = ReturnType<typeof toAdminModel>;

/** Every model, enabled or not, as the catalog holds it now (this process reads the table first). */
export async function adminListModels(db: Db): Promise<AdminModel[]> {
  await refreshCatalog(db);
  return allOfferings().map(toAdminModel);
}

function lifecycleFor(provider: ProviderName, aiType: "image" | "video", model: string): "sync" | "async" {
  if (provider === "openai") return "sync";
  if (provider === "google")
    return aiType === "video" ? "async" : googleLifecycle(model, findOffering("video", "google", model) !== undefined);
  return "async";
}

/**
 * Creates or changes one model. A new model needs `credits` (its label defaults to its id); a change touches
 * only the fields given and bumps the row's revision, which every process notices within a second.
 */
export async function adminUpsertModel(db: Db, input: ModelUpsertInput, clock: Clock): Promise<AdminModel> {
  const key = and(
    eq(catalogModels.aiType, input.ai_type),
    eq(catalogModels.provider, input.provider),
    eq(catalogModels.model, input.model),
  );
  const now = new Date(clock.now());
  if (input.pricing && input.credits !== undefined && input.credits !== input.pricing.base)
    throw new AppError("INVALID_PARAMS", { reason: "credits and pricing.base differ: send one of them" });
  const base = input.pricing?.base ?? input.credits;
  await db.tx(function* (t) {
    const existing = yield* one(
      t
        .select({ options: catalogModels.options, credits: catalogModels.credits, pricing: catalogModels.pricing })
        .from(catalogModels)
        .where(key),
    );
    // The rule the row will hold, checked against the options it will hold (a change of options re-checks the rule).
    const options = (input.options ?? (existing ? JSON.parse(existing.options) : {})) as Record<string, OptionSpec>;
    const rule: PriceRule | null =
      input.pricing !== undefined
        ? input.pricing
        : input.credits === undefined && existing?.pricing
          ? { ...(JSON.parse(existing.pricing) as PriceRule), base: Number(existing.credits) }
          : null;
    if (rule) {
      const problem = priceRuleProblem(rule, options);
      if (problem) throw new AppError("INVALID_PARAMS", { reason: problem });
    }
    if (!existing) {
      if (base === undefined) throw new AppError("INVALID_PARAMS", { reason: "credits is required for a new model" });
      const offering: Offering = {
        aiType: input.ai_type,
        provider: input.provider,
        model: input.model,
        label: input.label ?? input.model,
        credits: base,
        pricing: rule,
        lifecycle: lifecycleFor(input.provider, input.ai_type, input.upstream_model ?? input.model),
        options: (input.options ?? {}) as Record<string, OptionSpec>,
        typicalSeconds: input.typical_seconds ?? (input.ai_type === "video" ? 120 : 20),
        sample: "",
        enabled: input.enabled ?? true,
        requiresPlan: input.requires_plan ?? false,
        ...(input.upstream_model ? { upstreamModel: input.upstream_model } : {}),
        cost: input.cost ?? null,
      };
      const order = allOfferings().length * 10 + 10;
      yield* run(t.insert(catalogModels).values(toCatalogRow(offering, order, now, "admin")));
      return;
    }
    const set: Partial<typeof catalogModels.$inferInsert> = { updatedAt: now };
    if (input.label !== undefined) set.label = input.label;
    if (base !== undefined) set.credits = base;
    if (input.pricing !== undefined || input.credits !== undefined)
      set.pricing = rule && !isFlat(rule) ? JSON.stringify(rule) : null;
    if (input.enabled !== undefined) set.enabled = input.enabled;
    if (input.requires_plan !== undefined) set.requiresPlan = input.requires_plan;
    if (input.upstream_model !== undefined) set.upstreamModel = input.upstream_model;
    if (input.options !== undefined) set.options = JSON.stringify(input.options);
    if (input.typical_seconds !== undefined) set.typicalSeconds = input.typical_seconds;
    if (input.cost !== undefined) {
      set.costMicros = input.cost ? Math.round(input.cost.usd * 1_000_000) : null;
      set.costPer = input.cost ? input.cost.per : null;
    }
    yield* run(
      t
        .update(catalogModels)
        .set({ ...set, revision: sql`${catalogModels.revision} + 1` })
        .where(key),
    );
  });
  await refreshCatalog(db, { force: true });
  const row = await db.one(db.select().from(catalogModels).where(key));
  return toAdminModel(toOffering(row!));
}
