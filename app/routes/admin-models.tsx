import { data, Form, Link, useNavigation } from "react-router";
import { PriceVariants } from "~/components/admin/price-variants";
import { Button, buttonVariants, Card, DataTable, Field, Notice, PageHeader, Select, TextArea } from "~/components/ui";
import { AI_TYPES, PROVIDERS, providerName } from "~/domain/catalog";
import { adminListModels, adminUpsertModel, ModelUpsertSchema } from "~/domain/catalog/admin.server";
import { type ImportedInputs, importFal, importReplicate } from "~/domain/catalog/import.server";
import { fieldErrors } from "~/http/forms";
import { getGenerationRuntime } from "~/http/generation-runtime.server";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { isAppError } from "~/lib/errors";
import type { Route } from "./+types/admin-models";

export const meta: Route.MetaFunction = () => [{ title: "Models — Admin — Atelier" }];

/** Non-admins get the same 404 as a page that does not exist. */
async function requireAdmin(request: Request) {
  const ui = await requireUiUser(request);
  if (!ui.isAdmin) throw data("Not found", { status: 404 });
}

/** `?import=replicate|fal&id=…`: read the model's published inputs to prefill the form (docs/catalog.md). */
async function readImport(
  q: URLSearchParams,
): Promise<{ imported?: ImportedInputs & { provider: string; id: string }; importError?: string }> {
  const provider = q.get("import");
  const id = (q.get("id") ?? "").trim();
  if (!provider || !id) return {};
  const { config } = getServices();
  try {
    const inputs =
      provider === "fal"
        ? await importFal(config, id)
        : provider === "replicate"
          ? await importReplicate(config, id)
          : null;
    return inputs
      ? { imported: { ...inputs, provider, id } }
      : { importError: "Import reads Replicate and fal models." };
  } catch (error) {
    if (isAppError(error)) return { importError: error.message };
    throw error;
  }
}

export async function loader({ request }: Route.LoaderArgs) {
  await requireAdmin(request);
  const { db } = getServices();
  const { providers } = getGenerationRuntime();
  const models = (await adminListModels(db)).map((m) => ({ ...m, mode: providers.mode(m.provider) }));
  return { models, ...(await readImport(new URL(request.url).searchParams)) };
}

type Data = Route.ComponentProps["loaderData"];

export async function action({ request }: Route.ActionArgs) {
  await requireAdmin(request);
  const { db, clock } = getServices();
  const form = Object.fromEntries(await request.formData()) as Record<string, string>;
  const values = form;
  const text = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v.trim());
  const num = (v: string | undefined) =>
    text(v) !== undefined && /^-?\d+(\.\d+)?$/.test(v!.trim()) ? Number(v) : text(v);
  let options: unknown;
  if (text(form.options) !== undefined) {
    try {
      options = JSON.parse(form.options!);
    } catch {
      return { errors: { options: "options must be JSON (an object of option specs)" }, values };
    }
  }
  const usd = num(form.cost_usd);
  const input = {
    ai_type: form.ai_type,
    provider: form.provider,
    model: form.model,
    label: text(form.label),
    credits: num(form.credits),
    enabled: form.enabled === undefined || form.enabled === "" ? undefined : form.enabled === "true",
    requires_plan:
      form.requires_plan === undefined || form.requires_plan === "" ? undefined : form.requires_plan === "true",
    upstream_model: form.upstream_model === undefined ? undefined : (text(form.upstream_model) ?? null),
    options,
    cost:
      usd === undefined
        ? undefined
        : form.cost_usd === "none"
          ? null
          : { usd, per: form.cost_per === "second" ? "second" : "task" },
  };
  const parsed = ModelUpsertSchema.safeParse(input);
  if (!parsed.success) return { errors: fieldErrors(parsed.error), values };
  try {
    const m = await adminUpsertModel(db, parsed.data, clock);
    return {
      ok: `Saved ${m.label} (${m.provider} · ${m.model}): ${m.credits} credits, ${m.enabled ? "on sale" : "off sale"}.`,
    };
  } catch (error) {
    if (isAppError(error)) return { errors: { form: error.message }, values };
    throw error;
  }
}

const money = "text-right tabular-nums";

