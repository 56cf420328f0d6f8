/**
 * The live catalog (docs/catalog.md): every model on sale or taken off it, with its price and options. Seeded
 * from app/domain/catalog.ts on start (missing rows only, so an admin's changes stay), changed by admins.
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, ms } from "./columns";

export const catalogModels = sqliteTable(
  "catalog_models",
  {
    aiType: text("ai_type").notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    label: text("label").notNull(),
    /** The price of one task; a task keeps the price it was created at (generations.credits_cost). */
    credits: integer("credits").notNull(),
    /** JSON: the price rule `{base, add?, per_unit?, multiply_by?}` when the price follows the options; null: `{base: credits}`. */
    pricing: text("pricing"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    requiresPlan: integer("requires_plan", { mode: "boolean" }).notNull().default(false),
    /** The model id sent upstream when it differs from `model`. */
    upstreamModel: text("upstream_model"),
    /** JSON: the options the model accepts, as app/domain/catalog.ts's OptionSpec record. */
    options: text("options").notNull().default("{}"),
    /** sync | async */
    lifecycle: text("lifecycle").notNull(),
    typicalSeconds: integer("typical_seconds").notNull(),
    sample: text("sample").notNull().default(""),
    /** What the provider charges, in millionths of a US dollar per `cost_per` (task | second); null: unknown. */
    costMicros: integer("cost_micros"),
    costPer: text("cost_per"),
    sortOrder: integer("sort_order").notNull().default(0),
    /** seed | admin */
    source: text("source").notNull().default("seed"),
    /** Bumped by every change: processes compare the sum to notice a change made elsewhere. */
    revision: integer("revision").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.aiType, t.provider, t.model] })],
);
