import { pageFromQuery } from "~/domain/paging";
import { Form, Link, redirect, useNavigation } from "react-router";
import { LiveRefresh, Progress, ResultMedia } from "~/components/generation";
import { Badge, EmptyState, Notice, PageHeader, Pagination, utcTime } from "~/components/ui";
import { CATALOG } from "~/domain/catalog";
import { availableCredits } from "~/domain/credits/ledger.server";
import {
  chargedCost,
  createGeneration,
  hasUnfinished,
  listRecent,
  parseFilter,
  parseResultUrls,
  validateGenerateInput,
} from "~/domain/generations/generations.server";
import { GENERATION_STATUSES } from "~/domain/generations/status";
import { cancelGeneration } from "~/domain/generations/cancel.server";
import { getGenerationRuntime } from "~/domain/generations/runtime.server";
import { iso } from "~/lib/clock";
import { isAppError } from "~/lib/errors";
import { fieldErrors, StudioSchema, type FieldErrors } from "~/lib/forms";
import { getServices } from "~/lib/services.server";
import { requireUiUser } from "~/lib/session.server";
import { OutOfCredits } from "~/components/billing/account-billing";
import type { Route } from "./+types/studio";

export const meta: Route.MetaFunction = () => [{ title: "Studio — Atelier" }];

const PAGE_SIZE = 8;

export async function loader({ request }: Route.LoaderArgs) {
  const { user } = await requireUiUser(request);
  const { db, clock } = getServices();
  const { providers } = getGenerationRuntime();
  const url = new URL(request.url);
  const page = pageFromQuery(url.searchParams.get("page"));
  const filter = parseFilter(url.searchParams);
  const { rows, total } = await listRecent(db, user.id, { page, pageSize: PAGE_SIZE }, filter);
  return {
    offerings: CATALOG.map((o) => ({ ...o, value: `${o.aiType}|${o.provider}|${o.model}`, mode: providers.mode(o.provider) })),
    available: Math.max(0, await db.exec(availableCredits(db, user.id, clock))),
    filter: { type: filter.aiType ?? "", status: filter.status ?? "" },
    running: await hasUnfinished(db, user.id),
    page,
    pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
    total,
    tasks: rows.map((r) => ({
      id: r.id,
      aiType: r.aiType,
      provider: r.provider,
      model: r.model,
      prompt: r.prompt,
      status: r.status,
      mode: r.mode,
      cost: chargedCost(r),
      error: r.errorMessage,
      urls: parseResultUrls(r),
      createdAt: iso(r.createdAt)!,
      completedAt: iso(r.completedAt),
    })),
  };
}

export async function action({ request }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const form = Object.fromEntries(await request.formData());
  if (form.intent === "cancel") {
    const services = getServices();
    try {
      await cancelGeneration({ db: services.db, clock: services.clock, providers: getGenerationRuntime().providers }, user.id, String(form.gen_id ?? ""));
    } catch (error) {
      // Finished meanwhile (or not this user's): the gallery shows the task as it is.
      if (!isAppError(error)) throw error;
    }
    return redirect("/studio?notice=generation-canceled");
  }
  const values = { offering: String(form.offering ?? ""), prompt: String(form.prompt ?? "") };
  const parsed = StudioSchema.safeParse(form);
  if (!parsed.success) return { errors: fieldErrors(parsed.error), values };
  const [ai_type, provider, model] = parsed.data.offering.split("|");
  const services = getServices();
  try {
    const input = validateGenerateInput({ ai_type, provider, model, prompt: parsed.data.prompt });
    const mode = getGenerationRuntime().providers.mode(input.offering.provider);
    const row = await createGeneration(services.db, { userId: user.id, input, mode, config: services.config }, services.clock);
    return redirect(`/studio?created=${encodeURIComponent(row.id)}&notice=generation-started`);
  } catch (error) {
    if (isAppError(error)) return { errors: { form: error.message } as FieldErrors, values, outOfCredits: error.code === "INSUFFICIENT_CREDITS" };
    throw error;
  }
}

