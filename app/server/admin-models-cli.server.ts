/**
 * `atelier admin models …`: the catalog from the command line (docs/catalog.md), through the same domain
 * functions and validation as `POST /api/admin/models/*` and the /admin/models page.
 */
import type { z } from "zod";
import { adminInvalid } from "~/domain/admin/admin.server";
import { adminListModels, adminUpsertModel, ModelUpsertSchema } from "~/domain/catalog/admin.server";
import { importFal, importReplicate } from "~/domain/catalog/import.server";
import type { Services } from "~/http/services.server";
import { AppError } from "~/lib/errors";

export const MODELS_HELP = `  models list          Every model, on sale or not, with price and upstream cost
  models set           Add a model, or change the one with this type + provider + model
      --ai-type image|video --provider <name> --model <id>
      [--credits <n>]               the price (required for a new model)
      [--label <text>] [--enabled true|false] [--requires-plan true|false]
      [--upstream-model <id>]       the id sent upstream when it differs
      [--options-json <json>]       the option specs (see docs/catalog.md)
      [--cost-usd <n> --cost-per task|second]   what the provider charges
  models import        Read a Replicate (owner/name) or fal (endpoint id) model's inputs as option specs
      --provider replicate|fal --model <id>`;

export const MODELS_OPTIONS = {
  "ai-type": { type: "string" },
  provider: { type: "string" },
  model: { type: "string" },
  label: { type: "string" },
  enabled: { type: "string" },
  "requires-plan": { type: "string" },
  "upstream-model": { type: "string" },
  "options-json": { type: "string" },
  "cost-usd": { type: "string" },
  "cost-per": { type: "string" },
} as const;

const bool = (v: string | undefined) => (v === undefined ? undefined : v === "true" ? true : v === "false" ? false : v);
const number = (v: string | undefined) => (v !== undefined && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v);

function parse<S extends z.ZodType>(schema: S, raw: Record<string, unknown>): z.output<S> {
  const r = schema.safeParse(Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)));
  if (!r.success) throw adminInvalid(r.error);
  return r.data;
}

export async function runModelsCli(
  services: Services,
  sub: string | undefined,
  v: Record<string, string | boolean | undefined>,
  out: (data: unknown, text: string) => void,
): Promise<number> {
  const s = (k: string) => (typeof v[k] === "string" ? (v[k] as string) : undefined);
  switch (sub) {
    case "list": {
      const models = await adminListModels(services.db);
      const lines = models.map(
        (m) =>
          `${m.ai_type.padEnd(5)}  ${m.provider.padEnd(9)}  ${m.model.padEnd(48)}  ${String(m.credits).padStart(6)} credits  ${m.enabled ? "on sale " : "off sale"}${m.requires_plan ? "  plan only" : ""}${m.cost ? `  cost $${m.cost.usd}/${m.cost.per}` : ""}`,
      );
      out(models, lines.join("\n") || "no models");
      return 0;
    }
    case "set": {
      let options: unknown;
      if (s("options-json") !== undefined) {
        try {
          options = JSON.parse(s("options-json")!);
        } catch {
          throw new AppError("INVALID_PARAMS", { reason: "--options-json must be JSON" });
        }
      }
      const usd = number(s("cost-usd"));
      const input = parse(ModelUpsertSchema, {
        ai_type: s("ai-type"),
        provider: s("provider"),
        model: s("model"),
        label: s("label"),
        credits: number(s("credits")),
        enabled: bool(s("enabled")),
        requires_plan: bool(s("requires-plan")),
        upstream_model: s("upstream-model"),
        options,
        cost: usd === undefined ? undefined : { usd, per: s("cost-per") ?? "task" },
      });
      const m = await adminUpsertModel(services.db, input, services.clock);
      out(
        m,
        `saved ${m.ai_type} ${m.provider} ${m.model}: ${m.credits} credits, ${m.enabled ? "on sale" : "off sale"}`,
      );
      return 0;
    }
    case "import": {
      const provider = s("provider");
      const model = s("model") ?? "";
      const r =
        provider === "fal"
          ? await importFal(services.config, model)
          : provider === "replicate"
            ? await importReplicate(services.config, model)
            : null;
      if (!r) throw new AppError("INVALID_PARAMS", { reason: "--provider must be replicate or fal" });
      out(r, JSON.stringify(r.options, null, 2));
      return 0;
    }
    default:
      throw new AppError("INVALID_PARAMS", { reason: "models takes list, set or import" });
  }
}