export default function AdminModels({ loaderData, actionData }: Route.ComponentProps) {
  const { models, imported, importError } = loaderData;
  const busy = useNavigation().state === "submitting";
  const errors: Record<string, string | undefined> =
    (actionData && "errors" in actionData ? actionData.errors : undefined) ?? {};
  const values: Record<string, string | undefined> =
    (actionData && "values" in actionData ? actionData.values : undefined) ?? {};
  const prefill = imported
    ? { provider: imported.provider, model: imported.id, options: JSON.stringify(imported.options, null, 2) }
    : {};
  const v = (k: string) => values[k] ?? (prefill as Record<string, string | undefined>)[k];
  return (
    <div className="space-y-8">
      <PageHeader
        title="Models"
        description="What Atelier sells and at what price. A change reaches every server within a second; a task keeps the price it was created at."
      >
        <Link to="/admin" className={buttonVariants({ variant: "secondary" })}>
          Back to admin
        </Link>
      </PageHeader>

      <Card
        title={`Catalog (${models.length})`}
        id="catalog"
        description="Disabled models are tinted: new tasks are refused, running ones finish."
      >
        <DataTable<Data["models"][number]>
          label="Models"
          rows={models}
          rowKey={(m) => `${m.ai_type}|${m.provider}|${m.model}`}
          rowClassName={(m) => (m.enabled ? undefined : "text-muted-foreground italic")}
          empty="No models."
          columns={[
            { header: "Type", cell: (m) => m.ai_type },
            { header: "Provider", cell: (m) => `${providerName(m.provider)} (${m.mode})` },
            { header: "Model", cell: (m) => <code className="text-xs">{m.model}</code> },
            { header: "Label", cell: (m) => m.label },
            { header: "Credits", cell: (m) => m.credits, className: money },
            {
              header: "Price rule",
              cell: (m) => <PriceVariants pricing={m.pricing} options={m.options} cost={m.cost} />,
            },
            {
              header: "Upstream cost",
              cell: (m) => (m.cost ? `$${m.cost.usd} / ${m.cost.per}` : "—"),
              className: money,
            },
            { header: "Plan only", cell: (m) => (m.requires_plan ? "yes" : "no") },
            { header: "On sale", cell: (m) => (m.enabled ? "yes" : "no") },
            { header: "Options", cell: (m) => Object.keys(m.options).join(", ") || "—" },
          ]}
        />
      </Card>

      <Card
        title="Add a Replicate or fal model"
        id="import"
        description="Enter a Replicate owner/name or a fal endpoint id: Atelier reads the model's published inputs and fills the form below with them. Keep the inputs to sell, adjust bounds, set the price, save."
      >
        <Form method="get" className="grid grid-cols-1 gap-4 sm:grid-cols-3">
          <Select label="From" name="import" defaultValue={imported?.provider ?? "fal"}>
            <option value="fal">fal (endpoint id)</option>
            <option value="replicate">Replicate (owner/name)</option>
          </Select>
          <Field
            label="Model id"
            name="id"
            required
            defaultValue={imported?.id}
            hint="e.g. fal-ai/wan/v2.2-a14b/text-to-video"
          />
          <div className="self-end">
            <Button type="submit" variant="secondary">
              Read its inputs
            </Button>
          </div>
        </Form>
        {importError ? (
          <Notice kind="error" className="mt-3">
            {importError}
          </Notice>
        ) : null}
        {imported ? (
          <Notice kind="success" className="mt-3">
            Read {Object.keys(imported.options).length} inputs from {imported.id}:{" "}
            {Object.keys(imported.options).join(", ") || "none"}
            {imported.skipped.length
              ? `; left out: ${imported.skipped.map((s) => `${s.name} (${s.why})`).join(", ")}`
              : ""}
            .
          </Notice>
        ) : null}
      </Card>

      <Card
        title="Add or change a model"
        id="upsert"
        description="An existing type + provider + model is updated with the fields filled in; a new one needs a price. Blank fields are left as they are."
      >
        {actionData && "ok" in actionData ? (
          <Notice kind="success" className="mb-3">
            {actionData.ok}
          </Notice>
        ) : null}
        {errors.form ? (
          <Notice kind="error" className="mb-3">
            {errors.form}
          </Notice>
        ) : null}
        <Form method="post" className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3" noValidate>
          <Select label="Type" name="ai_type" defaultValue={v("ai_type") ?? "image"} error={errors.ai_type}>
            {AI_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </Select>
          <Select label="Provider" name="provider" defaultValue={v("provider") ?? "fal"} error={errors.provider}>
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {providerName(p)}
              </option>
            ))}
          </Select>
          <Field label="Model id" name="model" required defaultValue={v("model")} error={errors.model} />
          <Field label="Label" name="label" defaultValue={v("label")} error={errors.label} hint="what people read" />
          <Field
            label="Price (credits)"
            name="credits"
            inputMode="numeric"
            defaultValue={v("credits")}
            error={errors.credits}
          />
          <Select label="On sale" name="enabled" defaultValue={v("enabled") ?? ""}>
            <option value="">(unchanged; new: yes)</option>
            <option value="true">yes</option>
            <option value="false">no (refuses new tasks)</option>
          </Select>
          <Select label="Plan only" name="requires_plan" defaultValue={v("requires_plan") ?? ""}>
            <option value="">(unchanged; new: no)</option>
            <option value="true">yes (subscribers only)</option>
            <option value="false">no</option>
          </Select>
          <Field
            label="Upstream cost (USD)"
            name="cost_usd"
            inputMode="decimal"
            defaultValue={v("cost_usd")}
            error={errors.cost}
            hint="what the provider charges; 'none' clears it"
          />
          <Select label="Cost per" name="cost_per" defaultValue={v("cost_per") ?? "task"}>
            <option value="task">task</option>
            <option value="second">second of video</option>
          </Select>
          <Field
            label="Upstream model id"
            name="upstream_model"
            defaultValue={v("upstream_model")}
            error={errors.upstream_model}
            hint="only when it differs from the model id"
          />
          <div className="sm:col-span-2 lg:col-span-3">
            <TextArea
              label="Options (JSON)"
              name="options"
              rows={10}
              defaultValue={v("options")}
              error={errors.options}
              className="font-mono text-xs"
              hint='e.g. {"aspect_ratio": {"type": "enum", "values": ["1:1", "16:9"], "default": "1:1", "label": "Aspect ratio"}}; image inputs are named image, image_end or mask'
            />
          </div>
          <div className="sm:col-span-2 lg:col-span-3">
            <Button type="submit" disabled={busy}>
              Save model
            </Button>
          </div>
        </Form>
      </Card>
    </div>
  );
}