function filterHref(filter: { type: string; status: string }, page: number) {
  const q = new URLSearchParams();
  if (filter.type) q.set("type", filter.type);
  if (filter.status) q.set("status", filter.status);
  if (page > 1) q.set("page", String(page));
  const s = q.toString();
  return `/studio${s ? `?${s}` : ""}`;
}

export default function Studio({ loaderData, actionData }: Route.ComponentProps) {
  const { offerings, available, tasks, page, pages, total, filter, running } = loaderData;
  const errors = actionData?.errors ?? {};
  const busy = useNavigation().state === "submitting";
  const filtered = Boolean(filter.type || filter.status);
  const selected = actionData?.values?.offering ?? offerings[0]?.value;
  return (
    <div className="space-y-8">
      <LiveRefresh active={running} watch={tasks.filter((t) => t.status === "pending" || t.status === "processing")} />
      <PageHeader title="Studio" description="Create images and videos; credits are charged only when a result is delivered.">
        <p className="text-sm text-slate-700" data-testid="available">
          Available: <strong>{available}</strong> credits
        </p>
      </PageHeader>

      <section className="card" aria-labelledby="create-h">
        <h2 id="create-h" className="text-lg font-semibold">
          New generation
        </h2>
        <Form method="post" className="mt-4 space-y-4" noValidate>
          {errors.form ? <Notice kind="error">{errors.form}</Notice> : null}
          {actionData && "outOfCredits" in actionData && actionData.outOfCredits ? <OutOfCredits /> : null}
          <div className="grid grid-cols-1 gap-4 md:grid-cols-[minmax(0,20rem)_1fr]">
            <div>
              <label htmlFor="f-offering" className="label">
                Type, provider and model
              </label>
              <select
                id="f-offering"
                name="offering"
                className="input mt-1"
                defaultValue={selected}
                aria-invalid={errors.offering ? true : undefined}
                aria-describedby={errors.offering ? "f-offering-error" : undefined}
              >
                {(["image", "video"] as const).map((type) => (
                  <optgroup key={type} label={type === "image" ? "Images" : "Videos"}>
                    {offerings
                      .filter((o) => o.aiType === type)
                      .map((o) => (
                        <option key={o.value} value={o.value}>
                          {`${o.label} — ${o.provider} / ${o.model} — ${o.credits} credits${o.mode === "simulated" ? " (simulated)" : ""}`}
                        </option>
                      ))}
                  </optgroup>
                ))}
              </select>
              {errors.offering ? (
                <p id="f-offering-error" className="field-error" role="alert">
                  {errors.offering}
                </p>
              ) : null}
            </div>
            <div>
              <label htmlFor="f-prompt" className="label">
                Prompt
              </label>
              <textarea
                id="f-prompt"
                name="prompt"
                rows={3}
                required
                maxLength={4000}
                className="input mt-1"
                defaultValue={actionData?.values?.prompt}
                aria-invalid={errors.prompt ? true : undefined}
                aria-describedby={errors.prompt ? "f-prompt-error" : "f-prompt-hint"}
              />
              {errors.prompt ? (
                <p id="f-prompt-error" className="field-error" role="alert">
                  {errors.prompt}
                </p>
              ) : (
                <p id="f-prompt-hint" className="hint">
                  Up to 4000 characters. Credits are charged only when the result is delivered.
                </p>
              )}
            </div>
          </div>
          <div className="flex flex-wrap items-center justify-between gap-3">
            <button type="submit" className="btn-primary" disabled={busy}>
              {busy ? "Starting…" : "Generate"}
            </button>
            <details className="text-sm text-slate-600">
              <summary className="cursor-pointer underline underline-offset-2">Providers</summary>
              <ul className="mt-2 space-y-1" aria-label="Provider modes">
                {[...new Map(offerings.map((o) => [o.provider, o.mode])).entries()].map(([p, mode]) => (
                  <li key={p} data-provider={p}>
                    <span className="font-medium">{p}</span>: {mode === "live" ? "live" : "simulated (no credentials configured)"}
                  </li>
                ))}
              </ul>
            </details>
          </div>
        </Form>
      </section>

      <section aria-labelledby="history-h">
        <div className="mb-3 flex flex-wrap items-end justify-between gap-3">
          <h2 id="history-h" className="text-lg font-semibold">
            History <span className="text-sm font-normal text-slate-600">({total})</span>
          </h2>
          <Form method="get" action="/studio" className="flex flex-wrap items-end gap-2" aria-label="Filter the gallery">
            <div>
              <label htmlFor="filter-type" className="label">
                Type
              </label>
              <select id="filter-type" name="type" defaultValue={filter.type} className="input mt-1 py-1.5" key={`t-${filter.type}`}>
                <option value="">All types</option>
                <option value="image">Images</option>
                <option value="video">Videos</option>
              </select>
            </div>
            <div>
              <label htmlFor="filter-status" className="label">
                Status
              </label>
              <select id="filter-status" name="status" defaultValue={filter.status} className="input mt-1 py-1.5" key={`s-${filter.status}`}>
                <option value="">All statuses</option>
                {GENERATION_STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {s[0]!.toUpperCase() + s.slice(1)}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit" className="btn-secondary">
              Filter
            </button>
            {filtered ? (
              <Link to="/studio" className="btn-secondary">
                Clear filters
              </Link>
            ) : null}
            <Link to={filterHref(filter, page)} className="btn-secondary" reloadDocument>
              Refresh
            </Link>
          </Form>
        </div>
        {running ? (
          <p className="mb-3 text-sm text-indigo-900" role="status" data-testid="running">
            Tasks are running — this page updates by itself.
          </p>
        ) : null}
        {tasks.length === 0 ? (
          <EmptyState title={filtered ? "No generations match these filters." : "Nothing yet"}>
            {filtered ? (
              <Link to="/studio" className="link">
                Show all generations
              </Link>
            ) : (
              "Your generations will appear here. Describe something above and press Generate."
            )}
          </EmptyState>
        ) : (
          <ul className="grid grid-cols-1 items-start gap-4 sm:grid-cols-2 lg:grid-cols-4" aria-label="Gallery">
            {tasks.map((t) => (
              <li key={t.id} className="card flex flex-col gap-2 p-3" data-gen-id={t.id} data-status={t.status} aria-label={`Generation: ${t.prompt}`}>
                {t.status === "completed" && t.urls[0] ? (
                  <ResultMedia url={t.urls[0]} aiType={t.aiType} prompt={t.prompt} thumb />
                ) : (
                  <div className="flex aspect-square w-full items-center justify-center rounded-md bg-slate-100 p-3 text-center text-sm text-slate-600">
                    {t.status === "failed" ? (
                      <p className="text-red-800" role="note">
                        {t.error}
                      </p>
                    ) : (
                      <div className="w-full">
                        <Progress status={t.status} />
                      </div>
                    )}
                  </div>
                )}
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <Badge status={t.status} data-testid="status" />
                  {t.status === "pending" || t.status === "processing" ? (
                    <Form method="post" action="/studio">
                      <input type="hidden" name="intent" value="cancel" />
                      <input type="hidden" name="gen_id" value={t.id} />
                      <button type="submit" className="btn-secondary px-2 py-0.5 text-xs" aria-label={`Cancel: ${t.prompt}`}>
                        Cancel
                      </button>
                    </Form>
                  ) : null}
                  <time className="text-xs text-slate-600" dateTime={t.createdAt}>
                    {utcTime(t.createdAt)}
                  </time>
                </div>
                <p className="line-clamp-3 text-sm break-words">
                  <Link to={`/studio/${t.id}`} className="link" aria-label={`Details: ${t.prompt}`}>
                    {t.prompt}
                  </Link>
                </p>
                <p className="text-xs text-slate-600">
                  {t.aiType} · {t.provider} / {t.model} · {t.cost} credits{t.mode === "simulated" ? " · simulated" : ""}
                </p>
              </li>
            ))}
          </ul>
        )}
        <Pagination label="History pages" page={page} pages={pages} href={(p) => filterHref(filter, p)} />
      </section>
    </div>
  );
}
